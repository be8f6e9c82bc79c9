"""Lists of the entries linking one entry, served from the reverse-link index (decision D129).

"Posts by this author, newest first" is a list whose only filter is `eq` on a to-one relation
(or `contains` on a to-many one) naming one entry, sorted by `createdAt`. The summaries of the
type would answer it in O(type); the target's reverse items (`content.link_refs`) hold exactly
its candidates, keyed `<type>#<field key>#<createdAt>#<source id>`, so one sort-key prefix of
one partition lists them in creation order. Each candidate is verified against the version of
its source the caller reads, as `GET .../links` does (`content.linked_from.verified`): a stale
item, a trashed source, a draft-only link for a read token, another locale or an audience the
caller does not pass never shows. The answer is the in-memory path's, entry for entry: the same
order (ties by id ascending), the same exact `total`, cursors at the same positions (either
path takes the other's). The exact total is why every candidate is verified: the cost grows
with the entries linking the target, never with the type, and is refused past READ_BUDGET
candidates like the in-memory path past READ_BUDGET entries.
"""

from __future__ import annotations

from dataclasses import dataclass

from content_service.content.items import StoredEntry
from content_service.content.linked_from import Linker, verified
from content_service.content.list_cursor import Cursor, Position
from content_service.content.list_in_memory import READ_BUDGET
from content_service.content.list_index_reads import before
from content_service.content.model import ContentType, FieldDef
from content_service.content.query import DEFAULT_SORT
from content_service.content.reads import stored_visible
from content_service.content.requests import FilterGroup, FilterLeaf, ListRequest, is_entry_id
from content_service.errors import BadRequest


@dataclass(frozen=True)
class ByLink:
    """A list the reverse-link index serves: the entries whose `relation` links `target_id`."""

    relation: FieldDef
    target_id: str
    descending: bool


def _only_leaf(request: ListRequest) -> FilterLeaf | None:
    node = request.filter
    while isinstance(node, FilterGroup) and len(node.children) == 1:
        node = node.children[0]
    return node if isinstance(node, FilterLeaf) else None


def by_link(content_type: ContentType, request: ListRequest) -> ByLink | None:
    """The plan of a list filtered only by `eq` on a to-one relation (`contains` on a to-many
    one) naming one entry and sorted by `createdAt` either way; None for any other list."""
    leaf = _only_leaf(request)
    if leaf is None or not isinstance(leaf.value, str) or not is_entry_id(leaf.value):
        return None
    relation = content_type.field(leaf.field)
    if relation is None or not relation.is_relation:
        return None
    if leaf.op != ("eq" if relation.to_one else "contains"):
        return None
    keys = request.sort or DEFAULT_SORT
    if len(keys) != 1 or keys[0].field != "createdAt":
        return None
    return ByLink(relation, leaf.value, keys[0].descending)


def linking(content_type: ContentType, request: ListRequest, plan: ByLink) -> list[Linker]:
    """Every entry of the list in its order: verified candidates, newest first (or oldest),
    ties by id ascending as the in-memory path orders them."""
    caller, view, relation = request.caller, request.view, plan.relation

    def accept(source_type: ContentType, stored: StoredEntry) -> bool:
        linked = stored.links.get(relation.key, ())
        first = linked[0] if linked else None  # a to-one filter tests the first link only
        return (
            stored.locale == request.locale
            and (not relation.to_one or first == plan.target_id)
            and stored_visible(caller, source_type, stored, view)
        )

    relations = {(content_type.name, relation.key): (content_type, relation)}
    shown = verified(
        request.workspace_id, plan.target_id, relations, view, accept, budget=READ_BUDGET
    )
    shown.sort(key=lambda s: s.id)
    shown.sort(key=lambda s: s.created_at, reverse=plan.descending)
    return shown


def from_links(
    content_type: ContentType, request: ListRequest, plan: ByLink
) -> tuple[list[str], int, str | None]:
    """Page ids, total and next cursor of a list the reverse-link index serves."""
    shown = linking(content_type, request, plan)
    start = (request.page - 1) * request.page_size
    if request.cursor is not None:
        after = request.cursor.position
        if after is None:
            raise BadRequest("cursor: not a cursor this API returned")
        start = next(
            (i for i, s in enumerate(shown) if before(after, _position(s), plan.descending)),
            len(shown),
        )
    page = shown[start : start + request.page_size]
    more = start + request.page_size < len(shown)
    next_cursor = (
        Cursor(query=request.digest, position=_position(page[-1])).encode()
        if more and page
        else None
    )
    return [s.id for s in page], len(shown), next_cursor


def _position(linker: Linker) -> Position:
    """Where an entry stands in a list sorted by createdAt (the in-memory path's position)."""
    return Position(0, linker.created_at, linker.id)
