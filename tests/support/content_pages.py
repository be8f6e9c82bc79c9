"""Helpers for the content page tests: a workspace with a blog model holding every field type,
and an editor signed in to it."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from tests.conftest import WorkspaceAccess
from tests.support.admin_pages import Account, editor_user, signed_in
from tests.support.content import define

EVERY_FIELD: list[dict[str, Any]] = [
    {"name": "title", "type": "string", "required": True},
    {"name": "summary", "type": "text"},
    {"name": "body", "type": "richtext"},
    {"name": "views", "type": "integer"},
    {"name": "rating", "type": "float"},
    {"name": "featured", "type": "boolean"},
    {"name": "published_on", "type": "datetime"},
    {"name": "day", "type": "date"},
    {"name": "mood", "type": "enum", "values": ["happy", "sad"]},
    {"name": "meta", "type": "json"},
    {"name": "author", "type": "relation", "target": "author", "cardinality": "many-to-one"},
    {"name": "related", "type": "relation", "target": "post", "cardinality": "many-to-many"},
]


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
