"""The change log: one small item per entry write, what the Sync API reads a delta from.

Change item (content table, `pk` = `SYNC#<ws>`, `sk` = `<time>#<entry id>#<nonce>`, `<time>`
the write's ISO 8601 UTC time with milliseconds): `entity` `sync_change`, `entryId`,
`contentType`, `locale`, `published` (whether the write changed the entry's published version:
a draft edit of a live entry does not, so a read token's delta skips it) and `expiresAt` (the
table's TTL attribute: the write's time plus the retention). It goes into the write's own
transaction beside the event (`content.writes.write_transaction.record`), so a change is logged if
and only if the write commits. A delta is one Query of the workspace's partition from the
token's position: it reads the changes since, never the workspace.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service.clock import iso_utc
from content_service.content.store import store
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

RETENTION_DAYS = 30
"""How long a change is kept (its TTL), and so how old a sync token may be."""
RETENTION_SECONDS = RETENTION_DAYS * 86400
TIME_LENGTH = len("2026-01-01T00:00:00.000Z")


def log_pk(workspace_id: str) -> str:
    return f"SYNC#{workspace_id}"


@dataclass(frozen=True)
class Change:
    """One logged write: which entry, of which type and locale, and whether its published
    version moved. `sk` is its position in the log."""

    sk: str
    entry_id: str
    content_type: str
    locale: str
    published: bool


def change_put(
    workspace_id: str,
    *,
    entry_id: str,
    content_type: str,
    locale: str,
    published: bool,
    now: float,
) -> TransactWriteItemTypeDef:
    """The TransactWriteItems element logging one write (its nonce keeps two writes of one
    entry in the same millisecond apart)."""
    item = {
        "pk": log_pk(workspace_id),
        "sk": f"{iso_utc(now)}#{entry_id}#{uuid.uuid4().hex[:8]}",
        "entity": "sync_change",
        "entryId": entry_id,
        "contentType": content_type,
        "locale": locale,
        "published": published,
        "expiresAt": int(now) + RETENTION_SECONDS,
    }
    return {"Put": {"TableName": store().table_name("content"), "Item": dynamo.encode(item)}}


def _change(item: dict[str, Any]) -> Change:
    return Change(
        sk=str(item["sk"]),
        entry_id=str(item.get("entryId", "")),
        content_type=str(item.get("contentType", "")),
        locale=str(item.get("locale", "")),
        published=bool(item.get("published")),
    )


def read_changes(
    workspace_id: str, after: str, before: str, limit: int
) -> tuple[list[Change], bool]:
    """The changes logged after position `after` (a change's `sk`, or a bare time) and before
    time `before`, oldest first, at most `limit`; and whether more follow. One strongly
    consistent Query (BETWEEN is inclusive: a change at exactly `after` is dropped here)."""
    request = {
        "TableName": store().table_name("content"),
        "KeyConditionExpression": "pk = :pk AND sk BETWEEN :after AND :before",
        "ExpressionAttributeValues": dynamo.encode(
            {":pk": log_pk(workspace_id), ":after": after, ":before": before}
        ),
        "ConsistentRead": True,
        "Limit": limit,
    }
    items, more = store().query_page(request)
    changes = [_change(dynamo.decode(item)) for item in items]
    return [c for c in changes if c.sk != after], more is not None
