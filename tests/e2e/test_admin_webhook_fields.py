"""The admin pages' new fields and the health chart, in Chromium, with axe-core on each state:
the destination (URL or EventBridge bus), the signature scheme and the rate limit in the editor;
the rotation's grace period and the older secrets; the chart of attempts and latency.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from harness.receiver import Answer, Receiver
from infra.local_stack import LocalStack
from tests.support.admin_pages import AdminVisit, Shots, admin_in, endpoint_with_log, unique_path
from tests.support.axe import assert_no_violations
from tests.support.settings import webhook_options
from tests.support.webhooks import Hooks

pytestmark = pytest.mark.browser

STANDARD_SECRET = re.compile(r"whsec_[A-Za-z0-9+/]{43}=")


def test_the_endpoint_page_draws_attempts_and_latency(
    stack: LocalStack, receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    answers = [Answer(200), Answer(200), Answer(503), Answer(410)]
    titles = ["One", "Two", "Three", "Four"]
    endpoint = endpoint_with_log(
        stack, hooks, receiver, workspace.id, answers, titles, label="chart"
    )

    admin_in(page, credentials, f"/webhooks/{endpoint['id']}")
    chart = page.get_by_role("img", name="Attempts by verdict and latency, the last 24 hours")
    expect(chart).to_be_visible()
    summary = "In the last 24 hours: 4 attempts (2 succeeded, 1 failed, 1 dead)"
    expect(page.locator(".chart-summary")).to_contain_text(summary)
    expect(chart.locator("desc")).to_contain_text(summary)
    expect(chart.locator("rect.bar-succeeded")).to_have_count(1)
    expect(chart.locator("rect.bar-dead")).to_have_count(1)
    expect(chart.locator("polyline.line-p50")).to_have_count(1)
    page.get_by_text("The chart's figures as a table").click()
    table = page.locator(".chart-data table")
    expect(table.locator("tbody tr")).to_have_count(24)
    last = table.locator("tbody tr").last
    expect(last.locator("td").nth(0)).to_have_text("2")
    expect(last.locator("td").nth(1)).to_have_text("1")
    expect(last.locator("td").nth(2)).to_have_text("1")
    shot("chart-24h")
    assert_no_violations(page, "the endpoint page with its health chart and table open")

    page.get_by_role("navigation", name="Health chart period").get_by_role(
        "link", name="7 days"
    ).click()
    week = page.get_by_role("img", name="Attempts by verdict and latency, the last 7 days")
    expect(week).to_be_visible()
    expect(page.locator(".chart-data tbody tr")).to_have_count(28)
    expect(page.locator(".chart-summary")).to_contain_text("4 attempts")
    shot("chart-7d")
    with shot.phone():
        assert_no_violations(page, "the 7-day chart at phone width")
        shot("chart-phone")


def test_the_editor_offers_the_scheme_and_the_rate_limit(
    receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    admin_in(page, credentials, "/webhooks/new")
    page.get_by_label("Endpoint URL").fill(receiver.url(unique_path("standard")))
    page.get_by_label(workspace.slug).check()
    page.get_by_label("Signature scheme").select_option("standard")
    page.get_by_label("Rate limit (deliveries per second)").fill("0")
    page.get_by_role("button", name="Create endpoint").click()
    expect(page.locator("#rateLimit-error")).to_contain_text("from 1 to 1000")
    expect(page.get_by_label("Rate limit (deliveries per second)")).to_be_focused()
    assert_no_violations(page, "the editor refusing a rate limit")
    page.get_by_label("Rate limit (deliveries per second)").fill("5")
    page.get_by_role("button", name="Create endpoint").click()
    secret_box = page.get_by_label("Signing secret", exact=True)
    expect(secret_box).to_have_value(STANDARD_SECRET)
    shot("standard-created")
    created_id = page.get_by_role("link", name="Open the endpoint").get_attribute("href")
    assert created_id is not None
    endpoint_id = created_id.rsplit("/", 1)[-1]
    hooks.created.append(endpoint_id)
    stored = hooks.get(endpoint_id)
    assert (stored["signatureScheme"], stored["rateLimit"]) == ("standard", 5)

    page.goto(f"/webhooks/{endpoint_id}/edit")
    expect(page.get_by_label("Signature scheme")).to_be_disabled()
    expect(page.get_by_label("Rate limit (deliveries per second)")).to_have_value("5")
    page.get_by_label("Rate limit (deliveries per second)").fill("")
    page.get_by_role("button", name="Save changes").click()
    expect(page).to_have_url(re.compile(r"done=saved"))
    assert hooks.get(endpoint_id)["rateLimit"] is None
    expect(page.get_by_role("heading", name="Verify signatures")).to_be_visible()
    expect(page.get_by_text("Python (standardwebhooks)", exact=True)).to_be_visible()
    assert_no_violations(page, "a Standard Webhooks endpoint's page")


def test_an_eventbridge_endpoint_is_made_in_the_editor(
    stack: LocalStack,
    page: Page,
    credentials: dict[str, Any],
    output_dir: Path,
    hooks: Hooks,
    new_workspace: Any,
) -> None:
    shot = Shots(page, output_dir)
    workspace = new_workspace()
    events = stack.emulator.session().client("events", endpoint_url=stack.emulator.endpoint_url)
    bus = events.create_event_bus(Name=f"admin-{uuid.uuid4().hex[:8]}")["EventBusArn"]
    with webhook_options(eventbridge_buses=(bus,)):
        admin_in(page, credentials, "/webhooks/new")
        page.get_by_label("An Amazon EventBridge bus (one PutEvents entry per delivery)").check()
        expect(page.get_by_label("Endpoint URL")).to_be_hidden()
        expect(page.get_by_label("Signature scheme")).to_be_hidden()
        expect(page.get_by_label("Event bus")).to_have_value(bus)
        page.get_by_label(workspace.slug).check()
        assert_no_violations(page, "the editor with an EventBridge destination")
        shot("eventbridge-editor")
        page.get_by_role("button", name="Create endpoint").click()
        expect(page.get_by_role("status").filter(has_text="Endpoint created.")).to_be_visible()
        endpoint_id = page.url.split("/webhooks/")[1].split("?")[0]
        hooks.created.append(endpoint_id)
        expect(page.get_by_role("heading", level=1)).to_contain_text(bus)
        expect(page.get_by_role("button", name="Rotate secret")).to_have_count(0)
        assert_no_violations(page, "an EventBridge endpoint's page")
        shot("eventbridge-endpoint")
    stored = hooks.get(endpoint_id)
    assert (stored["type"], stored["eventBusArn"], stored["url"]) == ("eventbridge", bus, None)


def test_rotation_with_a_grace_period_lists_the_older_secret(
    page: Page,
    credentials: dict[str, Any],
    output_dir: Path,
    receiver: Receiver,
    hooks: Hooks,
    local_receivers_allowed: None,
) -> None:
    shot = Shots(page, output_dir)
    endpoint = hooks.create(receiver.url(unique_path("grace")), workspaces=[])
    old = endpoint["secret"]
    admin_in(page, credentials, f"/webhooks/{endpoint['id']}")
    expect(page.locator("#older-secrets")).to_have_text("None: only the current secret signs")
    page.get_by_role("button", name="Rotate secret").click()
    dialog = page.get_by_role("dialog", name="Rotate the signing secret?")
    grace = dialog.get_by_label("Keep the current secret valid for")
    expect(grace).to_have_value("86400")
    options = grace.locator("option").all_inner_texts()
    assert options == ["None: the current secret stops now", "1 hour", "24 hours", "7 days"]
    grace.select_option(label="1 hour")
    assert_no_violations(page, "the rotation dialog")
    shot("rotate-grace", full_page=False)
    dialog.get_by_role("button", name="Rotate secret").click()
    expect(page.get_by_label("Signing secret", exact=True)).to_have_value(re.compile(r"whsec_"))
    expect(page.locator("#older-secrets")).to_contain_text(f"whsec_…{old[-4:]} also signs until")
    stored = hooks.get(endpoint["id"])
    assert [o["secretHint"] for o in stored["olderSecrets"]] == [old[-4:]]
    page.reload()
    expect(page.locator("#older-secrets")).to_contain_text(f"whsec_…{old[-4:]}")
    assert old not in page.content()
    assert json.dumps(stored).count(old) == 0
