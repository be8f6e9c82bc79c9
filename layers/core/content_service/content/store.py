"""Every DynamoDB request content makes, as one interface, and the one place to get it.

Like the webhook stores (`webhooks.endpoint_store`, `webhooks.outbox_store`), content reaches
its tables through an object rather than the global client, so the pieces that decide what to
read and write (the list plan and its index streams, the relation planner's expansions, write
validation, the write rules and their transactions) can run against an in-memory store in unit
tests. Production always uses `DynamoContentStore` (`content.dynamo_store`); `using(store)`
swaps it for the code it encloses, every thread.

The typed reads give items back decoded (`storage.dynamo.decode`: numbers as Decimal); keys
are `storage.dynamo.key(pk, sk)`. The list index's partitions are read by sort key only, the
keys themselves holding the sort value and the entry id (`content.lists.list_keys`). The writes and
the other Queries take DynamoDB's own request shapes, naming tables by `table_name`: the write
rules build them, the store sends them. A refused condition is `storage.dynamo`'s
`TransactionCancelled` for a transaction and False for a single write, in every store
(docs/decisions.md, D105 and D145).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Literal, Protocol

from content_service.content.dynamo_store import DynamoContentStore
from content_service.swappable import Swappable

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

Table = Literal["content", "schema"]
Named = Literal["content", "schema", "events"]
Key = Mapping[str, Any]
Paths = Sequence[Sequence[str]]
Item = dict[str, Any]
Request = Mapping[str, Any]
Raw = dict[str, Any]


class ContentStore(Protocol):
    """Strongly consistent reads of the content and schema tables, and every write content
    makes (to them and to the events and audit tables, inside its transactions)."""

    def get(self, table: Table, key: Key, paths: Paths | None = None) -> Item | None:
        """One item (projected to `paths`), or None."""
        ...

    def get_many(self, table: Table, keys: Sequence[Key], paths: Paths | None = None) -> list[Item]:
        """Every item found among `keys`, in no particular order (each key asked once)."""
        ...

    def partition(self, table: Table, pk: str, *, limit: int | None = None) -> Iterator[list[Item]]:
        """A partition's items, sort keys ascending, a page (of at most `limit`) at a time."""
        ...

    def summaries(self, pk: str) -> Iterator[list[str]]:
        """The summaries a list index partition carries (content table), a page at a time."""
        ...

    def index_keys(
        self, pk: str, lower: str | None, upper: str | None, *, limit: int
    ) -> Iterator[list[str]]:
        """Sort keys of a list index partition within inclusive bounds, ascending, read
        `limit` at a time."""
        ...

    def index_keys_descending(
        self, pk: str, lower: str | None, upper: str | None, *, limit: int
    ) -> tuple[list[str], bool]:
        """The first `limit` sort keys within inclusive bounds, descending, and whether the
        partition may hold more below them."""
        ...

    def index_count(
        self, pk: str, lower: str | None, upper: str | None, *, limit: int, budget: int
    ) -> int | None:
        """How many sort keys lie within inclusive bounds (examined `limit` at a time); None
        once more than `budget` keys were examined."""
        ...

    def table_name(self, table: Named) -> str:
        """The name a request gives `table` (its `TableName`)."""
        ...

    def query(self, request: Request) -> Iterator[list[Raw]]:
        """Every page of a Query, its items still DynamoDB-typed."""
        ...

    def query_page(self, request: Request) -> tuple[list[Raw], Raw | None]:
        """One page of a Query and its LastEvaluatedKey (None at the end)."""
        ...

    def scan(self, request: Request) -> Iterator[list[Raw]]:
        """Every page of a Scan, its items still DynamoDB-typed."""
        ...

    def transact(self, items: Sequence[TransactWriteItemTypeDef]) -> None:
        """One TransactWriteItems: all of it or, refused, nothing (`TransactionCancelled`,
        one reason per item)."""
        ...

    def update(self, request: Request) -> bool:
        """One UpdateItem; False when its ConditionExpression refused it."""
        ...

    def delete(self, request: Request) -> bool:
        """One DeleteItem; False when its ConditionExpression refused it."""
        ...

    def delete_many(self, table: Table, keys: Sequence[Key]) -> int:
        """Deletes the items at `keys` (BatchWriteItem); how many were asked."""
        ...


_current: Swappable[ContentStore] = Swappable(DynamoContentStore())


def store() -> ContentStore:
    """The content store the process reads and writes through."""
    return _current.get()


def using(replacement: ContentStore) -> AbstractContextManager[ContentStore]:
    """Reads and writes through `replacement` for the enclosed code (every thread), then
    restores."""
    return _current.using(replacement)
