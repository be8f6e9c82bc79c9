"""The outbox event written in the same transaction as every entry change.

`{id, kind, occurredAt, workspaceId, actor, data: {kind: "content_entry", id, contentType,
title}, fanoutShard, expiresAt}`: `actor` is `{id, email}` for a signed-in user and null for a
token; `title` is the type's titleField value at the time, so it survives deletion;
`fanoutShard` marks the event as not yet fanned out (`storage/outbox_event.py`). The events table's
stream feeds the webhook fan-out; nothing is sent during the write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, get_args

from content_service.content.store import store
from content_service.identity.principal import Caller, UserCaller
from content_service.storage import dynamo
from content_service.storage.outbox_event import new_event_item

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

EventKind = Literal[
    "entry.created",
    "entry.updated",
    "entry.published",
    "entry.unpublished",
    "entry.deleted",
    "entry.restored",
    "entry.purged",
]
EVENT_KINDS: tuple[EventKind, ...] = get_args(EventKind)


def actor_of(caller: Caller) -> dict[str, str] | None:
    if isinstance(caller, UserCaller):
        return {"id": caller.id, "email": caller.email}
    return None


def event_item(
    kind: EventKind,
    *,
    workspace_id: str,
    caller: Caller,
    entry_id: str,
    content_type: str,
    title: str,
    now: float,
) -> dict[str, Any]:
    data = {"kind": "content_entry", "id": entry_id, "contentType": content_type, "title": title}
    return new_event_item(kind, now, actor=actor_of(caller), data=data, workspace_id=workspace_id)


def event_put(kind: EventKind, **fields: Any) -> TransactWriteItemTypeDef:
    """The TransactWriteItems element that writes one event."""
    return {
        "Put": {
            "TableName": store().table_name("events"),
            "Item": dynamo.encode(event_item(kind, **fields)),
            "ConditionExpression": "attribute_not_exists(id)",
        }
    }
