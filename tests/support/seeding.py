"""Bulk seeding for tests and benchmarks: entries of exactly the stored shape, fast.

Items are built by the content service's own builder (`entry_item`) and written 25 per
BatchWriteItem, far faster on the emulator than one transaction per entry. No outbox event is
written and no claim item: seeded entries are for reading, never for webhook or uniqueness
tests. The type's entry counter is kept right, so deleting the type still sees them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from content_service.clock import iso_utc
from content_service.content import dynamo
from content_service.content.items import StoredEntry, entry_item, title_of
from content_service.content.model import ContentType
from content_service.content.schema import get_type, type_key
from content_service.content.values import to_storage


def stored_entry(
    workspace_id: str,
    content_type: ContentType,
    values_by_key: Mapping[str, Any],
    *,
    entry_id: str,
    stamp: str,
    published: bool = True,
    links_by_key: Mapping[str, Sequence[str]] | None = None,
) -> StoredEntry:
    """One entry as the service stores it; values keyed by field storage key."""
    return StoredEntry(
        id=entry_id,
        workspace_id=workspace_id,
        content_type=content_type.name,
        status="published" if published else "draft",
        locale="en",
        locale_group_id=entry_id,
        created_at=stamp,
        updated_at=stamp,
        published_at=stamp if published else None,
        audiences=(),
        deleted=False,
        version=1,
        title=title_of(content_type, values_by_key),
        values=dict(values_by_key),
        links={key: tuple(targets) for key, targets in (links_by_key or {}).items()},
    )


def bulk_put(workspace_id: str, content_type: ContentType, entries: Sequence[StoredEntry]) -> None:
    """Writes `entries` 25 per BatchWriteItem (retrying unprocessed items) and counts them."""
    client = dynamo.client()
    table = dynamo.tables().content
    requests = [
        {"PutRequest": {"Item": dynamo.encode(entry_item(content_type, entry))}}
        for entry in entries
    ]
    for offset in range(0, len(requests), 25):
        pending: dict[str, Any] = {table: requests[offset : offset + 25]}
        while pending:
            pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
    client.update_item(
        TableName=dynamo.tables().schema,
        Key=type_key(workspace_id, content_type.name),
        UpdateExpression="SET entryCount = entryCount + :n",
        ExpressionAttributeValues={":n": {"N": str(len(entries))}},
    )


def seed_published(
    workspace_id: str,
    type_name: str,
    rows: Sequence[tuple[Mapping[str, Any], Mapping[str, Sequence[str]]]],
    *,
    start: float | None = None,
) -> list[str]:
    """Published entries from (values by field name, linked ids by relation field name) rows,
    created a millisecond apart from `start` (default now); returns their ids in order."""
    content_type = get_type(workspace_id, type_name)
    assert content_type is not None, type_name
    fields = {f.name: f for f in content_type.fields}
    base = time.time() if start is None else start
    entries = []
    for index, (values, links) in enumerate(rows):
        entries.append(
            stored_entry(
                workspace_id,
                content_type,
                {fields[n].key: to_storage(fields[n], v) for n, v in values.items()},
                entry_id=str(uuid.uuid4()),
                stamp=iso_utc(base + index / 1000),
                links_by_key={fields[n].key: targets for n, targets in links.items()},
            )
        )
    bulk_put(workspace_id, content_type, entries)
    return [entry.id for entry in entries]
