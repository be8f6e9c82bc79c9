"""The role x action table of docs/authorization.md ("Roles and actions") in the entry editor,
in Debian's Chromium: a user of each built-in role opens entries of a workspace and is offered
exactly the actions its row allows (the service refuses the others anyway: the REST and
GraphQL matrix in tests/integration/test_roles.py proves that; this is the pages' column).

Per role: a German draft someone else created (update, publish, schedule, trash, and the
editor's fields locked where update is not allowed), the same in English (the Translator's
locale limit), a published German entry (unpublish, and its version 1's restore: manage
versions), the lists' New entry (create), the media page's upload (manage assets), Restore
right after a trash in the page (the editor offers it only then, so only for roles that may
trash), and for roles whose update is "own", a draft of their own."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from content_service import runtime
from content_service.identity.roles import EVERY_WORKSPACE, RoleGrant
from content_service.identity.users import create_user
from tests.support.admin_pages import signed_in
from tests.support.clients import WorkspaceAccess
from tests.support.content import create, define, publish
from tests.support.content_pages import in_ws
from tests.support.roles_table import (
    GRANTED_LOCALE,
    OTHER_LOCALE,
    ROLE_COLUMNS,
    allowed,
    roles_table,
)

pytestmark = pytest.mark.browser

PASSWORD = "matrix-pages-password-1"
TABLE = roles_table()
BUTTONS = {
    "update": "Save draft",
    "publish": "Publish",
    "schedule": "Schedule…",
    "trash": "Move to trash",
}
"""The editor's button for each action on a draft."""


def _user(role: str, workspace_id: str) -> str:
    email = f"{role}-{uuid.uuid4().hex[:8]}@pages-matrix.example"
    if role == "administrator":
        grants = {EVERY_WORKSPACE: (RoleGrant(role),)}
    else:
        locales = frozenset({GRANTED_LOCALE}) if role == "translator" else None
        grants = {workspace_id: (RoleGrant(role, locales),)}
    create_user(runtime.settings(), email, "editor", PASSWORD, grants=grants)
    return email


def _draft(ws: WorkspaceAccess, locale: str) -> str:
    return str(create(ws.full, "post", {"title": f"draft {locale}"}, locale=locale)["id"])


def _offered(page: Page | Locator, name: str, expected: bool, what: str) -> None:
    button = page.get_by_role("button", name=name, exact=True)
    if expected:
        expect(button, what).to_be_visible()
    else:
        expect(button, what).to_have_count(0)


def _editor_ready(page: Page, entry_id: str) -> None:
    """Waits for the editor's script to have applied the roles: until then every field is
    disabled and every action shown, so no check before it would mean anything. Its actions
    are enabled in the same step (`ready()` then `render()`), hidden ones included."""
    expect(page.locator("#entry-id")).to_have_text(entry_id)
    expect(page.locator("#action-save")).to_be_enabled(timeout=20_000)


def _check_draft(page: Page, ws: WorkspaceAccess, role: str, entry_id: str, locale: str) -> None:
    page.goto(in_ws(ws, f"/content/post/{entry_id}"))
    _editor_ready(page, entry_id)
    for action, name in BUTTONS.items():
        expected = allowed(TABLE[action][role], own=False, locale=locale)
        _offered(page, name, expected, f"{role}: {name} on another's draft in {locale}")
    title = page.get_by_label("title")
    if allowed(TABLE["update"][role], own=False, locale=locale):
        expect(title).to_be_enabled()
    else:
        expect(title).to_be_disabled()
        expect(page.locator("#entry-readonly")).to_contain_text("Read only")


@pytest.mark.parametrize("role", ROLE_COLUMNS)
def test_the_entry_editor_offers_each_role_what_its_row_allows(
    page: Page, base_url: str, new_workspace: Any, role: str
) -> None:
    ws: WorkspaceAccess = new_workspace()
    define(
        ws.full, "post", [{"name": "title", "type": "string"}], titleField="title", localized=True
    )
    german, english = _draft(ws, GRANTED_LOCALE), _draft(ws, OTHER_LOCALE)
    published = _draft(ws, GRANTED_LOCALE)
    publish(ws.full, "post", published)
    email = _user(role, ws.id)

    signed_in(page, email, PASSWORD, in_ws(ws, f"/content/post/{german}"))
    _check_draft(page, ws, role, german, GRANTED_LOCALE)
    _check_draft(page, ws, role, english, OTHER_LOCALE)

    page.goto(in_ws(ws, f"/content/post/{published}"))
    _editor_ready(page, published)
    unpublish = allowed(TABLE["unpublish"][role], own=False, locale=GRANTED_LOCALE)
    _offered(page, "Unpublish", unpublish, f"{role}: Unpublish")
    page.get_by_role("button", name="Open version 1").click()
    version = page.get_by_role("dialog", name="Version 1")
    expect(version).to_be_visible()
    restores = allowed(TABLE["manage versions"][role], own=False, locale=GRANTED_LOCALE)
    _offered(version, "Restore into the draft…", restores, f"{role}: a version's restore")
    page.keyboard.press("Escape")

    page.goto(in_ws(ws, f"/content/post?locale={GRANTED_LOCALE}"))
    expect(page.get_by_role("heading", name="post")).to_be_visible()
    create = allowed(TABLE["create"][role], own=True, locale=GRANTED_LOCALE)
    new_entry = page.get_by_role("link", name="New entry", exact=True)
    expect(new_entry, f"{role}: New entry").to_have_count(1 if create else 0)
    page.goto(in_ws(ws, "/content"))
    expect(page.locator("tr[data-type='post']")).to_be_visible()
    of_post = page.locator("tr[data-type='post']").get_by_role("link", name="New entry of post")
    expect(of_post, f"{role}: New entry of post").to_have_count(1 if create else 0)

    page.goto(in_ws(ws, "/media"))
    expect(page.get_by_role("heading", name="Media", exact=True)).to_be_visible()
    assets = allowed(TABLE["manage assets"][role], own=True, locale=GRANTED_LOCALE)
    upload = page.get_by_role("heading", name="Upload", exact=True)
    expect(upload, f"{role}: Upload").to_have_count(1 if assets else 0)

    if allowed(TABLE["trash"][role], own=False, locale=GRANTED_LOCALE):
        page.goto(in_ws(ws, f"/content/post/{german}"))
        _editor_ready(page, german)
        page.get_by_role("button", name="Move to trash", exact=True).click()
        confirm = page.get_by_role("dialog", name="Move this entry to the trash?")
        confirm.get_by_role("button", name="Move to trash").click()
        expect(page.locator("#entry-state")).to_have_text("In the trash")
        restore = allowed(TABLE["restore"][role], own=False, locale=GRANTED_LOCALE)
        _offered(page, "Restore", restore, f"{role}: Restore after a trash")

    if TABLE["update"][role] == "own":
        mine = page.context.request.post(
            "/api/v1/content/post",
            headers={"X-Workspace-Id": ws.id, "Origin": base_url},
            data={"values": {"title": "mine"}, "locale": GRANTED_LOCALE},
        )
        assert mine.status == 201, mine.text()
        page.goto(in_ws(ws, f"/content/post/{mine.json()['id']}"))
        _editor_ready(page, mine.json()["id"])
        expect(page.get_by_role("button", name="Save draft", exact=True)).to_be_visible()
        expect(page.get_by_label("title")).to_be_enabled()
