"""Webhook operations in Chromium: recover after an outage, the live log, search by event id,
Retry now.

Receivers are real HTTP servers on 127.0.0.1; `stack.drain()` runs the fan-out and delivery
handlers, and with them the recovery jobs (queued work). The page is never reloaded where the
test says the log updates by itself.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.admin_pages import AdminVisit, admin_in, endpoint_with_log, unique_path
from tests.support.axe import assert_no_violations
from tests.support.webhooks import Receiving, rows_for_endpoint, seed_rows, write_event

pytestmark = pytest.mark.browser


def test_recover_after_an_outage_delivers_each_event_exactly_once(
    stack: LocalStack, receiver: Receiver, clock: FakeClock, admin_visit: AdminVisit
) -> None:
    """The ladder's clock is held: however long the machine takes, the failed rows' first retry
    (10 s later, jittered) never comes due, so the recovery finds all 30 still failed. With the
    real clock a loaded machine let the retries' delayed messages run first for some rows."""
    page, credentials, shot, hooks, workspace = admin_visit
    endpoint = hooks.create(receiver.url(unique_path("outage")), workspaces=[workspace.id])
    receiver.always(Answer(500, b"down"))
    events = [
        write_event(workspace_id=workspace.id, kind="entry.published", title=f"Post {i}")
        for i in range(30)
    ]
    stack.drain()
    assert len(receiver.requests) == 30
    assert {r.status for r in rows_for_endpoint(endpoint["id"])} == {"failed"}
    receiver.always(Answer(200, b"back"))
    # One second on, well inside the first step of the ladder: the recovery's window, which
    # ends now, takes in rows created at the held instant.
    clock.advance(1)

    admin_in(page, credentials, f"/webhooks/{endpoint['id']}?limit=100")
    rows = page.locator(".log-row")
    expect(rows).to_have_count(30)
    page.get_by_role("button", name="Recover…").click()
    dialog = page.get_by_role("dialog", name="Recover failed deliveries")
    expect(dialog.get_by_label("Failed, will retry")).to_be_checked()
    expect(dialog.get_by_label("Dead")).to_be_checked()
    shot("recover-dialog")
    dialog.get_by_role("button", name="Recover deliveries").click()
    status = page.locator("#recovery-line")
    expect(status).to_contain_text("Recovery queued")
    stack.drain()  # the queued recovery job, then the 30 redeliveries it queued
    expect(status).to_have_text(
        "Recovery completed: 30 matched, 30 redeliveries queued.", timeout=10_000
    )
    # One poll of the live log fetches the 30 new rows and the 30 changed originals one by
    # one: on a loaded machine that takes longer than a few seconds.
    redelivered = page.locator(".log-row", has=page.locator(".badge", has_text="Redelivery"))
    expect(redelivered).to_have_count(30, timeout=30_000)
    expect(redelivered.filter(has_text="Succeeded")).to_have_count(30, timeout=30_000)
    shot("recovered")

    arrived = receiver.requests[30:]
    assert sorted(r.header("X-Service-Event-Id") or "" for r in arrived) == sorted(
        e["id"] for e in events
    )
    # Each original stopped retrying; a second drain sends nothing more.
    originals = [r for r in rows_for_endpoint(endpoint["id"]) if r.redelivery_of is None]
    assert {r.status for r in originals} == {"dead"}
    assert all(r.recovered_by for r in originals)
    stack.drain()
    assert len(receiver.requests) == 60


def test_the_open_log_shows_a_new_delivery_within_5_s(
    stack: LocalStack, page: Page, credentials: dict[str, Any], receiving: Receiving
) -> None:
    workspace, hooks, receiver = receiving
    endpoint = hooks.create(receiver.url(unique_path("live")), workspaces=[workspace.id])
    admin_in(page, credentials, f"/webhooks/{endpoint['id']}")
    expect(page.get_by_text("No deliveries yet.")).to_be_visible()
    loaded = page.evaluate("() => performance.timeOrigin")

    write_event(workspace_id=workspace.id, kind="entry.created", title="Arrives live")
    stack.drain()
    sent_at = time.monotonic()
    rows = page.locator(".log-row")
    expect(rows).to_have_count(1, timeout=5_000)
    assert time.monotonic() - sent_at <= 5.5
    expect(rows.first).to_contain_text("Arrives live")
    expect(rows.first).to_contain_text("Succeeded")
    expect(rows.first.locator(".relative")).to_contain_text(re.compile(r"ago|just now"))
    expect(page.locator("#log-live")).to_have_text("1 new delivery in the log.")
    # The same document: no reload happened.
    assert page.evaluate("() => performance.timeOrigin") == loaded
    rows.first.locator("summary").first.click()
    expect(rows.first.get_by_label(re.compile("Request body of delivery"))).to_contain_text(
        "Arrives live"
    )
    assert_no_violations(page, "the endpoint page with a live row opened")


def test_search_by_event_id_finds_exactly_one_row(admin_visit: AdminVisit) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    endpoint = hooks.create("http://127.0.0.1:9" + unique_path("search"), workspaces=[workspace.id])
    seeded = seed_rows(endpoint["id"], FakeClock(), count=5)
    wanted = seeded[2]
    admin_in(page, credentials, f"/webhooks/{endpoint['id']}")
    rows = page.locator(".log-row")
    expect(rows).to_have_count(5)
    page.get_by_label("Event id").fill(wanted.event_id)
    page.get_by_role("button", name="Apply filters").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-delivery-id", wanted.id)
    expect(page.get_by_label("Event id")).to_have_value(wanted.event_id)
    shot("found")
    page.get_by_label("Event id").fill("")
    page.get_by_label("Entry id").fill(seeded[4].entry_id or "")
    page.get_by_role("button", name="Apply filters").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-delivery-id", seeded[4].id)


def test_retry_now_moves_a_failed_row_to_its_next_attempt(
    stack: LocalStack, receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    endpoint = endpoint_with_log(
        stack,
        hooks,
        receiver,
        workspace.id,
        [Answer(503, b"busy")],
        ["Try again"],
        label="retry",
        kind="entry.updated",
    )
    (failed,) = rows_for_endpoint(endpoint["id"])
    assert (failed.status, failed.attempts) == ("failed", 1)
    receiver.always(Answer(200, b"thanks"))

    admin_in(page, credentials, f"/webhooks/{endpoint['id']}")
    row = page.locator(f'.log-row[data-delivery-id="{failed.id}"]')
    expect(row).to_contain_text("Failed, will retry")
    expect(row).to_contain_text("attempt 1 of 6")
    row.locator("summary").first.click()
    expect(row.locator(".progress-text")).to_contain_text(
        "Attempt 1 of 6 failed; attempt 2 is next"
    )
    expect(row.locator(".progress-text")).to_contain_text("waits 1 min, then 5 min")
    expect(row).to_contain_text(re.compile(r"in \d+ s"))
    shot("failed-row")
    row.get_by_role("button", name="Retry now").click()
    expect(page.get_by_role("status").filter(has_text="Retry queued")).to_be_visible()
    stack.drain()
    expect(row).to_contain_text("Succeeded", timeout=5_000)
    expect(row).to_contain_text("attempt 2 of 6")
    shot("retried")
    assert receiver.requests[-1].header("X-Service-Delivery") == failed.id
    assert receiver.requests[-1].header("X-Service-Attempt") == "2"
