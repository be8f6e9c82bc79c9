"""The reads content makes of its two tables, as one interface, and the one place to get it.

Like the webhook stores (`webhooks.endpoint_store`, `webhooks.outbox_store`), the content reads
go through an object rather than the global client, so the pieces that decide what to read
(the list plan and its index streams, the relation planner's expansions, write validation)
can run against an in-memory store in unit tests. Production always uses `DynamoContentStore`
(`content.dynamo_store`); `using(store)` swaps it for the code it encloses, every thread.

Items come back decoded (`storage.dynamo.decode`: numbers as Decimal); keys are
`storage.dynamo.key(pk, sk)`. The list index's partitions are read by sort key only, the
keys themselves holding the sort value and the entry id (`content.list_keys`).

Writes (every TransactWriteItems) and the background jobs still call `storage.dynamo`
directly: docs/decisions.md, D105, says what this interface covers.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

from content_service.content.dynamo_store import DynamoContentStore
from content_service.swappable import Swappable

Table = Literal["content", "schema"]
Key = Mapping[str, Any]
Paths = Sequence[Sequence[str]]
Item = dict[str, Any]


class ContentStore(Protocol):
    """Strongly consistent reads of the content and schema tables."""

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


_current: Swappable[ContentStore] = Swappable(DynamoContentStore())


def store() -> ContentStore:
    """The content store the process reads through."""
    return _current.get()


def using(replacement: ContentStore) -> AbstractContextManager[ContentStore]:
    """Reads through `replacement` for the enclosed code (every thread), then restores."""
    return _current.using(replacement)
