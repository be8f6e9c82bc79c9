"""Bulk seeding for tests and benchmarks: entries of exactly the stored shape, fast.

Items are built by the content service's own builders (`entry_item`, and `index_state` for the
list index and count items an entry has) and written 25 per BatchWriteItem, far faster on the
emulator than one transaction per entry; a benchmark's hundreds of thousands of items go
straight into the emulator's table instead (`Emulator.load`). No outbox event is written and
no claim item: seeded entries are for reading, never for webhook or uniqueness tests. The
type's entry counter, its locales and the count items are kept right, so lists total them,
the list index job walks them and deleting the type still sees them.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from content_service.clock import iso_utc
from content_service.content.entries import (
    StoredEntry,
    content_digest,
    entry_item,
    published_item,
    summary_text,
    title_of,
    version_sk,
)
from content_service.content.lists import COUNT_SK, index_state, with_state
from content_service.content.relations import Source, held
from content_service.content.schema import ContentType, get_type, type_key
from content_service.content.values import to_storage
from content_service.content.writes import Versions
from content_service.storage import dynamo
from infra.emulator import Emulator


def stored_entry(
    workspace_id: str,
    content_type: ContentType,
    values_by_key: Mapping[str, Any],
    *,
    entry_id: str,
    stamp: str,
    published: bool = True,
    links_by_key: Mapping[str, Sequence[str]] | None = None,
    locale: str = "en",
) -> StoredEntry:
    """One entry as the service stores it; values keyed by field storage key."""
    entry = StoredEntry(
        id=entry_id,
        workspace_id=workspace_id,
        content_type=content_type.name,
        status="published" if published else "draft",
        locale=locale,
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
    if not published:
        return entry
    return entry.with_changes(published_version=1, versions=1, published_hash=content_digest(entry))


def stored_items(
    content_type: ContentType, entries: Sequence[StoredEntry | Versions], counts: Counter[str]
) -> Iterator[dict[str, Any]]:
    """Every item of `entries` as DynamoDB JSON: each entry, its published item and first
    snapshot when it has one, its list index items and each link's reverse item. An entry is
    a `StoredEntry` (its published version is itself when it is published) or, for a
    `changed` one, its `Versions`. The count items they add to are tallied in `counts`."""
    for seeded in entries:
        versions = seeded if isinstance(seeded, Versions) else _versions_of(seeded)
        entry, published = versions.latest, versions.published
        state = index_state(content_type, entry, published)
        yield dynamo.encode(entry_item(content_type, with_state(entry, state)))
        summaries = {"A": summary_text(content_type, entry)}
        if published is not None:
            yield dynamo.encode(published_item(published))
            yield dynamo.encode(published_item(published, version_sk(1)))
            summaries["P"] = summary_text(content_type, published)
        for (pk, sk), carries in state.items.items():
            item: dict[str, Any] = {"pk": {"S": pk}, "sk": {"S": sk}}
            if carries is not None:
                item["summary"] = {"S": summaries[carries]}
            yield item
        source = Source.of(entry)
        yield from (source.item(link) for link in sorted(held(entry, published)))
        counts.update(state.counts)


def _versions_of(entry: StoredEntry) -> Versions:
    return Versions(entry, entry if entry.is_live else None)


def changed_entry(
    content_type: ContentType, entry: StoredEntry, live_values: Mapping[str, Any]
) -> Versions:
    """`entry` (published) as a `changed` one: `live_values` (by key) were published, the
    entry's own values are its newer draft."""
    published = entry.with_changes(
        values=dict(live_values), title=title_of(content_type, live_values)
    )
    latest = entry.with_changes(status="changed", published_hash=content_digest(published))
    return Versions(latest, published.with_changes(published_hash=None))


def _batch_write(table: str, items: Iterator[dict[str, Any]]) -> None:
    client = dynamo.client()
    chunk: list[dict[str, Any]] = []

    def flush() -> None:
        pending: dict[str, Any] = {table: [{"PutRequest": {"Item": i}} for i in chunk]}
        while pending:
            pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        chunk.clear()

    for item in items:
        chunk.append(item)
        if len(chunk) == 25:
            flush()
    if chunk:
        flush()


def _add_counts(table: str, counts: Counter[str], emulator: Emulator | None) -> None:
    """Adds to the count items (creating those not there yet)."""
    if emulator is None:
        for pk, delta in counts.items():
            dynamo.client().update_item(
                TableName=table,
                Key=dynamo.key(pk, COUNT_SK),
                UpdateExpression="ADD #n :delta",
                ExpressionAttributeNames={"#n": "n"},
                ExpressionAttributeValues={":delta": {"N": str(delta)}},
            )
        return
    keys = [dynamo.key(pk, COUNT_SK) for pk in counts]
    current = {
        str(item["pk"]): int(item.get("n", 0))
        for item in dynamo.batch_get(table, keys, consistent=True)
    }
    emulator.load(
        table,
        (
            {**dynamo.key(pk, COUNT_SK), "n": {"N": str(current.get(pk, 0) + delta)}}
            for pk, delta in counts.items()
        ),
    )


def bulk_put(
    workspace_id: str,
    content_type: ContentType,
    entries: Sequence[StoredEntry | Versions],
    *,
    emulator: Emulator | None = None,
) -> None:
    """Writes `entries` with their index and count items (25 per BatchWriteItem, or straight
    into the in-process `emulator`) and counts them on the type."""
    table = dynamo.tables().content
    counts: Counter[str] = Counter()
    items = stored_items(content_type, entries, counts)
    if emulator is None:
        _batch_write(table, items)
    else:
        emulator.load(table, items)
    _add_counts(dynamo.tables().schema, counts, emulator)
    locales = sorted({(e.latest if isinstance(e, Versions) else e).locale for e in entries})
    dynamo.client().update_item(
        TableName=dynamo.tables().schema,
        Key=type_key(workspace_id, content_type.name),
        UpdateExpression="SET entryCount = entryCount + :n ADD locales :locales",
        ExpressionAttributeValues={
            ":n": {"N": str(len(entries))},
            ":locales": {"SS": locales or ["en"]},
        },
    )


def bulk_put_chunks(
    workspace_id: str,
    content_type: ContentType,
    span: tuple[int, int],
    entry: Callable[[int], StoredEntry | Versions],
    *,
    chunk: int,
    emulator: Emulator,
) -> None:
    """Entries `entry(i)` for i in `span` (start, stop), made in order and written `chunk` at
    a time (`bulk_put`), so a large seed is never held whole in memory."""
    start, stop = span
    for offset in range(start, stop, chunk):
        entries = [entry(i) for i in range(offset, min(stop, offset + chunk))]
        bulk_put(workspace_id, content_type, entries, emulator=emulator)


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
