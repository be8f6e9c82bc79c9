"""An in-memory content store (`content.store.ContentStore`) and what fills it, for unit tests.

It holds the items the entry and schema writers would have written: `add_type` stores a type
as `schema.type_from_item` reads it, `add_entry` stores an entry item, its published item, the
list index items (`list_index.index_state`, summaries on the `@c` items) and the counts, every
item passed through `storage.dynamo`'s codec as DynamoDB would store it. Reads follow
DynamoDB's rules the content code relies on: strongly consistent, sort keys in byte order,
projections keep only the named paths, a Query page that stops at its limit says more may
follow. `calls` records each read (operation, and table where it names one), so a test can tell
how a list was read and how many rounds an expansion took.

Writes take DynamoDB's request shapes, the tables named by their role (`table_name("content")`
is "content"; the audit records' table keeps its configured name) and keyed as on AWS (`pk`,
`sk`; events by `id`). A transaction checks every condition first and writes all or nothing,
refused as DynamoDB refuses it (`storage.dynamo.TransactionCancelled`, one reason per item); it
refuses, as DynamoDB does, more than 100 items or two on one item. Conditions and updates are
evaluated by `tests.support.dynamo_expressions`, which raises on anything it does not know.
Raw Queries and Scans (the background jobs, schedules, version history) are not served.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from content_service.content.entries import StoredEntry, entry_item, published_item, summary_text
from content_service.content.lists import COUNT_SK, index_state, with_state
from content_service.content.schema import TYPE_SK_PREFIX, ContentType, workspace_pk
from content_service.content.store import Item, Key, Named, Paths, Raw, Request, Table
from content_service.storage import dynamo
from tests.support.dynamo_expressions import Unsupported, apply_update, holds

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

RowKey = tuple[str, ...]
_KEY_ATTRIBUTES: dict[str, tuple[str, ...]] = {"events": ("id",)}


def _stored(item: Mapping[str, Any]) -> Item:
    """`item` as a read gives it back: encoded and decoded (numbers as Decimal)."""
    return dynamo.decode(dynamo.encode(item))


def _project(item: Item, paths: Paths | None) -> Item:
    if paths is None:
        return copy.deepcopy(item)
    found: Item = {}
    for path in paths:
        value: Any = item
        for segment in path:
            if not isinstance(value, Mapping) or segment not in value:
                break
            value = value[segment]
        else:
            target = found
            for segment in path[:-1]:
                target = target.setdefault(segment, {})
            target[path[-1]] = copy.deepcopy(value)
    return found


def _within(sk: str, lower: str | None, upper: str | None) -> bool:
    return (lower is None or sk >= lower) and (upper is None or sk <= upper)


def type_item(content_type: ContentType) -> dict[str, Any]:
    """A content type as the schema table holds it."""
    item: dict[str, Any] = {
        "pk": workspace_pk(content_type.workspace_id),
        "sk": f"{TYPE_SK_PREFIX}{content_type.name}",
        "entity": "content_type",
        "name": content_type.name,
        "typeKind": content_type.kind,
        "localized": content_type.localized,
        "audienceGated": content_type.audience_gated,
        "titleField": content_type.title_field,
        "fields": [f.to_storage() for f in content_type.fields],
        "listShards": content_type.list_shards,
        "revision": content_type.revision,
        "fieldSeq": content_type.field_seq,
        "entryCount": content_type.entry_count,
        "listLayout": content_type.list_layout.to_storage(),
        "listGen": content_type.list_gen,
        "createdAt": content_type.created_at,
        "updatedAt": content_type.updated_at,
    }
    if content_type.list_next is not None:
        item["listNext"] = content_type.list_next.to_storage()
    if content_type.locales:
        item["locales"] = sorted(content_type.locales)
    return item


def _row_key(table: str, key: Mapping[str, Any]) -> RowKey:
    """The key of an item (decoded) or of a request's `Key` (DynamoDB-typed)."""
    found = []
    for name in _KEY_ATTRIBUTES.get(table, ("pk", "sk")):
        value = key[name]
        found.append(str(value["S"] if isinstance(value, Mapping) else value))
    return tuple(found)


def _parts(item: TransactWriteItemTypeDef) -> list[tuple[str, Request]]:
    """A transaction element's one operation (`Put`, `Update`, `Delete`, `ConditionCheck`)."""
    parts: Mapping[str, Any] = item
    return [(str(kind), request) for kind, request in parts.items()]


@dataclass(frozen=True)
class _Write:
    """One write (or condition check) of a request: its kind, table, item key and request."""

    kind: str
    table: str
    key: RowKey
    request: Request

    @classmethod
    def of(cls, kind: str, request: Request) -> _Write:
        table = str(request["TableName"])
        item = dynamo.decode(request["Item"]) if kind == "Put" else request["Key"]
        return cls(kind, table, _row_key(table, item), request)


@dataclass
class InMemoryContentStore:
    """Every table as a dictionary of items by key ((pk, sk); (id,) for events)."""

    tables: dict[str, dict[RowKey, Item]] = field(default_factory=lambda: defaultdict(dict))
    calls: list[str] = field(default_factory=list)

    # -- filling ---------------------------------------------------------------------------

    def put(self, table: Table, item: Mapping[str, Any]) -> None:
        self.tables[table][(str(item["pk"]), str(item["sk"]))] = _stored(item)

    def add_type(self, content_type: ContentType) -> None:
        """The type's item, its locales a string set as DynamoDB keeps them (`ADD locales`)."""
        item = type_item(content_type)
        self.put("schema", item)
        stored = self.tables["schema"][(item["pk"], item["sk"])]
        if "locales" in stored:
            stored["locales"] = set(stored["locales"])

    def add_entry(
        self, content_type: ContentType, entry: StoredEntry, published: StoredEntry | None = None
    ) -> None:
        """`entry` (its latest version) and `published` (its published version, if any) with
        the index items and counts an entry write leaves behind."""
        state = index_state(content_type, entry, published)
        self.put("content", entry_item(content_type, with_state(entry, state)))
        summaries = {"A": summary_text(content_type, entry)}
        if published is not None:
            self.put("content", published_item(published))
            summaries["P"] = summary_text(content_type, published)
        for (pk, sk), carries in state.items.items():
            index: dict[str, Any] = {"pk": pk, "sk": sk}
            if carries is not None:
                index["summary"] = summaries[carries]
            self.put("content", index)
        for pk in state.counts:
            count = self.tables["schema"].get((pk, COUNT_SK), {"pk": pk, "sk": COUNT_SK, "n": 0})
            self.put("schema", {**count, "n": int(count["n"]) + 1})

    # -- ContentStore ----------------------------------------------------------------------

    def get(self, table: Table, key: Key, paths: Paths | None = None) -> Item | None:
        self.calls.append(f"get {table}")
        found = self.tables[table].get((key["pk"]["S"], key["sk"]["S"]))
        return None if found is None else _project(found, paths)

    def get_many(self, table: Table, keys: Sequence[Key], paths: Paths | None = None) -> list[Item]:
        self.calls.append(f"get_many {table}")
        wanted = dict.fromkeys((k["pk"]["S"], k["sk"]["S"]) for k in keys)
        rows = self.tables[table]
        return [_project(rows[k], paths) for k in wanted if k in rows]

    def _sorted(self, table: Table, pk: str) -> list[tuple[str, Item]]:
        return sorted((sk, item) for (p, sk), item in self.tables[table].items() if p == pk)

    def partition(self, table: Table, pk: str, *, limit: int | None = None) -> Iterator[list[Item]]:
        self.calls.append(f"partition {table}")
        items = [copy.deepcopy(item) for _, item in self._sorted(table, pk)]
        step = limit or max(1, len(items))
        for start in range(0, max(1, len(items)), step):
            yield items[start : start + step]

    def summaries(self, pk: str) -> Iterator[list[str]]:
        self.calls.append("summaries")
        yield [str(item["summary"]) for _, item in self._sorted("content", pk) if "summary" in item]

    def _keys(self, pk: str, lower: str | None, upper: str | None) -> list[str]:
        return [sk for sk, _ in self._sorted("content", pk) if _within(sk, lower, upper)]

    def index_keys(
        self, pk: str, lower: str | None, upper: str | None, *, limit: int
    ) -> Iterator[list[str]]:
        self.calls.append("index_keys")
        keys = self._keys(pk, lower, upper)
        for start in range(0, max(1, len(keys)), limit):
            yield keys[start : start + limit]

    def index_keys_descending(
        self, pk: str, lower: str | None, upper: str | None, *, limit: int
    ) -> tuple[list[str], bool]:
        self.calls.append("index_keys_descending")
        keys = self._keys(pk, lower, upper)[::-1]
        return keys[:limit], len(keys) >= limit

    def index_count(
        self, pk: str, lower: str | None, upper: str | None, *, limit: int, budget: int
    ) -> int | None:
        self.calls.append("index_count")
        counted = len(self._keys(pk, lower, upper))
        return None if counted > budget else counted

    # -- writes ----------------------------------------------------------------------------

    def table_name(self, table: Named) -> str:
        return table

    def query(self, request: Request) -> Iterator[list[Raw]]:
        raise Unsupported(f"the in-memory store runs no raw Query ({request.get('TableName')})")

    def query_page(self, request: Request) -> tuple[list[Raw], Raw | None]:
        raise Unsupported(f"the in-memory store runs no raw Query ({request.get('TableName')})")

    def scan(self, request: Request) -> Iterator[list[Raw]]:
        raise Unsupported(f"the in-memory store runs no Scan ({request.get('TableName')})")

    def _holds(self, write: _Write) -> bool:
        request = write.request
        return holds(
            request.get("ConditionExpression"),
            self.tables[write.table].get(write.key, {}),
            request.get("ExpressionAttributeNames", {}),
            dynamo.decode(request.get("ExpressionAttributeValues", {})),
        )

    def _apply(self, write: _Write) -> None:
        rows, request = self.tables[write.table], write.request
        if write.kind == "Put":
            rows[write.key] = dynamo.decode(request["Item"])
        elif write.kind == "Delete":
            rows.pop(write.key, None)
        elif write.kind == "Update":
            item = rows.get(write.key) or dynamo.decode(request["Key"])
            names = request.get("ExpressionAttributeNames", {})
            values = dynamo.decode(request.get("ExpressionAttributeValues", {}))
            apply_update(request["UpdateExpression"], item, names, values)
            rows[write.key] = item

    def transact(self, items: Sequence[TransactWriteItemTypeDef]) -> None:
        if not items:
            return
        if len(items) > dynamo.TRANSACT_LIMIT:
            raise ValueError(f"DynamoDB refuses a transaction of {len(items)} items")
        writes = [_Write.of(kind, request) for item in items for kind, request in _parts(item)]
        touched = [(write.table, write.key) for write in writes]
        if len(set(touched)) != len(touched):
            raise ValueError("DynamoDB refuses a transaction with two operations on one item")
        reasons = ["None" if self._holds(w) else "ConditionalCheckFailed" for w in writes]
        self.calls.append("transact")
        if "ConditionalCheckFailed" in reasons:
            raise dynamo.TransactionCancelled(reasons)
        for write in writes:
            self._apply(write)

    def _single(self, kind: str, request: Request) -> bool:
        write = _Write.of(kind, request)
        self.calls.append(f"{kind.lower()} {write.table}")
        if not self._holds(write):
            return False
        self._apply(write)
        return True

    def update(self, request: Request) -> bool:
        return self._single("Update", request)

    def delete(self, request: Request) -> bool:
        return self._single("Delete", request)

    def delete_many(self, table: Table, keys: Sequence[Key]) -> int:
        self.calls.append(f"delete_many {table}")
        for key in keys:
            self.tables[table].pop(_row_key(table, key), None)
        return len(keys)
