"""The audit log page in Debian's Chromium: an administrator sees a token's changes to an entry,
newest first with who, target, time, request id, source address and the changed values, then
narrows them by action, by target, by time, and pages to older records (docs/admin-ui.md, "The
audit page")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.admin_pages import Shots, admin_in, no_horizontal_scroll
from tests.support.axe import assert_no_violations
from tests.support.content import create, define
from tests.support.content_pages import in_ws

pytestmark = pytest.mark.browser

OLDER_RECORDS = 26
"""More than one page (25) of records besides the two the test reads."""


def test_the_audit_page_lists_a_change_and_filters(
    page: Page, new_workspace: Any, credentials: dict[str, Any], output_dir: Path
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    define(ws.full, "article", [{"name": "title", "type": "string", "required": True}])
    for number in range(OLDER_RECORDS):
        create(ws.full, "article", {"title": f"Filler {number}"})
    entry = create(ws.full, "article", {"title": "First title"})
    changed = ws.full.patch(
        f"/api/v1/content/article/{entry['id']}",
        json={"values": {"title": "Second title"}},
        headers={"X-Correlation-Id": "audit-page-test-1"},
    )
    assert changed.status_code == 200, changed.text

    admin_in(page, credentials, in_ws(ws, "/audit"))
    expect(page.get_by_role("heading", name="Audit log")).to_be_visible()
    records = page.locator(".audit-record")
    newest = records.first
    expect(newest.locator(".audit-action")).to_have_text("entry.updated")
    expect(newest.locator(".audit-who")).to_have_text("token full")
    expect(newest.locator(".audit-target")).to_contain_text(f"entry {entry['id']} (article)")
    expect(newest.locator(".audit-request")).to_have_text("audit-page-test-1")
    expect(newest.locator(".audit-source")).to_have_text("127.0.0.1")
    expect(newest.locator(".audit-changes")).to_contain_text("title")
    expect(newest.locator(".audit-changes")).to_contain_text("Second title")
    expect(records).to_have_count(25)
    shot("newest")
    assert_no_violations(page, "the audit page")
    with shot.phone():
        assert no_horizontal_scroll(page)
        shot("phone")

    # Older records: the cursor's next page, then back to the newest.
    model_change = page.locator(".audit-action", has_text="contentType.created")
    expect(model_change).to_have_count(0)
    page.get_by_role("link", name="Older records").click()
    expect(model_change).to_have_count(1)
    expect(records.last.locator(".audit-action")).to_have_text("token.created")
    page.get_by_role("link", name="Newest records").click()
    expect(records.first.locator(".audit-action")).to_have_text("entry.updated")

    # By action.
    page.get_by_label("Action").fill("entry.created")
    page.get_by_role("button", name="Apply filters").click()
    expect(records).to_have_count(25)
    expect(records.first.locator(".audit-action")).to_have_text("entry.created")
    expect(records.first.locator(".audit-changes")).to_contain_text("First title")
    expect(page.locator(".audit-action", has_text="entry.updated")).to_have_count(0)
    shot("by-action")

    # By target: the entry's own link shows its two records alone.
    page.get_by_role("link", name="Clear").click()
    records.first.locator(".audit-target a").first.click()
    expect(page.get_by_label("Target")).to_have_value(f"entry:{entry['id']}")
    expect(records).to_have_count(2)
    expect(records.nth(0).locator(".audit-action")).to_have_text("entry.updated")
    expect(records.nth(1).locator(".audit-action")).to_have_text("entry.created")

    # By time: nothing changed after a moment in the future.
    page.get_by_label("Since (UTC)").fill("2999-01-01T00:00")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_text("No record matches these filters.")).to_be_visible()

    # A filter the log cannot read is refused in words, not with a broken page.
    page.get_by_label("Since (UTC)").fill("")
    page.get_by_label("Actor").fill("nobody-here@example.com")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_role("alert")).to_contain_text("no user has the e-mail")
    assert_no_violations(page, "the audit page with a refused filter")
    shot("refused-filter")
