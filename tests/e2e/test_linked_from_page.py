"""An entry's page lists the entries that link it, and trashing an entry that published
entries link asks again, naming them, before it goes with `force=true`; in Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.admin_pages import Shots
from tests.support.axe import assert_no_violations
from tests.support.content import create, publish
from tests.support.content_pages import blog_model, editor_in, in_ws

pytestmark = pytest.mark.browser


def test_linked_from_lists_linkers_and_trashing_a_linked_entry_asks_again(
    page: Page, new_workspace: Any, output_dir: Path
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    blog_model(ws)
    ada = create(ws.full, "author", {"name": "Ada Lovelace"})["id"]
    publish(ws.full, "author", ada)
    live = create(ws.full, "post", {"title": "Live post"}, relations={"author": {"link": [ada]}})
    publish(ws.full, "post", live["id"])
    create(ws.full, "post", {"title": "Draft post"}, relations={"author": {"link": [ada]}})
    lonely = create(ws.full, "author", {"name": "Grace Hopper"})["id"]

    editor_in(page, ws, f"/content/author/{lonely}")
    expect(page.locator("#linked-from-none")).to_have_text("No entry links this one.")

    page.goto(in_ws(ws, f"/content/author/{ada}"))
    linkers = page.locator("#linked-from-list > li")
    expect(linkers).to_have_count(2)
    expect(linkers.filter(has_text="Live post")).to_contain_text("post · author · Published")
    expect(linkers.filter(has_text="Draft post")).to_contain_text("Draft")
    assert_no_violations(page, "an entry's linked-from card")
    shot("linked-from")

    page.get_by_role("button", name="Move to trash").click()
    page.get_by_role("dialog", name="Move this entry to the trash?").get_by_role(
        "button", name="Move to trash"
    ).click()
    again = page.get_by_role("dialog", name="Published entries link this entry")
    expect(again).to_be_visible()
    expect(again.locator("#trash-linked-message")).to_have_text("1 published entry links this one:")
    expect(again.locator("#trash-linked-list > li")).to_have_count(1)
    expect(again.get_by_role("link", name="Live post")).to_be_visible()
    assert_no_violations(page, "the linked-trash confirmation")
    shot("trash-linked")
    again.get_by_role("button", name="Cancel").click()
    expect(again).to_be_hidden()
    assert ws.full.get(f"/api/v1/content/author/{ada}").status_code == 200

    page.get_by_role("button", name="Move to trash").click()
    page.get_by_role("dialog", name="Move this entry to the trash?").get_by_role(
        "button", name="Move to trash"
    ).click()
    again.get_by_role("button", name="Move to trash anyway").click()
    expect(page.locator("#entry-state")).to_have_text("In the trash")
    assert ws.full.get(f"/api/v1/content/author/{ada}").status_code == 404
