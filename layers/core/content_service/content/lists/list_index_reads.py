"""Reading a page from the list index: one Query stream per partition (visibility and shard),
merged in sort order, and the page's exact total from the counts or counted within
COUNT_BUDGET index keys.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from content_service.content.lists.list_cursor import Cursor, Position
from content_service.content.lists.list_keys import AFTER_IDS, TERM, Visibility, partition
from content_service.content.lists.list_plan import Counts, Served, Sort, Want
from content_service.content.requests import (
    ListRequest,
)
from content_service.content.schema import ContentType
from content_service.content.store import store
from content_service.errors import BadRequest

# Index keys counting a range's total may examine (about ten 1 MB Query pages on DynamoDB).
COUNT_BUDGET = 100_000


def _max(a: str | None, b: str | None) -> str | None:
    return b if a is None else a if b is None else max(a, b)


def _min(a: str | None, b: str | None) -> str | None:
    return b if a is None else a if b is None else min(a, b)


def _position(sk: str, null: bool) -> Position:
    if null:
        return Position(1, "", sk)
    sort_token, _, entry_id = sk.rpartition(TERM)
    return Position(0, sort_token, entry_id)


def before(a: Position, b: Position, descending: bool) -> bool:
    """Whether `a` comes before `b` in a one-key list: values (in the sort's direction) before
    nulls, and equal values by id, ascending either way."""
    if a.phase != b.phase:
        return a.phase < b.phase
    if a.token != b.token:
        return a.token > b.token if descending else a.token < b.token
    return a.id < b.id


@dataclass
class _Stream:
    """One index partition (and its null partition) in list order, read a Query at a time.

    Ascending, DynamoDB's order is the list's (sort keys end with the id). Descending, it
    gives equal values with ids descending, so each group of equal values is turned round; a
    group a Query may have cut short is read again from its start, ascending (one more Query,
    only when a page boundary falls in a run of equal values).
    """

    value_pk: str | None
    null_pk: str | None
    lower: str | None
    upper: str | None
    descending: bool
    after: Position | None
    fetch: int
    ready: deque[Position] = field(default_factory=deque)
    more_known: bool = False
    _chunks: Iterator[list[Position]] | None = None
    _done: bool = False

    def head(self) -> Position | None:
        if self._chunks is None:
            self._chunks = self._generate()
        while not self.ready and not self._done:
            try:
                self.ready.extend(next(self._chunks))
            except StopIteration:
                self._done = True
        return self.ready[0] if self.ready else None

    def pop(self) -> Position:
        return self.ready.popleft()

    def has_more(self) -> bool:
        return bool(self.ready) or self.more_known or self.head() is not None

    def _pages(
        self, pk: str, lower: str | None, upper: str | None, null: bool
    ) -> Iterator[list[Position]]:
        if lower is not None and upper is not None and lower > upper:
            return
        for page in store().index_keys(pk, lower, upper, limit=self.fetch):
            yield [_position(sk, null) for sk in page]

    def _group(self, sort_token: str, after_id: str | None) -> Iterator[list[Position]]:
        """The entries of one value, ids ascending (after `after_id`)."""
        start = sort_token + TERM + (after_id + TERM if after_id is not None else "")
        end = sort_token + TERM + AFTER_IDS
        assert self.value_pk is not None
        yield from self._pages(
            self.value_pk, _max(self.lower, start), _min(self.upper, end), null=False
        )

    def _descending(self) -> Iterator[list[Position]]:
        assert self.value_pk is not None
        upper = self.upper
        if self.after is not None:
            yield from self._group(self.after.token, self.after.id)
            upper = _min(upper, self.after.token)  # every key below is a smaller value
        while self.lower is None or upper is None or self.lower <= upper:
            keys, more = store().index_keys_descending(
                self.value_pk, self.lower, upper, limit=self.fetch
            )
            groups: list[list[Position]] = []
            for sk in keys:
                position = _position(sk, False)
                if groups and groups[-1][0].token == position.token:
                    groups[-1].append(position)
                else:
                    groups.append([position])
            if not more or not groups:
                for group in groups:
                    yield group[::-1]
                return
            self.more_known = True
            for group in groups[:-1]:
                yield group[::-1]
            self.more_known = False
            tail = groups[-1][0].token
            yield from self._group(tail, None)
            upper = tail

    def _generate(self) -> Iterator[list[Position]]:
        after = self.after
        if self.value_pk is not None and (after is None or after.phase == 0):
            if self.descending:
                yield from self._descending()
            else:
                start = after.token + TERM + after.id + TERM if after is not None else None
                yield from self._pages(
                    self.value_pk, _max(self.lower, start), self.upper, null=False
                )
        if self.null_pk is not None:
            start = after.id + TERM if after is not None and after.phase == 1 else None
            yield from self._pages(self.null_pk, start, None, null=True)


def _merge(
    streams: Sequence[_Stream], skip: int, take: int, descending: bool
) -> tuple[list[Position], bool]:
    """The list's entries `skip` to `skip + take` across streams, and whether more follow."""
    taken: list[Position] = []
    while len(taken) < skip + take:
        best: tuple[_Stream, Position] | None = None
        for stream in streams:
            head = stream.head()
            if head is not None and (best is None or before(head, best[1], descending)):
                best = (stream, head)
        if best is None:
            break
        taken.append(best[0].pop())
    return taken[skip:], any(stream.has_more() for stream in streams)


def _has_nulls(sort: Sort, visibility: Visibility) -> bool:
    """Whether a partition can hold entries whose sort value is null (a draft's publishedAt
    always is, a published version's never)."""
    if sort.name in ("@c", "@u"):
        return False
    return not (sort.name == "@p" and visibility == "P")


def _streams(
    content_type: ContentType, request: ListRequest, served: Served, fetch: int
) -> list[_Stream]:
    scope, sort = served.scope, served.sort
    after = request.cursor.position if request.cursor is not None else None
    shards = content_type.list_layout.shards
    streams: list[_Stream] = []
    for visibility, eq in served.families:
        for shard in range(shards):

            def pk(
                null: bool,
                visibility: Visibility = visibility,
                shard: int = shard,
                eq: tuple[str, str] | None = eq,
            ) -> str:
                return partition(
                    request.workspace_id,
                    content_type.name,
                    request.locale,
                    visibility,
                    shard,
                    shards,
                    sort.name,
                    null=null,
                    eq=eq,
                )

            nulls = scope.nulls and _has_nulls(sort, visibility)
            streams.append(
                _Stream(
                    value_pk=pk(False) if scope.values else None,
                    null_pk=pk(True) if nulls else None,
                    lower=scope.lower,
                    upper=scope.upper,
                    descending=sort.descending,
                    after=after,
                    fetch=fetch,
                )
            )
    return streams


def _counted(streams: Sequence[_Stream]) -> int:
    """A range's total: every stream's keys in range, counted, within COUNT_BUDGET."""
    total = 0
    for stream in streams:
        parts = [(stream.value_pk, stream.lower, stream.upper), (stream.null_pk, None, None)]
        for pk, lower, upper in parts:
            if pk is None or (lower is not None and upper is not None and lower > upper):
                continue
            counted = store().index_count(
                pk, lower, upper, limit=COUNT_BUDGET, budget=COUNT_BUDGET - total
            )
            if counted is None:
                raise BadRequest(
                    f"filter: counting the entries in this range would examine more than "
                    f"{COUNT_BUDGET:,} index keys; narrow the range (its pages are served by "
                    "the index, the total is counted)"
                )
            total += counted
    return total


def _total(counts: Counts, served: Served, streams: Sequence[_Stream]) -> int:
    scope = served.scope
    if scope.lower is not None or scope.upper is not None or not (scope.values and scope.nulls):
        return _counted(streams)
    wants: list[Want] = []
    for visibility, eq in served.families:
        named = (scope.eq[1], scope.eq[2]) if eq is not None and scope.eq is not None else None
        wants.append((visibility, named))
    return counts.total(wants)


def from_index(
    content_type: ContentType, request: ListRequest, served: Served, counts: Counts
) -> tuple[list[str], int, str | None]:
    """Page ids, total and next cursor of a list the index serves."""
    if served.scope.empty:
        return [], 0, None
    skip = 0 if request.cursor is not None else (request.page - 1) * request.page_size
    streams = _streams(content_type, request, served, skip + request.page_size + 1)
    positions, more = _merge(streams, skip, request.page_size, served.sort.descending)
    total = _total(counts, served, streams)
    next_cursor = (
        Cursor(query=request.digest, position=positions[-1]).encode()
        if more and positions
        else None
    )
    return [p.id for p in positions], total, next_cursor
