"""Lists the index cannot serve: the summaries of a type's entries, filtered and sorted in
memory, within READ_BUDGET entries (refused with a 400 naming the field to mark sortable,
before anything is read).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from content_service.content.entries import Summary, summary_from, summary_visible
from content_service.content.lists.filters import compile_filter
from content_service.content.lists.list_cursor import Cursor, Position
from content_service.content.lists.list_index_reads import before
from content_service.content.lists.list_keys import Visibility, partition, token
from content_service.content.lists.list_plan import Counts, Scope, family
from content_service.content.lists.query import DEFAULT_SORT, sort_operand, sort_summaries
from content_service.content.requests import (
    ListRequest,
    SortKey,
)
from content_service.content.schema import ContentType
from content_service.content.store import store
from content_service.errors import BadRequest

# Entries a list sorted or filtered in memory may read (about 3.3 MB of summaries).
READ_BUDGET = 10_000


def _over_budget(content_type: ContentType, readable: int, scope: Scope) -> BadRequest:
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
        for page in store().summaries(pk):
            summaries.extend(summary_from(text) for text in page)
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


def in_memory(
    content_type: ContentType, request: ListRequest, scope: Scope, counts: Counts
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
