"""Helpers for the content page tests: a workspace with a blog model holding every field type,
and an editor signed in to it."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.support.admin_pages import Account, editor_user, signed_in
from tests.support.clients import WorkspaceAccess
from tests.support.content import define
from tests.support.field_types import every_field_type, relation

EVERY_FIELD = every_field_type(
    relations=(
        relation("author", "author", "many-to-one"),
        relation("related", "post", "many-to-many"),
    )
)


def blog_model(ws: WorkspaceAccess, *, localized: bool = False) -> None:
    """`author` (a name) and `post` with one field of every type and two relations."""
    define(ws.full, "author", [{"name": "name", "type": "string", "required": True}])
    define(ws.full, "post", EVERY_FIELD, titleField="title", localized=localized)


def editor_in(page: Page, ws: WorkspaceAccess, path: str = "/content") -> Account:
    """A new editor, signed in through the form, on `path` of the workspace."""
    account = editor_user()
    joiner = "&" if "?" in path else "?"
    signed_in(page, account.email, account.password, f"{path}{joiner}workspace={ws.slug}")
    return account


def in_ws(ws: WorkspaceAccess, path: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}workspace={ws.slug}"
