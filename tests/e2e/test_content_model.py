"""The content model pages in Debian's Chromium: an administrator creates a type, adds, changes
and removes fields with the API's own refusals shown next to the field, and deletes the type;
an editor is refused the pages and sees no link to them (docs/admin-ui.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.admin_pages import Shots, admin_in
from tests.support.content import create
from tests.support.content_pages import editor_in, in_ws

pytestmark = pytest.mark.browser


def test_an_administrator_builds_a_type_and_an_editor_cannot(
    page: Page,
    new_workspace: Any,
    credentials: dict[str, Any],
    output_dir: Path,
    browser: Any,
    base_url: str,
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    admin_in(page, credentials, in_ws(ws, "/content-types"))
    expect(page.get_by_role("heading", name="Content model")).to_be_visible()

    name = page.get_by_label("Name")
    name.fill("Recipe!")
    page.get_by_role("button", name="Create content type").click()
    expect(page.locator("#type-name-error")).to_contain_text("snake_case")
    expect(name).to_have_attribute("aria-invalid", "true")
    name.fill("recipe")
    page.get_by_label("Localized").check()
    page.get_by_role("button", name="Create content type").click()
    expect(page.get_by_role("heading", name="recipe", exact=True)).to_be_visible(timeout=20_000)
    expect(page.get_by_role("status").filter(has_text="Content type created")).to_be_visible()

    def add_field(field: str, kind: str, **more: Any) -> None:
        page.get_by_role("button", name="Add a field").click()
        dialog = page.get_by_role("dialog", name="Add a field")
        expect(dialog.get_by_label("Name")).to_be_focused()
        dialog.get_by_label("Name").fill(field)
        dialog.get_by_label("Type").select_option(kind)
        if "values" in more:
            dialog.get_by_label("Values").fill(more["values"])
        if "target" in more:
            dialog.get_by_label("Links to").select_option(more["target"])
            dialog.get_by_label("Cardinality").select_option(more["cardinality"])
        if more.get("required"):
            dialog.get_by_label("Required").check()
        dialog.get_by_role("button", name="Add field").click()

    add_field("title", "string", required=True)
    expect(page.locator("tr[data-field='title']")).to_be_visible(timeout=20_000)
    add_field("course", "enum", values="starter\nmain course")
    error = page.locator("#field-values-error")
    expect(error).to_contain_text("Values must match")
    expect(page.get_by_label("Values")).to_have_attribute("aria-invalid", "true")
    shot("refused-enum")
    page.get_by_label("Values").fill("starter\nmain\ndessert")
    page.get_by_role("button", name="Add field").click()
    expect(page.locator("tr[data-field='course']")).to_contain_text(
        "starter, main, dessert", timeout=20_000
    )
    add_field("minutes", "integer")
    expect(page.locator("tr[data-field='minutes']")).to_be_visible(timeout=20_000)
    add_field("variant_of", "relation", target="recipe", cardinality="many-to-one")
    expect(page.locator("tr[data-field='variant_of']")).to_contain_text(
        "many-to-one", timeout=20_000
    )
    described = ws.full.get("/api/v1/content-types/recipe").json()
    assert [(f["name"], f["type"], f["required"]) for f in described["fields"]] == [
        ("title", "string", True),
        ("course", "enum", False),
        ("minutes", "integer", False),
        ("variant_of", "relation", False),
    ]
    assert described["titleField"] == "title"
    assert described["localized"] is True

    # Change: required on, the type itself fixed.
    page.get_by_role("button", name="Change minutes").click()
    dialog = page.get_by_role("dialog", name="Change the field minutes")
    expect(dialog.get_by_label("Type")).to_be_disabled()
    dialog.get_by_label("Required").check()
    dialog.get_by_role("button", name="Save field").click()
    expect(page.locator("tr[data-field='minutes']")).to_contain_text("Yes", timeout=20_000)
    # Remove, after confirming.
    page.get_by_role("button", name="Remove course").click()
    page.get_by_role("dialog", name="Remove the field?").get_by_role(
        "button", name="Remove field"
    ).click()
    expect(page.locator("tr[data-field='course']")).to_have_count(0, timeout=20_000)
    shot("fields")

    # The API's refusal of a delete while entries exist is shown in its words.
    entry = create(ws.full, "recipe", {"title": "Soup", "minutes": 20})
    page.get_by_role("button", name="Delete recipe…").click()
    page.get_by_role("dialog", name="Delete recipe?").get_by_role(
        "button", name="Delete content type"
    ).click()
    expect(page.locator("#form-alert")).to_contain_text("entries")
    assert ws.full.delete(f"/api/v1/content/recipe/{entry['id']}").status_code == 204
    assert ws.full.delete(f"/api/v1/content/recipe/{entry['id']}/purge").status_code == 204
    page.get_by_role("button", name="Delete recipe…").click()
    page.get_by_role("dialog", name="Delete recipe?").get_by_role(
        "button", name="Delete content type"
    ).click()
    expect(page.get_by_role("status").filter(has_text="Content type deleted")).to_be_visible(
        timeout=20_000
    )
    assert ws.full.get("/api/v1/content-types/recipe").status_code == 404

    # An editor: no link to the model or the webhooks, and a 403 page on both.
    context = browser.new_context(base_url=base_url)
    other = context.new_page()
    try:
        editor_in(other, ws)
        nav = other.get_by_role("navigation", name="Main")
        expect(nav.get_by_role("link", name="Content", exact=True)).to_be_visible()
        expect(nav.get_by_role("link", name="Content model")).to_have_count(0)
        expect(nav.get_by_role("link", name="Webhooks")).to_have_count(0)
        for path in ("/content-types", "/webhooks"):
            answer = other.goto(in_ws(ws, path))
            assert answer is not None
            assert answer.status == 403, path
            expect(other.get_by_role("heading", name="You need the admin role")).to_be_visible()
        other.goto("/")
        expect(other.get_by_role("link", name="Content", exact=True).first).to_be_visible()
        expect(other.get_by_role("link", name="Webhooks")).to_have_count(0)
    finally:
        context.close()
