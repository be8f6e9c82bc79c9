"""Content types, entries and callers built in memory, for unit tests of the content service
that read through `tests.support.content_store.InMemoryContentStore`."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from content_service.content import values as value_rules
from content_service.content.entries import Status, StoredEntry, title_of
from content_service.content.schema import ContentType, FieldDef, FieldType, ListLayout
from content_service.identity.principal import TokenCaller, UserCaller
from content_service.identity.roles import EVERY_WORKSPACE, RoleGrant

WORKSPACE = "ws-unit"
EDITOR = UserCaller(
    id="u-1",
    email="editor@example.com",
    role="editor",
    role_grants={EVERY_WORKSPACE: (RoleGrant("editor"),)},
)


def token(*, access: str = "full", audiences: Sequence[str] = ()) -> TokenCaller:
    """A token of WORKSPACE granting every type: `full` reads drafts and writes, `read`
    reads published versions."""
    scopes = {"content:read", "content:write"} if access == "full" else {"content:read"}
    return TokenCaller(
        token_id="t-1",
        name="unit",
        workspace_id=WORKSPACE,
        access=access,  # type: ignore[arg-type]
        content_types=frozenset({"*"}),
        scopes=frozenset(scopes),
        audiences=frozenset(audiences),
    )


def entry_id(n: int) -> str:
    """The n-th entry id: ids sort as their numbers do."""
    return str(uuid.UUID(int=n))


def field(
    name: str,
    type: FieldType,
    key: str,
    *,
    required: bool = False,
    sortable: bool = False,
    values: Sequence[str] = (),
    target: str | None = None,
    cardinality: str | None = None,
) -> FieldDef:
    return FieldDef(
        name=name,
        type=type,
        key=key,
        required=required,
        values=tuple(values),
        target=target,
        cardinality=cardinality,  # type: ignore[arg-type]
        sortable=sortable,
    )


def content_type(
    name: str, *fields: FieldDef, shards: int = 1, audience_gated: bool = False
) -> ContentType:
    """A collection type of WORKSPACE whose list index is ready for its sortable fields."""
    sortable = tuple(sorted(f.key for f in fields if f.sortable))
    return ContentType(
        workspace_id=WORKSPACE,
        name=name,
        kind="collection",
        localized=False,
        audience_gated=audience_gated,
        title_field=next((f.name for f in fields if f.type == "string"), None),
        fields=tuple(fields),
        revision=1,
        field_seq=len(fields),
        created_at="2026-01-01T00:00:00.000Z",
        updated_at="2026-01-01T00:00:00.000Z",
        list_shards=shards,
        list_layout=ListLayout(shards=shards, sortable=sortable),
        list_gen=1,
    )


def entry(
    content_type: ContentType,
    n: int,
    values: Mapping[str, Any] | None = None,
    *,
    links: Mapping[str, Sequence[str]] | None = None,
    status: Status = "draft",
    deleted: bool = False,
    audiences: Sequence[str] = (),
) -> StoredEntry:
    """Entry `n` of `content_type`, created at second `n` of 2026, `values` and `links` by
    field name."""
    stored: dict[str, Any] = {}
    for name, raw in (values or {}).items():
        definition = content_type.field(name)
        assert definition is not None, name
        stored[definition.key] = value_rules.to_storage(definition, raw)
    by_key: dict[str, tuple[str, ...]] = {}
    for name, ids in (links or {}).items():
        definition = content_type.field(name)
        assert definition is not None, name
        by_key[definition.key] = tuple(ids)
    stamp = f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}.000Z"
    return StoredEntry(
        id=entry_id(n),
        workspace_id=WORKSPACE,
        content_type=content_type.name,
        status=status,
        locale="en",
        locale_group_id=entry_id(n),
        created_at=stamp,
        updated_at=stamp,
        published_at=stamp if status != "draft" else None,
        audiences=tuple(audiences),
        deleted=deleted,
        version=1,
        title=title_of(content_type, stored),
        values=stored,
        links=by_key,
        published_version=1 if status != "draft" else None,
        versions=1 if status != "draft" else 0,
    )


def published(version: StoredEntry) -> StoredEntry:
    """The published version of an entry whose latest version is `version`."""
    return version.with_changes(status="published")


TAG = content_type("tag", field("label", "string", "f1"))
"""A one-field type that posts link to many of."""
AUTHOR = content_type("author", field("name", "string", "f1"))
"""A one-field type that a post links to one of."""
