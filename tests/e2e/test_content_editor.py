"""An editor at work in the content pages, in Debian's Chromium: a post with every field type
and a relation written, saved as a draft, published, edited while live (readers keep the
published version), published again, version 1 restored into the draft, an unpublish scheduled
and run by the scheduler's job, trashed and restored; the live version compared with the draft,
changes discarded, a schedule cancelled, versions paged; a conflicting save refused by the
version guard with both versions kept; the layout holding still on save; the keyboard reaching
everything (docs/admin-ui.md, "Content pages")."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from content_service.content.writes import run_due
from harness.webhooks import FakeClock
from tests.e2e.test_admin_access import tab_until
from tests.support.admin_pages import Shots
from tests.support.clients import WorkspaceAccess
from tests.support.content import create, publish
from tests.support.content_pages import blog_model, editor_in, in_ws

pytestmark = pytest.mark.browser

BIG = 9_007_199_254_740_993  # 2**53 + 1: a JavaScript number would round it


def api_entry(ws: WorkspaceAccess, entry_id: str, *, read: bool = False) -> Any:
    client = ws.read if read else ws.full
    return client.get(f"/api/v1/content/post/{entry_id}?expand=author,related")


def entry_id_of(page: Page) -> str:
    return page.url.split("/content/post/", 1)[1].split("?", 1)[0]


def test_an_editor_writes_publishes_edits_restores_schedules_and_trashes_a_post(
    page: Page, new_workspace: Any, output_dir: Path
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    blog_model(ws)
    ada = create(ws.full, "author", {"name": "Ada Lovelace"})
    publish(ws.full, "author", ada["id"])
    create(ws.full, "author", {"name": "Grace Hopper"})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    account = editor_in(page, ws)
    expect(page.get_by_role("heading", name="Content", exact=True)).to_be_visible()
    page.get_by_role("link", name="New entry of post").click()
    expect(page.get_by_role("heading", name="New post entry")).to_be_visible()
    expect(page.locator("#entry-state")).to_have_text("New")

    page.get_by_label("Title").fill("Hello, editors")
    page.get_by_label("Summary").fill("Two lines\nof summary")
    body = page.get_by_role("textbox", name="Body")
    body.click()
    page.keyboard.type("First ")
    page.keyboard.press("Control+b")
    page.keyboard.type("bold")
    page.keyboard.press("Control+b")
    page.keyboard.type(" words")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Bullets").click()
    page.keyboard.type("a point")
    page.get_by_label("Views").fill(str(BIG))
    page.get_by_label("Rating").fill("4.5")
    page.get_by_label("Featured").select_option("true")
    page.get_by_label("Published on").fill("2026-03-04T05:06:07")
    page.get_by_label("Day").fill("2026-03-04")
    page.get_by_label("Mood").select_option("happy")
    meta = page.get_by_label("Meta")
    meta.fill('{"tags": ["a", "b"],}')
    finder = page.get_by_label("Find the author entry to link")
    finder.fill("Ada")
    page.get_by_role("button", name="Link Ada Lovelace").click()
    expect(page.locator("#linked-author")).to_contain_text("Ada Lovelace")
    shot("filled")

    # JSON is checked before anything is sent, and the problem is said next to the field.
    page.get_by_role("button", name="Save draft").click()
    error = page.locator("#error-meta")
    expect(error).to_contain_text("This is not valid JSON")
    expect(meta).to_have_attribute("aria-invalid", "true")
    expect(meta).to_be_focused()
    assert ws.full.get("/api/v1/content/post").json()["total"] == 0
    meta.fill('{"tags": ["a", "b"], "n": 12345678901234567890}')
    expect(error).to_be_hidden()

    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#save-status")).to_have_text("Saved as a new draft.", timeout=20_000)
    expect(page.locator("#entry-state")).to_have_text("Draft")
    post_id = entry_id_of(page)
    saved = api_entry(ws, post_id).json()
    assert saved["status"] == "draft"
    assert saved["values"] == {
        "title": "Hello, editors",
        "summary": "Two lines\nof summary",
        "body": "<p>First <strong>bold</strong> words</p><ul><li>a point</li></ul>",
        "views": BIG,
        "rating": 4.5,
        "featured": True,
        "published_on": "2026-03-04T05:06:07.000Z",
        "day": "2026-03-04",
        "mood": "happy",
        "meta": {"tags": ["a", "b"], "n": 12345678901234567890},
    }
    assert [a["id"] for a in saved["relations"]["author"]] == [ada["id"]]
    assert api_entry(ws, post_id, read=True).status_code == 404
    expect(page.get_by_label("Views")).to_have_value(str(BIG))
    shot("saved")

    # The page holds still while saving: the fields and the actions do not move.
    title = page.get_by_label("Title")
    before = (title.bounding_box(), page.locator("#entry-actions").bounding_box())
    title.fill("Hello, editors!")
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#save-status")).to_contain_text("Saved at")
    assert (title.bounding_box(), page.locator("#entry-actions").bounding_box()) == before
    expect(page.locator("#entry-dirty")).to_be_hidden()
    expect(page.get_by_role("heading", name="Hello, editors!")).to_be_visible()

    state = page.locator("#entry-state")
    versions = page.locator("#versions-list > li")
    expect(versions).to_have_count(0)
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(state).to_have_text("Published")
    expect(page.locator("#save-status")).to_contain_text("Published at")
    live = api_entry(ws, post_id, read=True)
    assert live.status_code == 200
    assert live.json()["values"]["title"] == "Hello, editors!"
    expect(page.get_by_role("button", name="Unpublish")).to_be_visible()
    expect(page.get_by_role("button", name="Publish", exact=True)).to_be_hidden()
    expect(versions).to_have_count(1)
    expect(versions.first).to_contain_text("Version 1")
    shot("published")

    # Editing the live post writes a draft beside it: a read token keeps getting the published
    # version until the post is published again.
    page.get_by_role("button", name="Remove Ada Lovelace").click()
    page.get_by_label("Find the author entry to link").fill("Grace")
    page.get_by_role("button", name="Link Grace Hopper").click()
    post_searches: list[str] = []
    page.on(
        "request",
        lambda r: post_searches.append(r.url) if "/api/v1/content/post?" in r.url else None,
    )
    page.get_by_label("Find post entries to link").fill("Hello")
    page.get_by_role("button", name="Link Hello, editors!").click()
    page.get_by_label("Title").fill("Hello again")
    expect(page.locator("#entry-dirty")).to_be_visible()
    # The state changes on this save (and Discard changes appears): still nothing moves.
    cards = page.locator("#entry-actions, #preview-card, #versions-card, #entry-fields")
    boxes = [cards.nth(n).bounding_box() for n in range(4)]
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#save-status")).to_contain_text("Saved at")
    expect(state).to_have_text("Changed")
    assert [cards.nth(n).bounding_box() for n in range(4)] == boxes
    expect(page.locator("#entry-changed")).to_contain_text(f"by {account.email}")
    # The post picker searched on its first focus and for "Hello"; linking its last result
    # took the focus back without searching again.
    assert len(post_searches) == 2, post_searches
    expect(page.get_by_role("button", name="Discard changes")).to_be_visible()
    delivered = api_entry(ws, post_id, read=True).json()
    assert (delivered["status"], delivered["values"]["title"]) == ("published", "Hello, editors!")
    assert [a["id"] for a in delivered["relations"]["author"]] == [ada["id"]]
    assert api_entry(ws, post_id).json()["status"] == "changed"
    shot("changed")
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(state).to_have_text("Published")
    expect(versions).to_have_count(2)
    assert api_entry(ws, post_id, read=True).json()["values"]["title"] == "Hello again"
    again = api_entry(ws, post_id).json()
    assert [a["values"]["name"] for a in again["relations"]["author"]] == ["Grace Hopper"]
    assert [r["id"] for r in again["relations"]["related"]] == [post_id]

    # Version 1, opened read-only, restored into the draft: what is live does not change.
    page.get_by_role("button", name="Open version 1").click()
    version = page.get_by_role("dialog", name="Version 1")
    expect(version).to_contain_text("Hello, editors!")
    expect(version).to_contain_text(str(BIG))  # exact, not rounded by JavaScript
    expect(version.locator(".ro-rich strong")).to_have_text("bold")
    shot("version-1")
    version.get_by_role("button", name="Restore into the draft…").click()
    confirm = page.get_by_role("dialog", name="Restore version 1 into the draft?")
    expect(confirm.get_by_role("button", name="Cancel")).to_be_focused()
    confirm.get_by_role("button", name="Restore", exact=True).click()
    expect(page.locator("#save-status")).to_contain_text("Version restored into the draft")
    expect(state).to_have_text("Changed")
    expect(page.get_by_label("Title")).to_have_value("Hello, editors!")
    expect(page.locator("#linked-author")).to_contain_text("Ada Lovelace")
    draft = api_entry(ws, post_id).json()
    assert (draft["status"], draft["values"]["title"]) == ("changed", "Hello, editors!")
    assert [a["id"] for a in draft["relations"]["author"]] == [ada["id"]]
    assert draft["values"]["views"] == BIG
    assert api_entry(ws, post_id, read=True).json()["values"]["title"] == "Hello again"

    # An unpublish scheduled an hour ahead, run by the scheduler's own job with its clock moved
    # past that hour.
    clock = FakeClock()
    page.get_by_role("button", name="Schedule…").click()
    dialog = page.get_by_role("dialog", name="Schedule")
    expect(dialog.get_by_label("Action")).to_have_value("unpublish")
    dialog.get_by_label("Date and time (UTC)").fill(
        time.strftime("%Y-%m-%dT%H:%M", time.gmtime(clock.now() + 3600))
    )
    dialog.get_by_role("button", name="Schedule", exact=True).click()
    expect(dialog).to_be_hidden()
    planned = page.locator("#schedules-list > li")
    expect(planned).to_have_count(1)
    expect(planned).to_contain_text("Unpublish at")
    expect(planned).to_contain_text("Scheduled")
    expect(planned).to_contain_text(f"By {account.email}")
    shot("scheduled")
    clock.advance(3600 + 60)
    assert run_due(lambda: False, clock).done >= 1
    assert api_entry(ws, post_id, read=True).status_code == 404
    page.reload()
    expect(state).to_have_text("Draft")
    expect(planned).to_contain_text("Done")
    expect(page.get_by_role("button", name="Unpublish")).to_be_hidden()

    page.get_by_role("button", name="Move to trash").click()
    dialog = page.get_by_role("dialog", name="Move this entry to the trash?")
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()
    dialog.get_by_role("button", name="Move to trash").click()
    expect(state).to_have_text("In the trash")
    restore = page.get_by_role("button", name="Restore")
    expect(restore).to_be_focused()
    expect(page.get_by_label("Title")).to_be_disabled()
    assert api_entry(ws, post_id).status_code == 404
    shot("trashed")
    restore.click()
    expect(state).to_have_text("Draft")
    expect(page.get_by_label("Title")).to_be_enabled()
    restored = api_entry(ws, post_id).json()
    assert (restored["status"], restored["values"]["title"]) == ("draft", "Hello, editors!")
    assert restored["values"]["views"] == BIG

    # The list shows it, newest first, with its state.
    page.goto(in_ws(ws, "/content/post"))
    row = page.locator(".entry-row", has_text="Hello, editors!")
    expect(row).to_contain_text("Draft")
    shot("list")
    assert not errors, errors


def test_a_conflicting_save_is_refused_and_both_versions_are_kept(
    page: Page, new_workspace: Any, output_dir: Path
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    blog_model(ws)
    post = create(ws.full, "post", {"title": "Original", "summary": "shared"})
    editor_in(page, ws, f"/content/post/{post['id']}")
    expect(page.get_by_label("Title")).to_have_value("Original")
    # Someone else saves first, through the API.
    theirs = ws.full.patch(
        f"/api/v1/content/post/{post['id']}", json={"values": {"title": "Theirs"}}
    )
    assert theirs.status_code == 200
    page.get_by_label("Title").fill("Mine")
    # The page sends the version it was opened at; the API refuses it (no read first).
    with page.expect_response(lambda r: r.request.method == "PATCH") as answered:
        page.get_by_role("button", name="Save draft").click()
    refused = answered.value
    assert refused.status == 409
    assert refused.json()["error"]["code"] == "version_conflict"
    assert refused.request.post_data_json == {
        "values": {"title": "Mine"},
        "relations": {},
        "version": post["version"],
    }
    assert theirs.json()["version"] > post["version"]
    conflict = page.get_by_role("alert").filter(
        has_text="Not saved: someone else changed this entry"
    )
    expect(conflict).to_be_visible()
    expect(conflict).to_be_focused()
    expect(page.locator("#conflict-text")).to_contain_text("It was saved at")
    expect(page.locator("#conflict-text")).to_contain_text("by an API token")
    expect(page.locator("#conflict-text")).to_contain_text(
        f"you edited version {post['version']}, the saved one is version {theirs.json()['version']}"
    )
    shot("conflict")
    # Neither version is lost: theirs is saved, mine is still in the form.
    assert ws.full.get(f"/api/v1/content/post/{post['id']}").json()["values"]["title"] == "Theirs"
    expect(page.get_by_label("Title")).to_have_value("Mine")
    expect(page.locator("#entry-dirty")).to_be_visible()
    # Saving again is refused the same way until the page is reloaded.
    page.get_by_role("button", name="Save draft").click()
    assert ws.full.get(f"/api/v1/content/post/{post['id']}").json()["values"]["title"] == "Theirs"
    with page.context.expect_page() as opened:
        page.get_by_role("link", name="Open the saved version in a new tab").click()
    other = opened.value
    expect(other.get_by_label("Title")).to_have_value("Theirs")
    other.close()
    page.get_by_role("button", name="Reload with the saved version…").click()
    page.get_by_role("dialog", name="Reload with the saved version?").get_by_role(
        "button", name="Reload"
    ).click()
    expect(page.get_by_label("Title")).to_have_value("Theirs")
    expect(page.locator("#conflict")).to_be_hidden()
    page.get_by_label("Title").fill("Mine, on top of theirs")
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#save-status")).to_contain_text("Saved at")
    assert (
        ws.full.get(f"/api/v1/content/post/{post['id']}").json()["values"]["title"]
        == "Mine, on top of theirs"
    )


def test_an_editor_compares_the_draft_with_live_discards_it_and_cancels_a_schedule(
    page: Page, new_workspace: Any, output_dir: Path
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    blog_model(ws)
    post = create(ws.full, "post", {"title": "Live title", "summary": "same", "views": BIG})
    url = f"/api/v1/content/post/{post['id']}"
    for n in range(2, 8):  # seven published versions: the list pages five at a time
        publish(ws.full, "post", post["id"])
        assert ws.full.patch(url, json={"values": {"title": f"Title {n}"}}).status_code == 200
    publish(ws.full, "post", post["id"])
    edited = ws.full.patch(url, json={"values": {"title": "Draft title", "meta": {"a": 1}}})
    assert edited.json()["status"] == "changed"
    editor_in(page, ws, f"/content/post/{post['id']}")
    state = page.locator("#entry-state")
    expect(state).to_have_text("Changed")
    expect(page.locator("#entry-changed")).to_contain_text("by an API token")
    expect(page.locator("#preview-summary")).to_contain_text("Readers get version 7")

    # The live version beside the draft, the fields that differ said in words.
    page.get_by_role("button", name="Compare draft and live").click()
    panel = page.get_by_role("region", name="Live and draft")
    expect(panel).to_be_focused()
    note = page.locator("#preview-note")
    expect(note).to_have_text(
        "2 fields differ between the live version 7 and the draft: Title, Meta."
    )
    differs = panel.locator("tr.differs")
    expect(differs).to_have_count(2)
    title_row = panel.locator("tr", has=page.get_by_role("rowheader", name="Title Differs"))
    expect(title_row.locator("td").nth(0)).to_have_text("Title 7")
    expect(title_row.locator("td").nth(1)).to_have_text("Draft title")
    views_row = panel.locator("tr", has=page.get_by_role("rowheader", name="Views", exact=True))
    expect(views_row.locator("td")).to_have_text([str(BIG), str(BIG)])
    shot("compared")
    # The comparison follows a save.
    page.get_by_role("textbox", name="Title").fill("Title 7")
    page.get_by_role("button", name="Save draft").click()
    expect(note).to_have_text("1 field differs between the live version 7 and the draft: Meta.")

    # Versions, newest first, five a page.
    versions = page.locator("#versions-list > li")
    expect(versions).to_have_count(5)
    expect(versions.first).to_contain_text("Version 7")
    expect(versions.first).to_contain_text("Live")
    page.get_by_role("button", name="Older versions").click()
    expect(versions).to_have_count(2)
    expect(versions.last).to_contain_text("Version 1")
    expect(page.locator("#versions-status")).to_contain_text("7 published versions")
    page.get_by_role("button", name="Newer versions").click()
    expect(versions.first).to_contain_text("Version 7")

    # A schedule made, refused in the past, then cancelled: it never runs.
    page.get_by_role("button", name="Schedule…").click()
    dialog = page.get_by_role("dialog", name="Schedule")
    at = dialog.get_by_label("Date and time (UTC)")
    at.fill("2020-01-01T10:00")
    dialog.get_by_role("button", name="Schedule", exact=True).click()
    expect(dialog.locator("#schedule-error")).to_contain_text("The time is in the past")
    expect(at).to_have_attribute("aria-invalid", "true")
    at.fill(time.strftime("%Y-%m-%dT%H:%M", time.gmtime(time.time() + 2 * 86400)))
    dialog.get_by_label("Action").select_option("publish")
    dialog.get_by_role("button", name="Schedule", exact=True).click()
    planned = page.locator("#schedules-list > li")
    expect(planned).to_contain_text("Publish at")
    page.get_by_role("button", name="Cancel the publish at").click()
    expect(planned).to_contain_text("Cancelled")
    expect(page.get_by_role("button", name="Cancel the publish at")).to_have_count(0)
    (listed,) = ws.full.get(f"{url}/schedules").json()["items"]
    assert listed["status"] == "cancelled"

    # Discard changes: the draft is the live version again.
    page.get_by_role("button", name="Discard changes").click()
    discard = page.get_by_role("dialog", name="Discard the changes?")
    expect(discard.get_by_role("button", name="Cancel")).to_be_focused()
    discard.get_by_role("button", name="Discard changes").click()
    expect(page.locator("#save-status")).to_have_text(
        "Changes discarded: the draft is the live version again."
    )
    expect(state).to_have_text("Published")
    expect(page.get_by_label("Meta")).to_have_value("")
    expect(page.get_by_role("button", name="Discard changes")).to_be_hidden()
    assert ws.full.get(url).json()["status"] == "published"
    page.get_by_role("button", name="Compare draft and live").click()
    expect(note).to_have_text("The draft is the live version 7: no field differs.")

    page.get_by_role("button", name="Unpublish").click()
    expect(state).to_have_text("Draft")
    expect(page.locator("#preview-summary")).to_have_text(
        "Not published: readers get nothing from this entry."
    )
    expect(note).to_contain_text("Not published")
    assert ws.read.get(url).status_code == 404
    shot("unpublished")


def test_an_editor_translates_a_post_and_switches_locales(
    page: Page, new_workspace: Any, output_dir: Path
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    blog_model(ws, localized=True)
    source = create(ws.full, "post", {"title": "Hello", "summary": "in English"})
    editor_in(page, ws, f"/content/post/{source['id']}")
    locales = page.get_by_role("complementary").locator("#locales")
    expect(locales).to_contain_text("en (this entry)")
    page.get_by_label("Translate into").fill("de")
    page.get_by_role("button", name="Create translation").click()
    expect(page.get_by_role("heading", name="New post entry")).to_be_visible()
    expect(page.locator("#entry-locale")).to_have_text("de")
    expect(page.get_by_label("Summary")).to_have_value("in English")  # a copy to start from
    page.get_by_label("Title").fill("Hallo")
    page.get_by_label("Summary").fill("auf Deutsch")
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#save-status")).to_have_text("Saved as a new draft.", timeout=20_000)
    shot("translated")
    expect(locales).to_contain_text("de (this entry)")
    page.get_by_role("link", name="en", exact=True).click()
    expect(page.get_by_label("Title")).to_have_value("Hello")
    german = ws.full.get("/api/v1/content/post?locale=de").json()["items"]
    assert [(g["values"]["title"], g["localeGroupId"]) for g in german] == [("Hallo", source["id"])]
    page.goto(in_ws(ws, "/content/post"))
    page.get_by_label("Locale").select_option("de")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.locator(".entry-row")).to_have_count(1)
    expect(page.locator(".entry-row")).to_contain_text("Hallo")


def test_the_editor_is_usable_from_the_keyboard(page: Page, new_workspace: Any) -> None:
    ws = new_workspace()
    blog_model(ws)
    editor_in(page, ws, "/content/post/new")
    expect(page.get_by_role("button", name="Save draft")).to_be_enabled()
    page.get_by_label("Title").focus()
    page.keyboard.type("Typed at the keyboard")
    passed = tab_until(page, "Bold")
    assert [p["name"] for p in passed] == ["Summary", "Bold"], passed
    # The rich text toolbar is one stop, its controls reached with the arrow keys.
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("button", name="Italic")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("textbox", name="Body")).to_be_focused()
    page.keyboard.type("Body text")
    # Tab leaves the rich text editor: the keyboard is never trapped in it.
    page.keyboard.press("Tab")
    expect(page.get_by_label("Views")).to_be_focused()
    tab_until(page, "Save draft", limit=40)
    page.keyboard.press("Enter")
    expect(page.locator("#save-status")).to_have_text("Saved as a new draft.", timeout=20_000)
    assert ws.full.get("/api/v1/content/post").json()["items"][0]["values"]["body"] == (
        "<p>Body text</p>"
    )
