"""axe-core on every content and content-model page, in Chromium: zero violations in the states
a person sees (rows listed, every field type, a relation searched, the link dialog, a refused
save, a conflict, a changed entry with its versions, the live version beside the draft, a
version opened, the restore, discard and schedule dialogs, schedules listed, the trash, the
field dialog, the 403 and 404 pages), at laptop and phone width; and the pages never scroll
sideways on a phone."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.admin_pages import Shots, admin_in, no_horizontal_scroll
from tests.support.axe import assert_no_violations
from tests.support.content import create, publish
from tests.support.content_pages import blog_model, editor_in, in_ws

pytestmark = pytest.mark.browser


def test_every_content_page_has_no_axe_violation(
    page: Page, new_workspace: Any, credentials: dict[str, Any], output_dir: Path
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    blog_model(ws, localized=True)
    ada = create(ws.full, "author", {"name": "Ada Lovelace"})
    post = create(
        ws.full,
        "post",
        {"title": "Hello", "body": "<h2>Head</h2><p>A <a href='https://example.com'>link</a></p>"},
        relations={"author": {"link": [ada["id"]]}},
    )
    publish(ws.full, "post", post["id"])
    create(ws.full, "post", {"title": "Hallo"}, locale="de", localeGroupId=post["id"])
    create(ws.full, "post", {"title": "Second"})

    editor_in(page, ws)
    assert_no_violations(page, "the content overview")
    page.goto(in_ws(ws, "/content/post"))
    assert_no_violations(page, "the entry list")
    page.goto(in_ws(ws, "/content/post?state=draft&q=nothing-matches"))
    assert_no_violations(page, "an empty filtered list")
    page.goto(in_ws(ws, "/content/post/new"))
    expect(page.get_by_role("button", name="Save draft")).to_be_enabled()
    assert_no_violations(page, "a new entry")
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#error-title")).to_be_visible()
    assert_no_violations(page, "a refused save")

    page.goto(in_ws(ws, f"/content/post/{post['id']}"))
    expect(page.get_by_role("button", name="Unpublish")).to_be_enabled()
    assert_no_violations(page, "a published entry")
    page.get_by_label("Find the author entry to link").fill("Ada")
    page.get_by_label("Find post entries to link").fill("e")
    expect(page.locator("#results-related li").first).to_be_visible()
    assert_no_violations(page, "relation search results")
    page.get_by_role("textbox", name="Body").click()
    page.get_by_role("button", name="Link", exact=True).click()
    expect(page.get_by_role("dialog", name="Link")).to_be_visible()
    assert_no_violations(page, "the link dialog")
    page.get_by_role("dialog", name="Link").get_by_role("button", name="Cancel").click()
    ws.full.patch(f"/api/v1/content/post/{post['id']}", json={"values": {"summary": "theirs"}})
    page.get_by_label("Title").fill("Mine")
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#conflict")).to_be_visible()
    assert_no_violations(page, "a conflict")
    shot("conflict")
    page.goto(in_ws(ws, f"/content/post/{post['id']}"))
    expect(page.locator("#versions-list > li")).to_have_count(1)
    expect(page.locator("#entry-state")).to_have_text("Changed")
    assert_no_violations(page, "a changed entry with its versions")
    page.get_by_role("button", name="Compare draft and live").click()
    expect(page.locator("#preview-rows tr.differs")).to_have_count(1)
    assert_no_violations(page, "the live version beside the draft")
    shot("compared")
    page.get_by_role("button", name="Open version 1").click()
    version = page.get_by_role("dialog", name="Version 1")
    expect(version.locator(".ro-rich h2")).to_have_text("Head")
    assert_no_violations(page, "a published version, read only")
    version.get_by_role("button", name="Restore into the draft…").click()
    expect(page.get_by_role("dialog", name="Restore version 1 into the draft?")).to_be_visible()
    assert_no_violations(page, "the restore confirmation")
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    page.get_by_role("button", name="Discard changes").click()
    assert_no_violations(page, "the discard confirmation")
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    page.get_by_role("button", name="Schedule…").click()
    schedule = page.get_by_role("dialog", name="Schedule")
    schedule.get_by_label("Date and time (UTC)").fill("2020-01-01T10:00")
    schedule.get_by_role("button", name="Schedule", exact=True).click()
    expect(schedule.locator("#schedule-error")).to_be_visible()
    assert_no_violations(page, "the schedule dialog with a refused time")
    later = time.strftime("%Y-%m-%dT%H:%M", time.gmtime(time.time() + 30 * 86400))
    for action in ("publish", "unpublish"):
        if not schedule.is_visible():
            page.get_by_role("button", name="Schedule…").click()
        schedule.get_by_label("Action").select_option(action)
        schedule.get_by_label("Date and time (UTC)").fill(later)
        schedule.get_by_role("button", name="Schedule", exact=True).click()
        expect(schedule).to_be_hidden()
    page.get_by_role("button", name="Cancel the publish at").click()
    expect(page.locator("#schedules-list")).to_contain_text("Cancelled")
    assert_no_violations(page, "a pending and a cancelled schedule")
    page.get_by_role("button", name="Cancel the unpublish at").click()
    expect(page.get_by_role("button", name="Cancel the unpublish at")).to_have_count(0)
    with shot.phone():
        expect(page.locator("#preview")).to_be_visible()  # still open from above
        assert_no_violations(page, "the comparison at phone width")
        assert no_horizontal_scroll(page)
        shot("compared-phone")
    page.get_by_role("button", name="Move to trash").click()
    assert_no_violations(page, "the trash dialog")
    page.get_by_role("dialog").get_by_role("button", name="Move to trash").click()
    expect(page.get_by_role("button", name="Restore")).to_be_visible()
    assert_no_violations(page, "an entry in the trash")
    page.get_by_role("button", name="Restore").click()
    expect(page.locator("#entry-state")).not_to_have_text("In the trash")

    with shot.phone():
        for path in ("/content", "/content/post", f"/content/post/{post['id']}"):
            page.goto(in_ws(ws, path))
            page.wait_for_load_state("load")
            assert_no_violations(page, f"{path} at phone width")
            assert no_horizontal_scroll(page), path
        shot("editor-phone")
    page.goto(in_ws(ws, "/content-types"))
    assert_no_violations(page, "the 403 page of the model for an editor")
    page.goto(in_ws(ws, "/content/post/00000000-0000-4000-8000-000000000000"))
    assert_no_violations(page, "the 404 page of an entry")

    page.get_by_role("button", name="Sign out").click()
    admin_in(page, credentials, in_ws(ws, "/content-types"))
    assert_no_violations(page, "the content model")
    page.goto(in_ws(ws, "/content-types/post"))
    expect(page.get_by_role("button", name="Add a field")).to_be_enabled()
    assert_no_violations(page, "a content type")
    page.get_by_role("button", name="Add a field").click()
    page.get_by_role("dialog").get_by_label("Type").select_option("relation")
    assert_no_violations(page, "the field dialog")
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    page.get_by_role("button", name="Remove summary").click()
    assert_no_violations(page, "the remove dialog")
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    with shot.phone():
        for path in ("/content-types", "/content-types/post"):
            page.goto(in_ws(ws, path))
            page.wait_for_load_state("load")
            assert_no_violations(page, f"{path} at phone width")
            assert no_horizontal_scroll(page), path
