"""The list index: which index and count items an entry has, and how a write changes them.

Every entry that is not trashed has, in the content table, for each layout its type keeps
(`ContentType.write_layouts`), in its index shard (`list_keys.shard_of`):

- `A` / `@c`: every entry by createdAt, with the summary (full-token lists by createdAt, and
  what a list filtered in memory reads);
- in its visibility, `P` (published) or `D` (draft), one item per sort key: createdAt (P only:
  A serves drafts), updatedAt, publishedAt and each sortable field; an entry whose value is
  null goes to the key's null partition (`!`), ordered by id. `P` / `@c` carries the summary
  (what a read token's list filtered in memory reads);
- for each sortable field with a value, the same sort keys again in that value's `eq`
  partition (`#=<field key>:<bucket>`), so `eq` on one sortable field and a sort (or range) on
  another is one Query.

It is counted once per count, in the schema table beside its type: its visibility (`P` or
`D`), and its visibility and value for each sortable field, each in its count shard
(`list_keys.count_shard_of`).

The entry item records which items and counts it has (`listKeys`, `listCounts`). A write puts
what is new, deletes what is no longer wanted and moves the counts it leaves or joins, all in
the write's own transaction: a list never shows an entry in a place or a visibility it has
left, and a total never counts it twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service.content.items import StoredEntry, plain_value
from content_service.content.list_keys import (
    COUNT_SK,
    Visibility,
    bucket,
    count_pk,
    count_shard_of,
    index_sk,
    partition,
    shard_of,
    token,
)
from content_service.content.model import ContentType, ListLayout
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

Key = tuple[str, str]
_SYSTEM_SORTS = (("@c", "createdAt"), ("@u", "updatedAt"), ("@p", "publishedAt"))


@dataclass(frozen=True)
class IndexState:
    """The index items an entry should have (key -> carries the summary) and its counts."""

    items: dict[Key, bool]
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
    items: dict[Key, bool], content_type: ContentType, layout: ListLayout, entry: StoredEntry
) -> None:
    shard = shard_of(entry.id, layout.shards)
    visibility: Visibility = "P" if entry.status == "published" else "D"

    def part(vis: Visibility, sort: str, null: bool, eq: tuple[str, str] | None = None) -> str:
        return partition(
            entry.workspace_id,
            entry.content_type,
            entry.locale,
            vis,
            shard,
            layout.shards,
            sort,
            null=null,
            eq=eq,
        )

    items[(part("A", "@c", False), index_sk(token("timestamp", entry.created_at)[0], entry.id))] = (
        True
    )
    sorts = sort_values(content_type, layout, entry)
    eqs = [(name, bucket(value)) for name, _, value in sorts[3:] if value is not None]
    for name, kind, value in sorts:
        null = value is None
        sk = index_sk(None if null else token(kind, value)[0], entry.id)
        if not (visibility == "D" and name == "@c"):
            items[(part(visibility, name, null), sk)] = visibility == "P" and name == "@c"
        for eq in eqs:
            if eq[0] != name:
                items[(part(visibility, name, null, eq), sk)] = False


def _add_counts(
    counts: set[str], content_type: ContentType, layout: ListLayout, entry: StoredEntry
) -> None:
    visibility: Visibility = "P" if entry.status == "published" else "D"
    shard = count_shard_of(entry.id)
    ws, name, locale = entry.workspace_id, entry.content_type, entry.locale
    counts.add(count_pk(ws, name, locale, visibility, shard))
    for key, _, value in sort_values(content_type, layout, entry)[3:]:
        definition = content_type.field_by_key(key)
        if value is not None and definition is not None:
            counts.add(
                count_pk(ws, name, locale, visibility, shard, (definition.name, bucket(value)))
            )


def index_state(content_type: ContentType, entry: StoredEntry) -> IndexState:
    """What `entry` should have in the index: nothing while trashed."""
    if entry.deleted:
        return IndexState.empty()
    items: dict[Key, bool] = {}
    counts: set[str] = set()
    for layout in content_type.write_layouts:
        _add_items(items, content_type, layout, entry)
        _add_counts(counts, content_type, layout, entry)
    return IndexState(items, frozenset(counts))


def _count_update(pk: str, delta: int) -> TransactWriteItemTypeDef:
    return {
        "Update": {
            "TableName": dynamo.tables().schema,
            "Key": dynamo.key(pk, COUNT_SK),
            "UpdateExpression": "ADD #n :delta",
            "ExpressionAttributeNames": {"#n": "n"},
            "ExpressionAttributeValues": {":delta": {"N": str(delta)}},
        }
    }


def index_changes(
    old: StoredEntry | None, state: IndexState, summary: str | None, *, rewrite: bool
) -> list[TransactWriteItemTypeDef]:
    """TransactWriteItems elements taking the index from what `old` records to `state`.

    New items are put; items carrying the summary are put again when `rewrite` (the summary
    changed); items `old` has and `state` does not are deleted; counts are moved by one.
    """
    table = dynamo.tables().content
    had = set(old.list_keys) if old is not None else set()
    counted = set(old.list_counts) if old is not None else set()
    changes: list[TransactWriteItemTypeDef] = [
        {"Delete": {"TableName": table, "Key": dynamo.key(pk, sk)}}
        for pk, sk in sorted(had - state.items.keys())
    ]
    for (pk, sk), carries in sorted(state.items.items()):
        if (pk, sk) in had and not (carries and rewrite):
            continue
        item = dynamo.key(pk, sk)
        if carries and summary is not None:
            item["summary"] = {"S": summary}
        changes.append({"Put": {"TableName": table, "Item": item}})
    changes.extend(_count_update(pk, -1) for pk in sorted(counted - state.counts))
    changes.extend(_count_update(pk, +1) for pk in sorted(state.counts - counted))
    return changes


def with_state(entry: StoredEntry, state: IndexState) -> StoredEntry:
    """`entry` recording `state` as what it has."""
    return entry.with_changes(
        list_keys=tuple(sorted(state.items)), list_counts=tuple(sorted(state.counts))
    )
