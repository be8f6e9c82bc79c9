"""Lists of the entries that link one entry ("posts by this author"), read from the
reverse-link items (D123) instead of every summary of the type (D135).

A list whose whole filter is one relation condition naming one entry (`eq` on a to-one field,
`contains` on a to-many one) and whose sort is `createdAt` (the default, newest first, or
ascending) reads the target's reverse items of that field (a Query on the target's partition)
and checks each candidate against the source's version in the list's view (one BatchGetItem
per 100), as `/links` does: the work grows with the entries linking the target, never with the
type (past READ_BUDGET linkers, 400, as the in-memory path's budget). The answer is the
in-memory path's: the same entries, order, total and cursors.
"""

from __future__ import annotations

from collections.abc import Sequence

from content_service.content.entries import StoredEntry, is_entry_id, stored_visible
from content_service.content.lists import (
    DEFAULT_SORT,
    READ_BUDGET,
    Cursor,
    Position,
    before,
    root_leaves,
    sort_operand,
    token,
)
from content_service.content.relations.linkers import Linker, verified
from content_service.content.requests import ListRequest, SortKey
from content_service.content.schema import ContentType, FieldDef

_SERVED_OPS = {True: "eq", False: "contains"}


def link_address(content_type: ContentType, request: ListRequest) -> tuple[FieldDef, str] | None:
    """The (relation field, target id) a list is filtered by alone, when it sorts by
    `createdAt`; None for any other list."""
    leaves = root_leaves(request.filter)
    keys = request.sort or DEFAULT_SORT
    if not leaves or len(leaves) != 1 or len(keys) != 1 or keys[0].field != "createdAt":
        return None
    (leaf,) = leaves
    definition = content_type.field(leaf.field)
    if (
        definition is None
        or not definition.is_relation
        or leaf.op != _SERVED_OPS[definition.to_one]
        or not isinstance(leaf.value, str)
        or not is_entry_id(leaf.value)
    ):
        return None
    return definition, leaf.value


def by_link(
    content_type: ContentType, request: ListRequest, definition: FieldDef, target_id: str
) -> tuple[list[str], int, str | None]:
    """Page ids, total and next cursor of the entries linking `target_id` through the field."""
    caller, view = request.caller, request.view

    def accept(source_type: ContentType, stored: StoredEntry) -> bool:
        return stored.locale == request.locale and stored_visible(caller, source_type, stored, view)

    relations = {(content_type.name, definition.key): (content_type, definition)}
    key = (request.sort or DEFAULT_SORT)[0]
    found = verified(request.workspace_id, target_id, relations, view, accept, READ_BUDGET)
    ordered = _ordered(found, key)
    kind = sort_operand(content_type, key)[0]
    positions = [Position(0, token(kind, linker.created_at)[0], linker.id) for linker in ordered]
    start = _start(request, positions, key)
    page = ordered[start : start + request.page_size]
    more = start + request.page_size < len(ordered)
    next_cursor = (
        Cursor(query=request.digest, position=positions[start + len(page) - 1]).encode()
        if more and page
        else None
    )
    return [linker.id for linker in page], len(ordered), next_cursor


def _ordered(linkers: Sequence[Linker], key: SortKey) -> list[Linker]:
    """By `createdAt` in the key's direction, ties by id ascending (as lists sort)."""
    ordered = sorted(linkers, key=lambda linker: linker.id)
    ordered.sort(key=lambda linker: linker.created_at, reverse=key.descending)
    return ordered


def _start(request: ListRequest, positions: Sequence[Position], key: SortKey) -> int:
    cursor = request.cursor
    if cursor is None or cursor.position is None:
        return (request.page - 1) * request.page_size
    for index, position in enumerate(positions):
        if before(cursor.position, position, key.descending):
            return index
    return len(positions)
