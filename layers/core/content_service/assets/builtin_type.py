"""The built-in content type `asset`: its fixed fields and the item that defines it.

Assets are entries of this type, so versions, publishing, the trash, lists, audiences and
webhook events come from the entry machinery (docs/assets.md, D128). Its storage keys are fixed
(`f1`..`f7`): other code (delivery) reads `values.f4`, the file, by key. The type item is put
per workspace the first time an asset is written, with a condition, so concurrent first writes
create it once; `content.schema.get_schema` leaves it out of the workspace's types, so it is
never listed, changed or generated as a GraphQL type like a user's type.
"""

from __future__ import annotations

from typing import Any

from content_service.clock import iso_utc
from content_service.content.schema import (
    ASSET_CONTENT_TYPE_KEY,
    ASSET_FILE_KEY,
    ASSET_STATE_KEY,
    ASSET_TYPE,
    TYPE_SK_PREFIX,
    ContentType,
    FieldDef,
    ListLayout,
    get_type,
    workspace_pk,
)
from content_service.storage import dynamo

TITLE_KEY = "f1"
ALT_TEXT_KEY = "f2"
DESCRIPTION_KEY = "f3"
FILE_KEY = ASSET_FILE_KEY
"""`{id, key, fileName, contentType, size, width?, height?, state, reason?}`, written by
processing only (`assets.files`)."""

FIELDS: tuple[FieldDef, ...] = (
    FieldDef(name="title", type="string", key=TITLE_KEY),
    FieldDef(name="altText", type="string", key=ALT_TEXT_KEY),
    FieldDef(name="description", type="text", key=DESCRIPTION_KEY),
    FieldDef(name="file", type="json", key=FILE_KEY),
    # Copies of the file's name, type and state as scalars, so lists filter on them.
    FieldDef(name="fileName", type="string", key="f5"),
    FieldDef(name="contentType", type="string", key=ASSET_CONTENT_TYPE_KEY),
    FieldDef(name="state", type="enum", key=ASSET_STATE_KEY, values=("ready", "failed")),
)
CLIENT_FIELDS = frozenset({"title", "altText", "description"})
"""The fields a client writes; the others are the file's, set by processing."""


def _type_item(workspace_id: str, now: str) -> dict[str, Any]:
    return {
        "pk": workspace_pk(workspace_id),
        "sk": f"{TYPE_SK_PREFIX}{ASSET_TYPE}",
        "entity": "content_type",
        "builtin": True,
        "name": ASSET_TYPE,
        "typeKind": "collection",
        "localized": False,
        "audienceGated": False,
        "titleField": "title",
        "fields": [f.to_storage() for f in FIELDS],
        "listShards": 1,
        "revision": 1,
        "fieldSeq": len(FIELDS),
        "entryCount": 0,
        "listLayout": ListLayout().to_storage(),
        "listGen": 1,
        "createdAt": now,
        "updatedAt": now,
    }


def asset_definition(workspace_id: str) -> ContentType:
    """The type as every workspace has it, without reading storage (for GraphQL's `Asset`)."""
    return ContentType.defined(workspace_id, ASSET_TYPE, FIELDS, "title")


def asset_type(workspace_id: str, now: float) -> ContentType:
    """The workspace's asset type, created on first need (idempotent: a conditional put)."""
    found = get_type(workspace_id, ASSET_TYPE)
    if found is not None:
        return found
    dynamo.conditional(
        dynamo.client().put_item,
        TableName=dynamo.tables().schema,
        Item=dynamo.encode(_type_item(workspace_id, iso_utc(now))),
        ConditionExpression="attribute_not_exists(pk)",
    )
    created = get_type(workspace_id, ASSET_TYPE)
    assert created is not None
    return created
