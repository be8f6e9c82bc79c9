"""Lists: a page of one content type's entries, the exact total, and the next page's cursor.

A list (REST or GraphQL) runs (`docs/content.md`, "Lists", has the figures):

1. one BatchGetItem (schema table) of the content type and the count shards its total may
   need, named from the request alone: the visibilities the caller sees, and each root `eq`
   of the filter;
2. a plan. When the sort is one key the list index holds (createdAt, updatedAt, publishedAt or
   a sortable field whose index is ready) and the filter is an `and` of `eq`, range and
   `isNull` on that key, `eq` on one other sortable field and `eq` on `status`, the page comes
   from the index: one Query per partition (visibility and shard), merged, reading a page and
   one more. The total is the counts' sum; with a range it is counted (`Select=COUNT`, within
   COUNT_BUDGET index keys). Anything else (other filters, `or`, several sort keys, an
   audience-gated type read by a token) reads the summaries of the type's entries and
   filters and sorts them in memory, within READ_BUDGET entries: beyond it the list is
   refused with a 400 that names the field to mark sortable, before anything is read;
3. one BatchGetItem of the page's entries, projected to the selected fields;
4. expansions, one BatchGetItem round per level (`content.reads`).

A filter pinning `id` or `localeGroupId` with `eq` skips all of it: a key lookup.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from content_service.content.items import (
    STATUSES,
    StoredEntry,
    Summary,
    from_item,
    group_claim_key,
    projection_paths,
    summary_from,
    summary_of,
)
from content_service.content.list_cursor import Cursor, Position
from content_service.content.list_keys import (
    AFTER_IDS,
    COUNT_SK,
    STATUS_KEY,
    SYSTEM_SORT_KEYS,
    TERM,
    Visibility,
    bucket,
    count_pks,
    partition,
    token,
)
from content_service.content.model import ContentType
from content_service.content.query import (
    DEFAULT_SORT,
    SYSTEM_FILTER_FIELDS,
    Selection,
    check_sort,
    compile_filter,
    direct_address,
    leaf_value,
    select,
    sort_operand,
    sort_summaries,
)
from content_service.content.reads import (
    fetch_entries,
    fetch_one,
    stored_visible,
    summary_visible,
    views,
)
from content_service.content.requests import (
    FilterLeaf,
    FilterNode,
    ListRequest,
    SortKey,
    is_entry_id,
)
from content_service.content.schema import require_type_with
from content_service.content.views import EntryPage
from content_service.errors import BadRequest
from content_service.identity.principal import TokenCaller
from content_service.storage import dynamo

# Entries a list sorted or filtered in memory may read (about 3.3 MB of summaries).
READ_BUDGET = 10_000
# Index keys counting a range's total may examine (about ten 1 MB Query pages on DynamoDB).
COUNT_BUDGET = 100_000
# Root `eq` conditions whose counts are read with the type, in case they are served.
_EQ_GUESSES = 3
_RANGE_OPS = frozenset({"eq", "lt", "lte", "gt", "gte"})

# A count: (visibility, (field name, bucket) for an `eq` partition or None).
Want = tuple[Visibility, tuple[str, str] | None]


# ---------------------------------------------------------------------------------------------
# The type and the counts, in one request


def _root_leaves(node: FilterNode | None) -> list[FilterLeaf] | None:
    """The conditions of a filter that is one leaf or an `and` of leaves (nested `and`s
    flattened); None when an `or` is anywhere in it."""
    if node is None:
        return []
    if isinstance(node, FilterLeaf):
        return [node]
    if node.op == "or":
        return None
    leaves: list[FilterLeaf] = []
    for child in node.children:
        found = _root_leaves(child)
        if found is None:
            return None
        leaves.extend(found)
    return leaves


def family(request: ListRequest) -> Visibility:
    """The index view a list reads: `A` (latest versions) or `P` (published versions)."""
    return "P" if request.view == "published" else "A"


def _wants(request: ListRequest) -> list[Want]:
    view = family(request)
    wants: list[Want] = [(view, None)]
    leaves = _root_leaves(request.filter) or []
    guesses = [
        leaf
        for leaf in leaves
        if leaf.op == "eq"
        and leaf.field not in SYSTEM_FILTER_FIELDS
        and isinstance(leaf.value, str | int | float | bool)
    ]
    for leaf in guesses[:_EQ_GUESSES]:
        wants.append((view, (leaf.field, bucket(leaf.value))))
    if view == "A":
        wants.extend(
            (view, ("status", leaf.value))
            for leaf in leaves
            if leaf.field == "status" and leaf.op == "eq" and leaf.value in STATUSES
        )
    return list(dict.fromkeys(wants))


def _count_keys(request: ListRequest, wants: Sequence[Want]) -> dict[str, Want]:
    keys: dict[str, Want] = {}
    for want in wants:
        for pk in count_pks(
            request.workspace_id, request.content_type, request.locale, want[0], want[1]
        ):
            keys[pk] = want
    return keys


def _sum_counts(keys: Mapping[str, Want], items: Sequence[Mapping[str, Any]]) -> dict[Want, int]:
    sums: dict[Want, int] = dict.fromkeys(keys.values(), 0)
    for item in items:
        want = keys.get(str(item.get("pk", "")))
        if want is not None:
            sums[want] += int(item.get("n", 0))
    return sums


@dataclass
class _Counts:
    """Count sums by want; a want not read with the type is read when first asked for."""

    request: ListRequest
    sums: dict[Want, int]

    def total(self, wants: Sequence[Want]) -> int:
        missing = [w for w in wants if w not in self.sums]
        if missing:
            keys = _count_keys(self.request, missing)
            found = dynamo.batch_get(
                dynamo.tables().schema, [dynamo.key(pk, COUNT_SK) for pk in keys]
            )
            self.sums.update(_sum_counts(keys, found))
        return sum(self.sums[w] for w in wants)


# ---------------------------------------------------------------------------------------------
# The plan


@dataclass
class _Scope:
    """What the conditions of a served list add up to."""

    visibilities: set[Visibility]
    lower: str | None = None
    upper: str | None = None
    values: bool = True
    nulls: bool = True
    eq: tuple[str, str, str] | None = None
    """(field key, field name, bucket) of the `eq` on another sortable field."""
    reasons: list[str] = field(default_factory=list)
    mark: list[str] = field(default_factory=list)
    """Fields that, marked sortable, would let the index serve the list."""

    def bound(self, lower: str | None, upper: str | None) -> None:
        self.nulls = False
        if lower is not None and (self.lower is None or lower > self.lower):
            self.lower = lower
        if upper is not None and (self.upper is None or upper < self.upper):
            self.upper = upper

    @property
    def empty(self) -> bool:
        if not self.visibilities or not (self.values or self.nulls):
            return True
        return self.lower is not None and self.upper is not None and self.lower > self.upper


@dataclass(frozen=True)
class _Sort:
    name: str
    """Partition sort name: `@c`, `@u`, `@p` or a field key."""
    kind: str
    field: str
    descending: bool


@dataclass(frozen=True)
class _Served:
    sort: _Sort
    scope: _Scope
    families: tuple[tuple[Visibility, tuple[str, str] | None], ...]


def _sort_of(
    content_type: ContentType, keys: tuple[SortKey, ...], scope: _Scope
) -> tuple[_Sort, bool]:
    """The first sort key, and whether the index can serve the sort (reasons if not)."""
    servable = True
    if len(keys) > 1:
        scope.reasons.append("sort: more than one key is sorted in memory")
        servable = False
    key = keys[0]
    if key.field in SYSTEM_SORT_KEYS:
        name = SYSTEM_SORT_KEYS[key.field]
        return _Sort(name, "timestamp", key.field, key.descending), servable
    definition = content_type.field(key.field)
    if definition is None or not definition.is_scalar:  # `id`: ties are broken by it anyway
        scope.reasons.append(f"sort: `{key.field}` is sorted in memory")
        return _Sort(key.field, "id", key.field, key.descending), False
    if not content_type.list_ready(definition):
        building = " (its index is still being built)" if definition.sortable else ""
        scope.reasons.append(f"sort: `{key.field}` is not sortable{building}")
        scope.mark.append(key.field)
        servable = False
    return _Sort(definition.key, definition.type, key.field, key.descending), servable


def _bound_leaf(content_type: ContentType, sort: _Sort, leaf: FilterLeaf, scope: _Scope) -> None:
    """A condition on the sort key: a key range, or one of its two phases."""
    if leaf.op == "isNull":
        if leaf.value:
            scope.values = False
        else:
            scope.nulls = False
        return
    if leaf.op not in _RANGE_OPS:
        scope.reasons.append(f"filter: `{leaf.op}` on `{leaf.field}`")
        return
    value, exact = token(sort.kind, leaf_value(content_type, leaf))
    if not exact:
        scope.reasons.append(f"filter: the value for `{leaf.field}` is longer than keys hold")
        return
    last = value + TERM + AFTER_IDS
    bounds = {
        "eq": (value, last),
        "gt": (last, None),
        "gte": (value, None),
        "lt": (None, value),
        "lte": (None, last),
    }
    scope.bound(*bounds[leaf.op])


def _status_leaf(leaf: FilterLeaf, scope: _Scope) -> None:
    """`eq` on the status: in the delivery view everything is published; in the preview, the
    status's `eq` partitions."""
    if leaf.op != "eq":
        scope.reasons.append(f"filter: `{leaf.op}` on `status`")
        return
    if scope.visibilities == {"P"}:
        if leaf.value != "published":
            scope.visibilities = set()
        return
    if scope.eq is not None and scope.eq[1] != "status":
        scope.reasons.append(f"filter: `eq` on `status` beside `eq` on `{scope.eq[1]}`")
        return
    if scope.eq is not None and scope.eq[2] != leaf.value:
        scope.visibilities = set()  # two different states: nothing matches
    scope.eq = (STATUS_KEY, "status", str(leaf.value))


def _eq_leaf(content_type: ContentType, leaf: FilterLeaf, scope: _Scope) -> None:
    """`eq` on a field other than the sort key: served by its `eq` partitions if sortable."""
    definition = content_type.field(leaf.field)
    if definition is None or not content_type.list_ready(definition):
        building = (
            " (its index is still being built)"
            if definition is not None and definition.sortable
            else ""
        )
        scope.reasons.append(f"filter: `eq` on `{leaf.field}`, which is not sortable{building}")
        scope.mark.append(leaf.field)
        return
    if scope.eq is not None and scope.eq[1] != leaf.field:
        scope.reasons.append(
            f"filter: `eq` on `{leaf.field}` beside `eq` on `{scope.eq[1]}` (one is served)"
        )
        return
    value = bucket(leaf_value(content_type, leaf))
    if scope.eq is not None and scope.eq[2] != value:
        scope.visibilities = set()  # two different values: nothing matches
    scope.eq = (definition.key, definition.name, value)


def _leaf(content_type: ContentType, sort: _Sort, leaf: FilterLeaf, scope: _Scope) -> None:
    if leaf.field == sort.field:
        _bound_leaf(content_type, sort, leaf, scope)
    elif leaf.field == "status":
        _status_leaf(leaf, scope)
    elif leaf.op == "eq" and leaf.field not in SYSTEM_FILTER_FIELDS:
        _eq_leaf(content_type, leaf, scope)
    else:
        definition = content_type.field(leaf.field)
        scope.reasons.append(
            f"filter: `{leaf.op}` on `{leaf.field}` while sorting by `{sort.field}`"
        )
        if definition is not None and definition.is_scalar and leaf.op in _RANGE_OPS:
            scope.mark.append(leaf.field)


def _families(scope: _Scope) -> tuple[tuple[Visibility, tuple[str, str] | None], ...]:
    eq = (scope.eq[0], scope.eq[2]) if scope.eq is not None else None
    return tuple((v, eq) for v in sorted(scope.visibilities))


def plan(content_type: ContentType, request: ListRequest) -> _Served | _Scope:
    """How the list is read: `_Served` by the index, or the `_Scope` whose reasons say why it
    is sorted and filtered in memory."""
    scope = _Scope(visibilities={family(request)})
    if content_type.audience_gated and isinstance(request.caller, TokenCaller):
        scope.reasons.append("the type is audience-gated: a token's entries are picked in memory")
    sort, servable = _sort_of(content_type, request.sort or DEFAULT_SORT, scope)
    leaves = _root_leaves(request.filter)
    if leaves is None:
        scope.reasons.append("filter: `or` is evaluated in memory")
    for leaf in leaves or ():  # every reason, and every field worth marking, is named
        _leaf(content_type, sort, leaf, scope)
    if not servable or leaves is None or scope.reasons:
        return scope
    return _Served(sort=sort, scope=scope, families=_families(scope))


# ---------------------------------------------------------------------------------------------
# Reading the index


def _query(
    pk: str,
    lower: str | None,
    upper: str | None,
    *,
    forward: bool,
    limit: int,
    count: bool = False,
) -> dict[str, Any]:
    """A strongly consistent Query of one partition between inclusive sort-key bounds, of the
    keys (or, `count`, of their number)."""
    condition = "#pk = :pk"
    values: dict[str, Any] = {":pk": {"S": pk}}
    if lower is not None and upper is not None:
        condition += " AND #sk BETWEEN :lo AND :hi"
    elif lower is not None:
        condition += " AND #sk >= :lo"
    elif upper is not None:
        condition += " AND #sk <= :hi"
    if lower is not None:
        values[":lo"] = {"S": lower}
    if upper is not None:
        values[":hi"] = {"S": upper}
    request: dict[str, Any] = {
        "TableName": dynamo.tables().content,
        "KeyConditionExpression": condition,
        "ExpressionAttributeNames": {"#pk": "pk", "#sk": "sk"},
        "ExpressionAttributeValues": values,
        "ScanIndexForward": forward,
        "Limit": limit,
        "ConsistentRead": True,
    }
    if not count:
        request["ProjectionExpression"] = "#sk"
    elif lower is None and upper is None:
        del request["ExpressionAttributeNames"]["#sk"]
    return request


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
        request = _query(pk, lower, upper, forward=True, limit=self.fetch)
        for raw in dynamo.query_pages(request):
            yield [_position(item["sk"]["S"], null) for item in raw]

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
            request = _query(self.value_pk, self.lower, upper, forward=False, limit=self.fetch)
            raw, last = dynamo.query_page(request)
            groups: list[list[Position]] = []
            for item in raw:
                position = _position(item["sk"]["S"], False)
                if groups and groups[-1][0].token == position.token:
                    groups[-1].append(position)
                else:
                    groups.append([position])
            if last is None or not groups:
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


def _has_nulls(sort: _Sort, visibility: Visibility) -> bool:
    """Whether a partition can hold entries whose sort value is null (a draft's publishedAt
    always is, a published version's never)."""
    if sort.name in ("@c", "@u"):
        return False
    return not (sort.name == "@p" and visibility == "P")


def _streams(
    content_type: ContentType, request: ListRequest, served: _Served, fetch: int
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
            request = _query(pk, lower, upper, forward=True, limit=COUNT_BUDGET, count=True)
            counted = dynamo.query_count(request, COUNT_BUDGET - total)
            if counted is None:
                raise BadRequest(
                    f"filter: counting the entries in this range would examine more than "
                    f"{COUNT_BUDGET:,} index keys; narrow the range (its pages are served by "
                    "the index, the total is counted)"
                )
            total += counted
    return total


def _total(counts: _Counts, served: _Served, streams: Sequence[_Stream]) -> int:
    scope = served.scope
    if scope.lower is not None or scope.upper is not None or not (scope.values and scope.nulls):
        return _counted(streams)
    wants: list[Want] = []
    for visibility, eq in served.families:
        named = (scope.eq[1], scope.eq[2]) if eq is not None and scope.eq is not None else None
        wants.append((visibility, named))
    return counts.total(wants)


def _from_index(
    content_type: ContentType, request: ListRequest, served: _Served, counts: _Counts
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


# ---------------------------------------------------------------------------------------------
# Sorting and filtering in memory


def _over_budget(content_type: ContentType, readable: int, scope: _Scope) -> BadRequest:
    reasons = "; ".join(scope.reasons)
    message = (
        f"this list is filtered and sorted in memory ({reasons}) and would read "
        f"{readable:,} entries, over the read budget of {READ_BUDGET:,} per request. "
    )
    mark = list(dict.fromkeys(scope.mark))
    if mark:
        names = ", ".join(f"`{m}`" for m in mark)
        message += (
            f"Mark {names} sortable on content type `{content_type.name}` "
            f'(`"sortable": true` on the field, PUT /api/v1/content-types/{content_type.name}), '
            "then sort by it or filter it with eq or a range."
        )
    else:
        message += "Sort by one sortable field and filter with eq on another sortable field."
    details: list[dict[str, str]] = [
        {"location": reason.split(":", 1)[0], "problem": reason} for reason in scope.reasons
    ]
    details.extend({"location": "sortable", "problem": f"mark `{m}` sortable"} for m in mark)
    return BadRequest(message, details=details)


def _summaries(content_type: ContentType, request: ListRequest, view: Visibility) -> list[Summary]:
    summaries: list[Summary] = []
    shards = content_type.list_layout.shards
    for shard in range(shards):
        pk = partition(
            request.workspace_id, content_type.name, request.locale, view, shard, shards, "@c"
        )
        for page in dynamo.query_pages(
            {
                "TableName": dynamo.tables().content,
                "KeyConditionExpression": "#pk = :pk",
                "ExpressionAttributeNames": {"#pk": "pk", "#s": "summary"},
                "ExpressionAttributeValues": {":pk": {"S": pk}},
                "ProjectionExpression": "#s",
                "ConsistentRead": True,
            }
        ):
            summaries.extend(summary_from(raw["summary"]["S"]) for raw in page if "summary" in raw)
    return summaries


def _compare_values(a: Sequence[Any], b: Sequence[Any], descending: Sequence[bool]) -> int:
    """Sort-value tuples compared as `sort_summaries` orders them (nulls last either way)."""
    for x, y, desc in zip(a, b, descending, strict=False):
        if x is None or y is None:
            if (x is None) != (y is None):
                return 1 if x is None else -1
            continue
        try:
            if x != y:
                less = x < y
                return (1 if less else -1) if desc else (-1 if less else 1)
        except TypeError:
            continue
    return 0


def _start(
    content_type: ContentType,
    request: ListRequest,
    ordered: Sequence[Summary],
    keys: tuple[SortKey, ...],
) -> int:
    """Where the page starts in the sorted summaries: after the cursor, or at the offset."""
    cursor = request.cursor
    if cursor is None:
        return (request.page - 1) * request.page_size
    operands = [sort_operand(content_type, k) for k in keys]
    if cursor.position is not None:
        if len(keys) != 1:
            raise BadRequest("cursor: not a cursor this API returned")
        kind, get = operands[0]
        for index, summary in enumerate(ordered):
            if before(cursor.position, _summary_position(kind, get, summary), keys[0].descending):
                return index
        return len(ordered)
    wanted = list(cursor.values or ())
    descending = [k.descending for k in keys]
    for index, summary in enumerate(ordered):
        mine = [get(summary) for _, get in operands]
        order = _compare_values(mine, wanted, descending)
        if order > 0 or (order == 0 and summary.id > cursor.id):
            return index
    return len(ordered)


def _summary_position(kind: str, get: Any, summary: Summary) -> Position:
    value = get(summary)
    if value is None:
        return Position(1, "", summary.id)
    return Position(0, token(kind, value)[0], summary.id)


def _cursor_after(
    content_type: ContentType, request: ListRequest, keys: tuple[SortKey, ...], last: Summary
) -> str:
    operands = [sort_operand(content_type, k) for k in keys]
    if len(keys) == 1:
        kind, get = operands[0]
        return Cursor(query=request.digest, position=_summary_position(kind, get, last)).encode()
    values = tuple(get(last) for _, get in operands)
    return Cursor(query=request.digest, values=values, id=last.id).encode()


def _in_memory(
    content_type: ContentType, request: ListRequest, scope: _Scope, counts: _Counts
) -> tuple[list[str], int, str | None]:
    """Page ids, total and next cursor of a list sorted and filtered in memory."""
    caller, view = request.caller, family(request)
    readable = counts.total([(view, None)])
    if readable > READ_BUDGET:
        raise _over_budget(content_type, readable, scope)
    predicate = compile_filter(content_type, request.filter)
    matched = [
        s
        for s in _summaries(content_type, request, view)
        if summary_visible(caller, content_type, s, request.view) and predicate(s)
    ]
    keys = request.sort or DEFAULT_SORT
    ordered = sort_summaries(content_type, matched, keys)
    start = _start(content_type, request, ordered, keys)
    page = ordered[start : start + request.page_size]
    more = start + request.page_size < len(ordered)
    next_cursor = _cursor_after(content_type, request, keys, page[-1]) if more and page else None
    return [s.id for s in page], len(ordered), next_cursor


# ---------------------------------------------------------------------------------------------
# The service function


def _addressed(
    request: ListRequest, content_type: ContentType, address: tuple[str, str], selection: Selection
) -> tuple[list[Summary], dict[str, StoredEntry]]:
    """The one record an `id`/`localeGroupId` `eq` filter names: a key lookup, never a scan.
    It reads the selection plus the scalar values the filter may test (never text, rich text
    or json that is not selected)."""
    field_name, value = address
    entry_id: str | None = value
    if field_name == "localeGroupId":
        if not is_entry_id(value):
            return [], {}
        claim = dynamo.get_item(
            dynamo.tables().content, group_claim_key(request.workspace_id, value, request.locale)
        )
        entry_id = str(claim["entryId"]) if claim else None
    if entry_id is None:
        return [], {}
    chosen = selection.value_keys
    scalars = (f.key for f in content_type.scalar_fields)
    value_keys = None if chosen is None else tuple(dict.fromkeys((*chosen, *scalars)))
    paths = projection_paths(value_keys, selection.link_keys)
    item = fetch_one(request.workspace_id, entry_id, paths, request.view)
    if not item or item.get("contentType") != content_type.name:
        return [], {}
    stored = from_item(request.workspace_id, item)
    return [summary_from(summary_of(content_type, stored))], {stored.id: stored}


def _addressed_page(
    request: ListRequest, content_type: ContentType, address: tuple[str, str], selection: Selection
) -> EntryPage:
    candidates, fetched = _addressed(request, content_type, address, selection)
    predicate = compile_filter(content_type, request.filter)
    matched = [
        s
        for s in candidates
        if s.locale == request.locale
        and summary_visible(request.caller, content_type, s, request.view)
        and predicate(s)
    ]
    start = (request.page - 1) * request.page_size if request.cursor is None else len(matched)
    rows = [fetched[s.id] for s in matched[start : start + request.page_size] if s.id in fetched]
    return EntryPage(
        items=views(request.caller, content_type, rows, selection, request.view),
        total=len(matched),
        page=request.page,
        page_size=request.page_size,
        cursors=True,
    )


def list_entries(request: ListRequest) -> EntryPage:
    caller = request.caller
    counts_wanted = _wants(request)
    keys = _count_keys(request, counts_wanted)
    content_type, items = require_type_with(
        caller,
        request.workspace_id,
        request.content_type,
        (dynamo.key(pk, COUNT_SK) for pk in keys),
    )
    selection = select(caller, content_type, request.fields, request.expand, request.links)
    compile_filter(content_type, request.filter)
    check_sort(content_type, request.sort)
    address = direct_address(request.filter)
    if address is not None:
        return _addressed_page(request, content_type, address, selection)
    counts = _Counts(request, _sum_counts(keys, items))
    chosen = plan(content_type, request)
    if isinstance(chosen, _Served):
        page_ids, total, next_cursor = _from_index(content_type, request, chosen, counts)
    else:
        page_ids, total, next_cursor = _in_memory(content_type, request, chosen, counts)
    fetched = fetch_entries(
        request.workspace_id, page_ids, selection.value_keys, selection.link_keys, request.view
    )
    rows = [
        fetched[i]
        for i in page_ids
        if i in fetched and stored_visible(caller, content_type, fetched[i], request.view)
    ]
    return EntryPage(
        items=views(caller, content_type, rows, selection, request.view),
        total=total,
        page=request.page,
        page_size=request.page_size,
        next_cursor=next_cursor,
        cursors=True,
    )
