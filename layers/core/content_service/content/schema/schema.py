"""Content types of a workspace: how the schema table stores them, reading them, the version.

Validation is in `schema_validation.py`, the changes (create, replace, delete) in
`schema_changes.py`.

Layout (schema table, next to the workspace's own record):
- `WORKSPACE#<ws>` / `TYPE#<name>`: one content type, with its fields (each with a storage key),
  `revision` (bumped by every change of the definition), `fieldSeq` (the last field key issued)
  and `entryCount` (entries of the type, trashed included; kept by the entry transactions).
- `WORKSPACE#<ws>` / `SCHEMA`: `version`, bumped in the same transaction as every type change.
- `LISTJOBS` / `<ws>#<name>`: a list index being built in the background
(`content.lists.list_jobs`),
  written in the transaction of the type change that asks for it.

A type's list layout (its sortable fields and shards, `content.lists.list_index`) changes with its
definition: at once when the type has no entries, otherwise as `listNext`, which writers keep
beside the current layout while the background job indexes the existing entries; lists keep
reading the current layout until the job switches them over.

Every type change is one TransactWriteItems: the type item and the version item, conditioned on
the version read before validating. Two concurrent changes cannot both pass a check that spans
types (a derived GraphQL name collision, a relation to a type being deleted): the second one's
condition fails, and it is validated again against the new state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from content_service.content.schema.model import ContentType, FieldDef, ListLayout, WorkspaceSchema
from content_service.content.schema.names import BUILTIN_TYPE_NAMES, is_valid_name
from content_service.content.store import store
from content_service.errors import Forbidden, NotFound
from content_service.identity.principal import Caller
from content_service.storage import dynamo

if TYPE_CHECKING:
    pass

SCHEMA_SK = "SCHEMA"
TYPE_SK_PREFIX = "TYPE#"
LIST_JOBS_PK = "LISTJOBS"


def workspace_pk(workspace_id: str) -> str:
    return f"WORKSPACE#{workspace_id}"


def type_key(workspace_id: str, name: str) -> dict[str, Any]:
    return dynamo.key(workspace_pk(workspace_id), f"{TYPE_SK_PREFIX}{name}")


def list_job_key(workspace_id: str, name: str) -> dict[str, Any]:
    return dynamo.key(LIST_JOBS_PK, f"{workspace_id}#{name}")


def _from_item(workspace_id: str, item: Mapping[str, Any]) -> ContentType:
    return ContentType(
        workspace_id=workspace_id,
        name=str(item["name"]),
        kind="single" if item.get("typeKind") == "single" else "collection",
        localized=bool(item.get("localized")),
        audience_gated=bool(item.get("audienceGated")),
        title_field=item.get("titleField"),
        fields=tuple(FieldDef.from_storage(f) for f in item.get("fields") or ()),
        revision=int(item.get("revision", 1)),
        field_seq=int(item.get("fieldSeq", 0)),
        created_at=str(item.get("createdAt", "")),
        updated_at=str(item.get("updatedAt", "")),
        entry_count=int(item.get("entryCount", 0)),
        list_shards=int(item.get("listShards", 1)),
        list_layout=ListLayout.from_storage(item.get("listLayout")),
        list_next=ListLayout.from_storage(item["listNext"]) if item.get("listNext") else None,
        list_gen=int(item.get("listGen", 0)),
        locales=frozenset(str(locale) for locale in item.get("locales") or ()),
    )


def type_from_item(workspace_id: str, item: Mapping[str, Any]) -> ContentType:
    """A decoded type item (for readers that fetch it beside other items)."""
    return _from_item(workspace_id, item)


def get_type(workspace_id: str, name: str) -> ContentType | None:
    """One content type, strongly consistent; None when the workspace has no such type."""
    if not is_valid_name(name):
        return None
    item = store().get("schema", type_key(workspace_id, name))
    return _from_item(workspace_id, item) if item else None


def get_types(workspace_id: str, names: Iterable[str]) -> dict[str, ContentType]:
    """Several types at once (one BatchGetItem); unknown names are absent."""
    wanted = sorted({n for n in names if is_valid_name(n)})
    if not wanted:
        return {}
    items = store().get_many("schema", [type_key(workspace_id, n) for n in wanted])
    found = (_from_item(workspace_id, item) for item in items)
    return {t.name: t for t in found}


def get_schema(workspace_id: str) -> WorkspaceSchema:
    """Every user type of the workspace and its schema version, in one strongly consistent
    Query. Built-in types (`asset`) are left out: they are never listed, changed, targeted by
    a relation or generated as GraphQL types."""
    types: dict[str, ContentType] = {}
    version = 0
    for page in store().partition("schema", workspace_pk(workspace_id)):
        for item in page:
            sk = str(item["sk"])
            if sk == SCHEMA_SK:
                version = int(item.get("version", 0))
            elif sk.startswith(TYPE_SK_PREFIX) and item.get("name") not in BUILTIN_TYPE_NAMES:
                content_type = _from_item(workspace_id, item)
                types[content_type.name] = content_type
    return WorkspaceSchema(workspace_id=workspace_id, version=version, types=types)


def types_relating_to(workspace_id: str, target: str) -> list[str]:
    """The workspace's types with a relation field (or an asset field) to `target`."""
    return sorted(
        t.name
        for t in get_schema(workspace_id).types.values()
        if any(f.target == target for f in t.relation_fields)
    )


def schema_version_key(workspace_id: str) -> dict[str, Any]:
    """Where the workspace's schema version is kept (the schema table, beside its tokens)."""
    return dynamo.key(workspace_pk(workspace_id), SCHEMA_SK)


def version_of(item: Mapping[str, Any] | None) -> int:
    """The schema version an item at `schema_version_key` holds (0: no type was ever made)."""
    return int(item.get("version", 0)) if item else 0


def schema_version(workspace_id: str) -> int:
    """The workspace's schema version alone (one GetItem): cheap enough to check per request."""
    return version_of(store().get("schema", schema_version_key(workspace_id), [["version"]]))


def require_read(caller: Caller) -> None:
    """Every read of content or of its model needs `content:read` (a write-only token has
    none)."""
    if not caller.can_read:
        raise Forbidden("this token lacks the content:read scope")


def require_type_change(caller: Caller) -> None:
    if not caller.can_change_types:
        raise Forbidden(
            "changing content types needs a full token with content:write, or the admin role"
        )


def require_type(caller: Caller, workspace_id: str, name: str) -> ContentType:
    """The type as `caller` may see it: unknown and ungranted types are the same 404."""
    require_read(caller)
    content_type = get_type(workspace_id, name) if caller.grants(name) else None
    if content_type is None:
        raise NotFound(f"content type {name!r} not found")
    return content_type


def require_type_with(
    caller: Caller, workspace_id: str, name: str, keys: Iterable[dict[str, Any]]
) -> tuple[ContentType, list[dict[str, Any]]]:
    """`require_type`, reading `keys` of the schema table in the same BatchGetItem (a list
    reads its type and its count items in one request); the other items found come back
    decoded, in no particular order."""
    require_read(caller)
    if not caller.grants(name) or not is_valid_name(name):
        raise NotFound(f"content type {name!r} not found")
    wanted = type_key(workspace_id, name)
    found = store().get_many("schema", [wanted, *keys])
    sk = wanted["sk"]["S"]
    types = [item for item in found if item.get("sk") == sk]
    if not types:
        raise NotFound(f"content type {name!r} not found")
    return _from_item(workspace_id, types[0]), [item for item in found if item.get("sk") != sk]


def visible_schema(caller: Caller, workspace_id: str) -> WorkspaceSchema:
    """The workspace schema narrowed to the caller's grant set (what GraphQL should build)."""
    require_read(caller)
    schema = get_schema(workspace_id)
    return WorkspaceSchema(
        workspace_id=workspace_id,
        version=schema.version,
        types={n: t for n, t in schema.types.items() if caller.grants(n)},
    )


def list_types(caller: Caller, workspace_id: str) -> list[ContentType]:
    return sorted(visible_schema(caller, workspace_id).types.values(), key=lambda t: t.name)
