"""Outbox events that change cached answers without an entry changing: a content type
replaced or deleted (every answer of the workspace), a token narrowed or revoked (every answer
made for it).

Written in the same transaction as the change, like an entry's event, so the edge purge fed by
the events stream (`edge.changes`) never misses one. They are not in the webhook catalogue, so
the fan-out delivers them to no endpoint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.storage import dynamo
from content_service.storage.outbox_event import new_event_item

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

TYPE_CHANGED = "contentType.changed"
TOKEN_CHANGED = "token.changed"  # noqa: S105 (an event kind, not a secret)


def _put(
    kind: str, workspace_id: str, subject: str, subject_id: str, now: float
) -> TransactWriteItemTypeDef:
    item = new_event_item(
        kind, now, actor=None, data={"kind": subject, "id": subject_id}, workspace_id=workspace_id
    )
    return {
        "Put": {
            "TableName": dynamo.tables().events,
            "Item": dynamo.encode(item),
            "ConditionExpression": "attribute_not_exists(id)",
        }
    }


def type_changed_put(workspace_id: str, type_name: str, now: float) -> TransactWriteItemTypeDef:
    return _put(TYPE_CHANGED, workspace_id, "content_type", type_name, now)


def token_changed_put(workspace_id: str, token_id: str, now: float) -> TransactWriteItemTypeDef:
    return _put(TOKEN_CHANGED, workspace_id, "token", token_id, now)
