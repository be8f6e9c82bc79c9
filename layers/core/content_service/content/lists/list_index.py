"""The list index: which index and count items an entry has, and how a write changes them.

Every entry that is not trashed has, in the content table, for each layout its type keeps
(`ContentType.write_layouts`), in its index shard (`list_keys.shard_of`), two views:

- `A` (preview): its latest version, one item per sort key: createdAt, updatedAt, publishedAt
  and each sortable field; `A` / `@c` carries the latest summary (what a preview list filtered
  in memory reads). For each of the three system sort keys, the same item again in the `eq`
  partition of its status (`#=@s:<status>`), so a preview list of one state is one Query;
- `P` (delivery), while a published version exists: that version, one item per sort key;
  `P` / `@c` carries the published summary (what a read token's list filtered in memory reads).

In both views an entry whose sort value is null goes to the key's null partition (`!`),
ordered by id, and for each sortable field with a value, the same sort keys again in that
value's `eq` partition (`#=<field key>:<bucket>`), so `eq` on one sortable field and a sort (or
range) on another is one Query.

It is counted once per count, in the schema table beside its type: in `A`, in `A` by status, in
`P` while published, and in each view by the value of each sortable field, each in its count
shard (`list_keys.count_shard_of`).

The entry item records which items and counts it has (`listKeys`, `listCounts`). A write puts
what is new, deletes what is no longer wanted and moves the counts it leaves or joins, all in
the write's own transaction: a list never shows an entry in a place or a view it has left,
and a total never counts it twice.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service.content.entries import StoredEntry, plain_value
from content_service.content.lists.list_keys import (
    COUNT_SK,
    STATUS_KEY,
    Visibility,
    bucket,
    count_pk,
    count_shard_of,
    index_sk,
    partition,
    shard_of,
    token,
)
from content_service.content.schema import ContentType, ListLayout
from content_service.content.store import store
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

Key = tuple[str, str]
_SYSTEM_SORTS = (("@c", "createdAt"), ("@u", "updatedAt"), ("@p", "publishedAt"))


@dataclass(frozen=True)
class IndexState:
    """The index items an entry should have (key -> the view whose summary it carries, or
    None) and its counts."""

    items: dict[Key, Visibility | None]
    counts: frozenset[str]

    @classmethod
    def empty(cls) -> IndexState:
        return cls({}, frozenset())


def sort_values(
    content_type: ContentType, layout: ListLayout, entry: StoredEntry
) -> list[tuple[str, str, Any]]:
    """(sort name, kind, value or None) for every sort key of the layout."""
    system = {
        "createdAt": entry.created_at,
        "updatedAt": entry.updated_at,
        "publishedAt": entry.published_at,
    }
    found: list[tuple[str, str, Any]] = [
        (name, "timestamp", system[attribute] or None) for name, attribute in _SYSTEM_SORTS
    ]
    for key in layout.sortable:
        definition = content_type.field_by_key(key)
        if definition is None or not definition.is_scalar:
            continue
        value = entry.values.get(key)
        found.append(
            (key, definition.type, None if value is None else plain_value(definition, value))
        )
    return found


def _add_items(
    items: dict[Key, Visibility | None],
    content_type: ContentType,
    layout: ListLayout,
    entry: StoredEntry,
    view: Visibility,
) -> None:
    """`entry` (the latest version for `A`, the published one for `P`) in one view."""
    shard = shard_of(entry.id, layout.shards)

    def part(sort: str, null: bool, eq: tuple[str, str] | None = None) -> str:
        return partition(
            entry.workspace_id,
            entry.content_type,
            entry.locale,
            view,
            shard,
            layout.shards,
            sort,
            null=null,
            eq=eq,
        )

    sorts = sort_values(content_type, layout, entry)
    eqs = [(name, bucket(value)) for name, _, value in sorts[3:] if value is not None]
    for name, kind, value in sorts:
        null = value is None
        sk = index_sk(None if null else token(kind, value)[0], entry.id)
        items[(part(name, null), sk)] = view if name == "@c" else None
        for eq in eqs:
            if eq[0] != name:
                items[(part(name, null, eq), sk)] = None
        if view == "A":
            items[(part(name, null, (STATUS_KEY, entry.status)), sk)] = None


def _add_counts(
    counts: set[str],
    content_type: ContentType,
    layout: ListLayout,
    entry: StoredEntry,
    view: Visibility,
) -> None:
    shard = count_shard_of(entry.id)
    ws, name, locale = entry.workspace_id, entry.content_type, entry.locale
    counts.add(count_pk(ws, name, locale, view, shard))
    if view == "A":
        counts.add(count_pk(ws, name, locale, view, shard, ("status", entry.status)))
    for key, _, value in sort_values(content_type, layout, entry)[3:]:
        definition = content_type.field_by_key(key)
        if value is not None and definition is not None:
            counts.add(count_pk(ws, name, locale, view, shard, (definition.name, bucket(value))))


def index_state(
    content_type: ContentType, latest: StoredEntry, published: StoredEntry | None
) -> IndexState:
    """What the entry should have in the index: its latest version in `A`, its published one
    (None while it has none) in `P`; nothing while trashed."""
    if latest.deleted:
        return IndexState.empty()
    items: dict[Key, Visibility | None] = {}
    counts: set[str] = set()
    views: list[tuple[StoredEntry, Visibility]] = [(latest, "A")]
    if published is not None:
        views.append((published, "P"))
    for layout in content_type.write_layouts:
        for version, view in views:
            _add_items(items, content_type, layout, version, view)
            _add_counts(counts, content_type, layout, version, view)
    return IndexState(items, frozenset(counts))


def _count_update(pk: str, delta: int) -> TransactWriteItemTypeDef:
    return {
        "Update": {
            "TableName": store().table_name("schema"),
            "Key": dynamo.key(pk, COUNT_SK),
            "UpdateExpression": "ADD #n :delta",
            "ExpressionAttributeNames": {"#n": "n"},
            "ExpressionAttributeValues": {":delta": {"N": str(delta)}},
        }
    }


def index_changes(
    old: StoredEntry | None,
    state: IndexState,
    summaries: Mapping[Visibility, str],
    rewrite: Collection[Visibility],
) -> list[TransactWriteItemTypeDef]:
    """TransactWriteItems elements taking the index from what `old` records to `state`.

    New items are put; items carrying a view's summary are put again when that view is in
    `rewrite` (its summary changed); items `old` has and `state` does not are deleted; counts
    are moved by one.
    """
    table = store().table_name("content")
    had = set(old.list_keys) if old is not None else set()
    counted = set(old.list_counts) if old is not None else set()
    changes: list[TransactWriteItemTypeDef] = [
        {"Delete": {"TableName": table, "Key": dynamo.key(pk, sk)}}
        for pk, sk in sorted(had - state.items.keys())
    ]
    for (pk, sk), carries in sorted(state.items.items()):
        if (pk, sk) in had and not (carries is not None and carries in rewrite):
            continue
        item = dynamo.key(pk, sk)
        if carries is not None and carries in summaries:
            item["summary"] = {"S": summaries[carries]}
        changes.append({"Put": {"TableName": table, "Item": item}})
    changes.extend(_count_update(pk, -1) for pk in sorted(counted - state.counts))
    changes.extend(_count_update(pk, +1) for pk in sorted(state.counts - counted))
    return changes


def with_state(entry: StoredEntry, state: IndexState) -> StoredEntry:
    """`entry` recording `state` as what it has."""
    return entry.with_changes(
        list_keys=tuple(sorted(state.items)), list_counts=tuple(sorted(state.counts))
    )
