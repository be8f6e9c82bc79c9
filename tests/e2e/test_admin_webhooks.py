"""The webhook admin pages in Debian's Chromium: create, edit, send test, the delivery log,
redeliver, rotate, re-enable, delete; at laptop and phone width.

Each test signs in in a fresh browser context (the `page` fixture, which fails the test on any
request to another origin) and saves numbered screenshots under `test-output/<test>/`.
Receivers are real HTTP servers on 127.0.0.1 (`local_receivers_allowed` lets the URL policy
accept them for the test alone); `stack.drain()` runs the fan-out and delivery handlers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from content_service.webhooks.sending import verify_signature
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.admin_pages import AdminVisit, Shots, admin_in, no_horizontal_scroll, unique_path
from tests.support.content import create, define, publish
from tests.support.settings import webhook_options
from tests.support.webhooks import Hooks, seed_rows, write_event

pytestmark = pytest.mark.browser

SECRET = re.compile(r"whsec_[A-Za-z0-9_-]{43}")


def test_create_shows_the_secret_once_then_edit(
    receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    define(workspace.full, "blog_post", [{"name": "title", "type": "string"}])
    url = receiver.url(unique_path())
    admin_in(page, credentials)
    expect(page.get_by_role("heading", name="Webhooks", level=1)).to_be_visible()
    shot("list")

    page.get_by_role("link", name="New endpoint").click()
    expect(page).to_have_url("/webhooks/new")
    # A URL the policy refuses: the API's 422 reason appears next to the URL field.
    page.get_by_label("Endpoint URL").fill("http://169.254.169.254/latest/meta-data/")
    page.get_by_label(workspace.slug).check()
    page.get_by_label("entry.published").check()
    page.get_by_role("button", name="Create endpoint").click()
    url_error = page.locator("#url-error")
    expect(url_error).to_contain_text("cloud metadata")
    expect(page.get_by_label("Endpoint URL")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("alert")).to_contain_text("Not saved")
    shot("refused-url")

    # A reserved header name is refused before submit, with the rule shown.
    page.get_by_label("Endpoint URL").fill(url)
    page.get_by_label("Header 1 name").fill("X-Service-Event")
    page.get_by_label("Header 1 value").fill("forged")
    expect(page.locator("#header-error-1")).to_contain_text("X-Service-")
    page.get_by_role("button", name="Create endpoint").click()
    expect(page.get_by_role("alert")).to_contain_text("a custom header breaks one of the rules")
    expect(page.get_by_label("Header 1 name")).to_be_focused()
    shot("reserved-header")
    page.get_by_label("Header 1 name").fill("Authorization")
    page.get_by_label("Header 1 value").fill("Bearer receiver-token")
    expect(page.locator("#header-error-1")).to_be_hidden()
    # The content types of the chosen workspace are offered; the field stays a free list.
    page.get_by_role("button", name="Add content type blog_post").click()
    expect(page.get_by_label("Content types")).to_have_value("blog_post")
    page.get_by_label("Content types").fill("blog_post, author")
    shot("filled-in")
    page.get_by_role("button", name="Create endpoint").click()

    secret_box = page.get_by_label("Signing secret", exact=True)
    expect(secret_box).to_have_value(SECRET)
    secret = secret_box.input_value()
    expect(page.get_by_role("status").filter(has_text="shown only once")).to_be_visible()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.get_by_role("button", name="Copy secret").click()
    expect(page.locator("#copy-status")).to_have_text("Copied to the clipboard.")
    assert page.evaluate("() => navigator.clipboard.readText()") == secret
    shot("secret-shown-once")
    created = [e for e in hooks.client.get("/api/webhooks").json()["items"] if e["url"] == url]
    assert len(created) == 1
    endpoint = created[0]
    hooks.created.append(endpoint["id"])
    assert endpoint["secretHint"] == secret[-4:]
    assert secret not in page.url

    # Never again: not on the endpoint's page, not on going back, not after a reload, and
    # never kept in the browser's storage.
    stored = "() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage)"
    assert page.evaluate(stored) == "{}{}"
    page.get_by_role("link", name="Open the endpoint").click()
    expect(page).to_have_url(f"/webhooks/{endpoint['id']}")
    expect(page.get_by_role("heading", level=1)).to_contain_text(url)
    assert secret not in page.content()
    expect(page.locator(".secret-hint").first).to_have_text(secret[-4:])
    shot("endpoint")
    page.go_back()
    expect(page).to_have_url("/webhooks/new")
    expect(page.get_by_label("Signing secret", exact=True)).to_have_value("")
    assert secret not in page.content()
    page.reload()
    expect(page.get_by_label("Endpoint URL")).to_have_value("")
    assert secret not in page.content()
    assert page.evaluate(stored) == "{}{}"
    page.goto(f"/webhooks/{endpoint['id']}")

    # Edit: more event kinds, another header, content types; the page shows the change.
    page.get_by_role("link", name="Edit").click()
    expect(page).to_have_url(f"/webhooks/{endpoint['id']}/edit")
    expect(page.get_by_label("Endpoint URL")).to_have_value(url)
    expect(page.get_by_label("entry.published")).to_be_checked()
    expect(page.get_by_label("Header 1 value")).to_have_value("Bearer receiver-token")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("status").filter(has_text="Nothing changed")).to_be_visible()
    page.get_by_label("entry.unpublished").check()
    # The type suggestions arrive after the page (a fetch per workspace) and push the header
    # rows down by a line: a click aimed before they arrive can land beside its button.
    expect(page.get_by_role("button", name="Add content type blog_post")).to_be_visible()
    page.get_by_role("button", name="Add header").click()
    page.get_by_label("Header 2 name").fill("X-Team")
    page.get_by_label("Header 2 value").fill("content")
    page.get_by_label("Content types").fill("blog_post")
    shot("editing")
    page.get_by_role("button", name="Save changes").click()
    expect(page).to_have_url(f"/webhooks/{endpoint['id']}?done=saved")
    expect(page.get_by_role("status").filter(has_text="Changes saved.")).to_be_visible()
    expect(page.get_by_text("entry.published, entry.unpublished")).to_be_visible()
    expect(page.get_by_text("X-Team: content")).to_be_visible()
    saved = hooks.get(endpoint["id"])
    assert saved["events"] == ["entry.published", "entry.unpublished"]
    assert saved["contentTypes"] == ["blog_post"]
    assert saved["headers"] == {"Authorization": "Bearer receiver-token", "X-Team": "content"}
    assert saved["workspaces"] == [workspace.id]
    assert saved["secretHint"] == secret[-4:]
    shot("saved")

    # The list finds it by URL text, and reads well at phone width.
    page.goto(f"/webhooks?q={url.rsplit('/', 1)[1]}")
    expect(page.locator(".endpoint-row")).to_have_count(1)
    expect(page.locator(".endpoint-row")).to_contain_text("No deliveries yet")
    shot("list-filtered")
    with shot.phone():
        assert no_horizontal_scroll(page)
        shot("list-phone")
        page.goto(f"/webhooks/{endpoint['id']}")
        assert no_horizontal_scroll(page)
        shot("endpoint-phone")
        page.goto(f"/webhooks/{endpoint['id']}/edit")
        assert no_horizontal_scroll(page)
        shot("editor-phone")


def test_send_test_shows_status_duration_and_response(
    receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    endpoint = hooks.create(
        receiver.url(unique_path()),
        workspaces=[workspace.id],
        headers={"Authorization": "Bearer receiver-token"},
    )
    long_answer = b'{"received": true, "note": "pong from the receiver"}' + b" " * 5000 + b"TAIL"
    receiver.respond(Answer(200, long_answer, headers=(("Content-Type", "application/json"),)))
    admin_in(page, credentials, f"/webhooks/{endpoint['id']}")

    page.get_by_role("button", name="Send test").click()
    result = page.get_by_role("region", name="Send test result")
    expect(result).to_contain_text("Succeeded")
    expect(result).to_contain_text("HTTP 200")
    expect(result).to_contain_text(re.compile(r"\d+ ms"))
    snippet = page.get_by_label("Response to the test")
    expect(snippet).to_contain_text("pong from the receiver")
    # The first couple of KiB of the response, not all of it.
    shown = snippet.text_content() or ""
    assert "TAIL" not in shown
    assert 1024 <= len(shown.encode()) <= 2048
    expect(page.get_by_role("status").filter(has_text="Test succeeded")).to_be_visible()
    shot("test-succeeded")

    ping = receiver.requests[-1]
    assert ping.header("X-Service-Event") == "ping"
    assert ping.header("Authorization") == "Bearer receiver-token"
    verify_signature(ping.body, ping.header("X-Service-Signature") or "", endpoint["secret"])

    receiver.respond(Answer(500, b"receiver exploded"))
    page.get_by_role("button", name="Send test").click()
    expect(result).to_contain_text("Failed")
    expect(result).to_contain_text("HTTP 500")
    expect(snippet).to_have_text("receiver exploded")
    shot("test-failed")
    # A test is never logged as a delivery (docs/webhooks.md, "Catalogue and Send test").
    expect(page.locator(".log-row")).to_have_count(0)


def test_published_entry_is_logged_opened_and_redelivered(
    stack: LocalStack, receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    define(workspace.full, "article", [{"name": "title", "type": "string", "required": True}])
    endpoint = hooks.create(
        receiver.url(unique_path()), workspaces=[workspace.id], events=["entry.published"]
    )
    receiver.always(Answer(200, b'{"thanks": "got it"}'))
    entry = create(workspace.full, "article", {"title": "Spring launch"})
    publish(workspace.full, "article", entry["id"])
    stack.drain()
    assert len(receiver.requests) == 1
    first = receiver.requests[0]

    admin_in(page, credentials, f"/webhooks/{endpoint['id']}")
    rows = page.locator(".log-row")
    expect(rows).to_have_count(1)
    row = rows.first
    expect(row).to_contain_text("Succeeded")
    expect(row).to_contain_text("entry.published")
    expect(row).to_contain_text("article: Spring launch")
    expect(row).to_contain_text("HTTP 200")
    shot("log")

    row.locator("summary").first.click()
    body = row.get_by_label(re.compile("Request body of delivery"))
    expect(body).to_be_visible()
    expect(body).to_contain_text(entry["id"])
    expect(body).to_contain_text('"title": "Spring launch"')
    expect(body).to_contain_text(first.header("X-Service-Event-Id") or "missing")
    attempts = row.locator("table.attempts tbody tr")
    expect(attempts).to_have_count(1)
    expect(attempts.first).to_contain_text("200")
    expect(attempts.first).to_contain_text(re.compile(r"\d+ ms"))
    expect(row.get_by_label(re.compile("Response snippet"))).to_have_text('{"thanks": "got it"}')
    shot("log-row-open")
    with shot.phone():
        assert no_horizontal_scroll(page)
        shot("log-row-open-phone")

    row.get_by_role("button", name="Redeliver").click()
    expect(page).to_have_url(re.compile(r"\?done=redelivered"))
    expect(page.get_by_role("status").filter(has_text="Redelivery queued")).to_be_visible()
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("Pending")
    shot("redelivery-queued")

    stack.drain()
    assert len(receiver.requests) == 2
    second = receiver.requests[1]
    assert second.header("X-Service-Event-Id") == first.header("X-Service-Event-Id")
    assert second.header("X-Service-Delivery") != first.header("X-Service-Delivery")
    page.goto(f"/webhooks/{endpoint['id']}")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Succeeded")
    expect(rows.nth(0)).to_have_attribute(
        "data-delivery-id", second.header("X-Service-Delivery") or ""
    )
    expect(rows.nth(1)).to_have_attribute(
        "data-delivery-id", first.header("X-Service-Delivery") or ""
    )
    shot("redelivered")

    # Filters: by state and by event kind.
    page.get_by_label("Status").select_option("dead")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_text("No delivery matches these filters.")).to_be_visible()
    page.get_by_label("Status").select_option("succeeded")
    page.get_by_label("Event kind").select_option("entry.published")
    page.get_by_role("button", name="Apply filters").click()
    expect(rows).to_have_count(2)

    # The list shows the latest outcome.
    page.goto(f"/webhooks?q={endpoint['url'].rsplit('/', 1)[1]}")
    expect(page.locator(".endpoint-row")).to_contain_text("Succeeded")
    expect(page.locator(".endpoint-row")).to_contain_text("entry.published · HTTP 200")
    shot("list-latest-outcome")


def test_log_is_newest_first_and_paged(admin_visit: AdminVisit) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    endpoint = hooks.create("http://127.0.0.1:9/never-sent", workspaces=[workspace.id])
    clock = FakeClock()
    seeded = [
        *seed_rows(endpoint["id"], clock, count=3, kind="entry.created"),
        *seed_rows(endpoint["id"], clock, count=2, kind="entry.deleted"),
    ]
    newest_first = [row.id for row in reversed(seeded)]

    admin_in(page, credentials, f"/webhooks/{endpoint['id']}?limit=2")
    rows = page.locator(".log-row")
    seen: list[str] = []
    for _ in range(3):
        seen += [rows.nth(i).get_attribute("data-delivery-id") or "" for i in range(rows.count())]
        older = page.get_by_role("link", name="Older deliveries")
        if older.count() == 0:
            break
        older.click()
        expect(page.get_by_role("link", name="Newest deliveries")).to_be_visible()
    assert seen == newest_first
    shot("last-page")
    page.get_by_role("link", name="Newest deliveries").click()
    expect(rows.first).to_have_attribute("data-delivery-id", newest_first[0])

    page.get_by_label("Event kind").select_option("entry.created")
    page.get_by_role("button", name="Apply filters").click()
    expect(rows).to_have_count(2)
    page.get_by_role("link", name="Older deliveries").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-delivery-id", seeded[0].id)
    expect(page.get_by_label("Event kind")).to_have_value("entry.created")
    shot("filtered-older")


def test_rotate_shows_the_new_secret_once(receiver: Receiver, admin_visit: AdminVisit) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    endpoint = hooks.create(receiver.url(unique_path()), workspaces=[workspace.id])
    old_secret = endpoint["secret"]
    admin_in(page, credentials, f"/webhooks/{endpoint['id']}")

    page.get_by_role("button", name="Rotate secret").click()
    dialog = page.get_by_role("dialog", name="Rotate the signing secret?")
    expect(dialog).to_be_visible()
    shot("rotate-confirm", full_page=False)
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert hooks.get(endpoint["id"])["secretHint"] == old_secret[-4:]

    page.get_by_role("button", name="Rotate secret").click()
    dialog.get_by_role("button", name="Rotate secret").click()
    secret_box = page.get_by_label("Signing secret", exact=True)
    expect(secret_box).to_have_value(SECRET)
    new_secret = secret_box.input_value()
    assert new_secret != old_secret
    expect(page.locator(".secret-hint").first).to_have_text(new_secret[-4:])
    assert hooks.get(endpoint["id"])["secretHint"] == new_secret[-4:]
    shot("rotated")

    # The next send is signed with the new secret, and the page never shows it again.
    page.get_by_role("button", name="Send test").click()
    expect(page.get_by_role("region", name="Send test result")).to_contain_text("HTTP 200")
    ping = receiver.requests[-1]
    verify_signature(ping.body, ping.header("X-Service-Signature") or "", new_secret)
    page.reload()
    expect(page.get_by_label("Signing secret", exact=True)).to_have_value("")
    assert new_secret not in page.content()


def test_auto_disabled_endpoint_shows_its_reason_and_re_enables(
    stack: LocalStack, receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    path = unique_path("gone")
    receiver.always(Answer(410, b"this hook is gone"))
    with webhook_options(auto_disable_after=1):
        endpoint = hooks.create(receiver.url(path), workspaces=[workspace.id])
        write_event(workspace_id=workspace.id, kind="entry.published", title="Farewell")
        stack.drain()
    assert hooks.get(endpoint["id"])["enabled"] is False

    admin_in(page, credentials, f"/webhooks?enabled=disabled&q={path[1:]}")
    row = page.locator(".endpoint-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Disabled")
    expect(row).to_contain_text("disabled after 1 consecutive dead deliveries")
    expect(row).to_contain_text("Dead")
    expect(row).to_contain_text("HTTP 410")
    shot("list-disabled")
    page.goto(f"/webhooks?enabled=enabled&q={path[1:]}")
    expect(row).to_have_count(0)
    with shot.phone():
        page.goto(f"/webhooks?enabled=disabled&q={path[1:]}")
        assert no_horizontal_scroll(page)
        shot("list-disabled-phone")

    row.get_by_role("link", name=endpoint["url"]).click()
    banner = page.locator("#disabled-banner")
    expect(banner).to_contain_text("This endpoint is disabled")
    expect(banner).to_contain_text("disabled after 1 consecutive dead deliveries")
    # Redelivering to a disabled endpoint is refused by the API; the page says why.
    log_row = page.locator(".log-row").first
    log_row.locator("summary").first.click()
    log_row.get_by_role("button", name="Redeliver").click()
    expect(page.get_by_role("alert")).to_contain_text("re-enable it before redelivering")
    shot("disabled-detail")

    receiver.always(Answer(200))
    page.get_by_role("button", name="Re-enable").click()
    expect(page).to_have_url(re.compile(r"\?done=reenabled"))
    expect(page.get_by_role("status").filter(has_text="Endpoint re-enabled")).to_be_visible()
    expect(page.locator("#disabled-banner")).to_have_count(0)
    expect(page.locator(".state-line")).to_contain_text("Enabled")
    again = hooks.get(endpoint["id"])
    assert again["enabled"] is True
    assert again["disabledReason"] is None
    assert again["consecutiveDead"] == 0
    shot("re-enabled")


def test_delete_asks_for_confirmation(admin_visit: AdminVisit) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    endpoint = hooks.create(
        "http://127.0.0.1:9" + unique_path("delete-me"), workspaces=[workspace.id]
    )
    admin_in(page, credentials, f"/webhooks/{endpoint['id']}")

    page.get_by_role("button", name="Delete").click()
    dialog = page.get_by_role("dialog", name="Delete this endpoint?")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(endpoint["url"])
    shot("delete-confirm", full_page=False)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert hooks.client.get(f"/api/webhooks/{endpoint['id']}").status_code == 200

    page.get_by_role("button", name="Delete").click()
    dialog.get_by_role("button", name="Delete endpoint").click()
    expect(page).to_have_url("/webhooks?done=deleted")
    expect(page.get_by_role("status").filter(has_text="Endpoint deleted.")).to_be_visible()
    assert hooks.client.get(f"/api/webhooks/{endpoint['id']}").status_code == 404
    shot("deleted")


def test_the_editor_warns_before_saving_an_endpoint_that_receives_nothing(
    page: Page, credentials: dict[str, Any], hooks: Hooks, output_dir: Path, new_workspace: Any
) -> None:
    """No workspace and All workspaces off: the first press warns and saves nothing, the second
    saves as asked. The URL help says what the policy in force allows."""
    new_workspace()  # a second workspace, so that none is chosen for the administrator
    shot = Shots(page, output_dir)
    url = "https://93.184.215.14" + unique_path("receives-nothing")  # public, no DNS needed
    admin_in(page, credentials, "/webhooks/new")
    help_text = page.locator("#url-help")
    expect(help_text).to_contain_text("Must use https://")
    expect(help_text).to_contain_text("must resolve to a public address")
    expect(help_text).not_to_contain_text("WEBHOOKS_ALLOW")
    expect(page.locator('input[name="workspaces"]:checked')).to_have_count(0)
    page.get_by_label("Endpoint URL").fill(url)
    page.get_by_role("button", name="Create endpoint").click()
    notice = page.locator("#form-notice")
    expect(notice).to_contain_text("would receive nothing")
    expect(notice).to_have_class(re.compile(r"\bnotice-warn\b"))
    shot("warned")
    assert not [e for e in hooks.client.get("/api/webhooks").json()["items"] if e["url"] == url]
    page.get_by_role("button", name="Create endpoint").click()
    expect(page.get_by_label("Signing secret", exact=True)).to_have_value(SECRET)
    created = [e for e in hooks.client.get("/api/webhooks").json()["items"] if e["url"] == url]
    assert len(created) == 1
    hooks.created.append(created[0]["id"])
    assert created[0]["workspaces"] == []
    assert created[0]["allWorkspaces"] is False


def test_the_editor_help_follows_a_relaxed_policy(
    page: Page, credentials: dict[str, Any], local_receivers_allowed: None
) -> None:
    admin_in(page, credentials, "/webhooks/new")
    help_text = page.locator("#url-help")
    expect(help_text).to_contain_text("WEBHOOKS_ALLOW_INSECURE_URLS is on")
    expect(help_text).to_contain_text("WEBHOOKS_ALLOW_PRIVATE_NETWORKS is on")
    expect(help_text).not_to_contain_text("Must use https")
