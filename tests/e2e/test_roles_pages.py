"""Roles in Debian's Chromium (docs/admin-ui.md, "The users and roles pages"): an administrator
makes a Translator for `de` on the users page; the translator edits a German entry, is offered
no Publish (and the API refuses it), cannot change the English entry (the page locks it and the
API refuses it); the administrator's audit page shows the update and the refusals. And a custom
role made with the rules editor, listed with its rules, then deleted."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.admin_pages import Shots, admin_in, signed_in
from tests.support.axe import assert_no_violations
from tests.support.content import create, define
from tests.support.content_pages import in_ws

pytestmark = pytest.mark.browser

PASSWORD = "translator-password-1"


def _localized_posts(ws: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A localized `post` type with an English entry and its German translation."""
    define(
        ws.full,
        "post",
        [{"name": "title", "type": "string", "required": True}, {"name": "body", "type": "text"}],
        titleField="title",
        localized=True,
    )
    english = create(ws.full, "post", {"title": "Hello", "body": "English text"}, locale="en")
    german = create(
        ws.full,
        "post",
        {"title": "Hallo", "body": "Deutscher Text"},
        locale="de",
        localeGroupId=english["localeGroupId"],
    )
    return english, german


def _make_translator(page: Page, ws: Any, email: str) -> None:
    """Through the users page: a new user with the Translator role for `de` in `ws`."""
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("#user-workspace").select_option(ws.id)
    form = page.locator("#user-form")
    form.get_by_label("Translator", exact=True).check()
    form.get_by_label("Locales for Translator").fill("de")
    page.get_by_role("button", name="Create user").click()
    expect(page.get_by_role("status").filter(has_text=f"User {email} created")).to_be_visible(
        timeout=20_000
    )
    row = page.locator(f"tr[data-email='{email}']")
    expect(row).to_contain_text("Translator (de)")


def test_a_translator_made_on_the_users_page_edits_german_only(
    page: Page,
    browser: Browser,
    base_url: str,
    new_workspace: Any,
    credentials: dict[str, Any],
    output_dir: Path,
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    english, german = _localized_posts(ws)
    email = f"translator-{uuid.uuid4().hex[:10]}@example.com"
    admin_in(page, credentials, "/users")
    _make_translator(page, ws, email)
    shot("translator-created")
    assert_no_violations(page, "the users page")

    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 800})
    translator = context.new_page()
    try:
        signed_in(translator, email, PASSWORD, in_ws(ws, f"/content/post/{german['id']}"))
        title = translator.get_by_label("title")
        expect(translator.get_by_role("button", name="Save draft")).to_be_enabled()
        expect(translator.get_by_role("button", name="Publish")).to_have_count(0)
        title.fill("Hallo Welt")
        translator.get_by_role("button", name="Save draft").click()
        expect(translator.locator("#entry-dirty")).to_be_hidden(timeout=20_000)
        saved = ws.full.get(f"/api/v1/content/post/{german['id']}").json()
        assert saved["values"]["title"] == "Hallo Welt"

        headers = {"X-Workspace-Id": ws.id, "Origin": base_url}
        published = context.request.post(
            f"/api/v1/content/post/{german['id']}/publish", headers=headers
        )
        assert published.status == 403, published.text()
        assert "publish" in published.json()["error"]["message"]

        translator.goto(in_ws(ws, f"/content/post/{english['id']}"))
        expect(translator.locator("#entry-readonly")).to_contain_text("Read only")
        expect(translator.get_by_label("title")).to_be_disabled()
        expect(translator.get_by_role("button", name="Save draft")).to_have_count(0)
        changed = context.request.patch(
            f"/api/v1/content/post/{english['id']}",
            headers=headers,
            data={"values": {"title": "Hijacked"}},
        )
        assert changed.status == 403, changed.text()
        shot_path = output_dir / "translator-english.png"
        translator.screenshot(path=str(shot_path), full_page=True)
    finally:
        context.close()
    assert ws.full.get(f"/api/v1/content/post/{english['id']}").json()["values"]["title"] == "Hello"

    page.goto(in_ws(ws, "/audit"))
    page.get_by_label("Actor").fill(email)
    page.get_by_role("button", name="Apply filters").click()
    records = page.locator(".audit-record")
    expect(records).to_have_count(3)
    actions = [a.strip() for a in records.locator(".audit-action").all_inner_texts()]
    assert sorted(actions) == ["entry.refused", "entry.refused", "entry.updated"]
    updated = records.filter(has=page.locator(".audit-action", has_text="entry.updated"))
    expect(updated.locator(".audit-target")).to_contain_text(german["id"])
    expect(updated.locator(".audit-changes")).to_contain_text("Hallo Welt")
    expect(records.locator(".audit-who").first).to_have_text(email)
    refusals = records.filter(has=page.locator(".audit-action", has_text="entry.refused"))
    expect(refusals.filter(has_text="publish")).to_have_count(1)
    expect(refusals.filter(has_text=english["id"])).to_have_count(1)
    shot("audit")

    # The user's creation, with the grant, is in the service's log.
    page.get_by_label("Log", exact=True).select_option("service")
    page.get_by_label("Actor").fill("")
    page.get_by_label("Action").fill("user.created")
    page.get_by_role("button", name="Apply filters").click()
    made = page.locator(".audit-record").filter(has_text=email)
    expect(made.locator(".audit-who")).to_have_text(credentials["admin"]["email"])
    expect(made.locator(".audit-changes")).to_contain_text("translator")


def test_a_custom_role_is_made_with_the_rules_editor_and_deleted(
    page: Page, credentials: dict[str, Any], output_dir: Path
) -> None:
    shot = Shots(page, output_dir)
    name = f"French titles {uuid.uuid4().hex[:6]}"
    admin_in(page, credentials, "/roles")
    for builtin in ("Administrator", "Editor", "Author", "Translator", "Viewer"):
        expect(page.get_by_role("heading", name=builtin, exact=True)).to_be_visible()
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Description").fill("Changes the titles of French posts")
    rule = page.locator(".rule").first
    rule.get_by_label("Content types").fill("post")
    rule.get_by_label("update", exact=True).check()
    rule.get_by_label("Locales").fill("fr")
    rule.get_by_label("Fields it may change").fill("title")
    rule.get_by_label("Only entries they created").check()
    page.get_by_role("button", name="Create role").click()
    card = page.locator(".role-card").filter(has=page.get_by_role("heading", name=name))
    expect(card).to_contain_text("update on post in fr changing only title", timeout=20_000)
    expect(card).to_contain_text("of entries they created")
    expect(card).to_contain_text("Custom")
    shot("custom-role")
    assert_no_violations(page, "the roles page")

    card.get_by_role("button", name=f"Delete the role {name}").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete role").click()
    expect(page.get_by_role("status").filter(has_text=f"Role {name} deleted")).to_be_visible(
        timeout=20_000
    )
    expect(card).to_have_count(0)
