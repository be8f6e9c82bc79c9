"""What links here: the entries whose version a caller reads links a target (`GET .../links`),
and the published entries that would lose a target to the trash.

Candidates come from the target's reverse-link items (`content.relations.link_refs`), read by key
alone (one Query per 1,000 of them; a `from` and `field` narrow it to one sort-key prefix). Each
candidate is verified against the version of its source the caller reads, the entry item for
the latest view and the published item for the published one, fetched with BatchGetItem and a
projection (one call per 100 sources): the source exists, is not trashed, its type is granted,
its audiences allow the caller, and that version's links of the field hold the target. So a
stale reverse item, a trashed source and a draft-only link in the published view never show,
and `total` counts what is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from content_service.content import cache_tags
from content_service.content.entries import (
    NumberedPage,
    StoredEntry,
    View,
    fetch_entries,
    fetch_one,
    from_item,
    projection_paths,
    stored_visible,
)
from content_service.content.relations.link_refs import field_prefix, ref_pk
from content_service.content.requests import (
    DEFAULT_PAGE_SIZE,
    EntryRequest,
    check_page,
    parse_view,
)
from content_service.content.schema import ContentType, FieldDef, get_schema, require_type
from content_service.content.store import store
from content_service.errors import BadRequest, NotFound
from content_service.identity.principal import Caller

_KEYS_PER_QUERY = 1000
# Above every character a reverse item's sort key holds after its `<type>#<field>#` prefix.
_PREFIX_END = "~"

Relation = tuple[ContentType, FieldDef]


@dataclass(frozen=True)
class LinkedFromRequest(EntryRequest):
    """The entries linking one entry (`GET /content/{type}/{id}/links`), paged."""

    from_type: str | None = None
    field: str | None = None
    page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    view: View = "latest"

    @classmethod
    def _query(
        cls,
        caller: Caller,
        *,
        from_type: str | None = None,
        field: str | None = None,
        page: int = 1,
        page_size: int = DEFAULT_PAGE_SIZE,
        version: str | None = None,
    ) -> dict[str, Any]:
        check_page(page, page_size)
        return {
            "from_type": from_type or None,
            "field": field or None,
            "page": page,
            "page_size": page_size,
            "view": parse_view(caller, version),
        }


@dataclass(frozen=True)
class Linker:
    """One entry linking the target through one field, as the caller reads it."""

    id: str
    content_type: str
    field: str
    title: str
    status: str
    updated_at: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "contentType": self.content_type,
            "field": self.field,
            "title": self.title,
            "status": self.status,
            "updatedAt": self.updated_at,
        }


LinkerPage = NumberedPage[Linker]


@dataclass(frozen=True)
class _Candidate:
    source_id: str
    source_type: str
    field_key: str
    created_at: str


def _candidate(sort_key: str) -> _Candidate | None:
    """A reverse item's sort key, `<type>#<field key>#<createdAt>#<source id>`, read back."""
    parts = sort_key.split("#", 3)
    if len(parts) != 4:
        return None
    return _Candidate(parts[3], parts[0], parts[1], parts[2])


def relations_to(
    types: Iterable[ContentType],
    target: str,
    *,
    from_type: str | None = None,
    field: str | None = None,
) -> dict[tuple[str, str], Relation]:
    """Every relation field of `types` pointing at the type `target`, by (type, field key);
    `from_type` and `field` narrow it, and a name that matches none is 400."""
    chosen = list(types)
    if from_type is not None:
        chosen = [t for t in chosen if t.name == from_type]
        if not chosen:
            raise BadRequest(f"from: no content type {from_type[:64]!r}")
    found = {
        (t.name, f.key): (t, f)
        for t in chosen
        for f in t.relation_fields
        if f.target == target and (field is None or f.name == field)
    }
    if found or (from_type is None and field is None):
        return found
    if field is None:
        raise BadRequest(f"from: content type {from_type!r} has no relation field to {target!r}")
    where = f"content type {from_type!r}" if from_type else "any content type"
    raise BadRequest(
        f"field: {where} has no relation field {field[:64]!r} that can link {target!r}"
    )


def _candidates(
    workspace_id: str,
    target_id: str,
    relations: Mapping[tuple[str, str], Relation],
    budget: int | None,
) -> list[_Candidate]:
    """The reverse items of the target for these relations (one prefix when there is one);
    400 once more than `budget` of them are found."""
    lower = upper = None
    if len(relations) == 1:
        (source_type, field_key), *_ = relations
        lower = field_prefix(source_type, field_key)
        upper = lower + _PREFIX_END
    found: list[_Candidate] = []
    keys = store().index_keys(ref_pk(workspace_id, target_id), lower, upper, limit=_KEYS_PER_QUERY)
    for page in keys:
        for sort_key in page:
            candidate = _candidate(sort_key)
            if candidate is not None and (candidate.source_type, candidate.field_key) in relations:
                found.append(candidate)
        if budget is not None and len(found) > budget:
            raise BadRequest(
                f"filter: more than {budget:,} entries link {target_id!r} through this "
                f"relation, over the read budget of {budget:,} per request"
            )
    return found


Accept = Callable[[ContentType, StoredEntry], bool]


def verified(
    workspace_id: str,
    target_id: str,
    relations: Mapping[tuple[str, str], Relation],
    view: View,
    accept: Accept,
    budget: int | None = None,
) -> list[Linker]:
    """The candidates whose source's `view` version `accept`s and links the target through
    the field, ordered by type, field, newest first; past `budget` candidates, 400."""
    if not relations:
        return []
    for source_type, _ in relations.values():
        cache_tags.record_list(workspace_id, source_type.name)
    candidates = _candidates(workspace_id, target_id, relations, budget)
    keys = {key for _, key in relations}
    sources = fetch_entries(workspace_id, (c.source_id for c in candidates), (), keys, view)
    shown: list[Linker] = []
    for candidate in candidates:
        source_type, definition = relations[(candidate.source_type, candidate.field_key)]
        stored = sources.get(candidate.source_id)
        if (
            stored is None
            or stored.deleted
            or stored.content_type != source_type.name
            or target_id not in stored.links.get(definition.key, ())
            or not accept(source_type, stored)
        ):
            continue
        shown.append(
            Linker(
                id=stored.id,
                content_type=stored.content_type,
                field=definition.name,
                title=stored.title,
                status=stored.status,
                updated_at=stored.updated_at,
                created_at=stored.created_at,
            )
        )
    shown.sort(key=lambda s: (s.created_at, s.id), reverse=True)
    shown.sort(key=lambda s: (s.content_type, s.field))
    return shown


def linked_from(request: LinkedFromRequest) -> LinkerPage:
    """`GET /content/{type}/{id}/links`: the entries linking a visible entry, as the caller
    reads them (404 when the caller cannot see the entry itself)."""
    caller, workspace_id, view = request.caller, request.workspace_id, request.view
    target_type = require_type(caller, workspace_id, request.content_type)
    cache_tags.record_entries(workspace_id, target_type.name, [request.id])
    item = fetch_one(workspace_id, request.id, projection_paths((), ()), view)
    target = _stored(workspace_id, item)
    if target is None or not stored_visible(caller, target_type, target, view):
        raise NotFound(f"entry {request.id[:64]!r} not found")
    granted = (t for t in get_schema(workspace_id).types.values() if caller.grants(t.name))
    relations = relations_to(
        granted, target_type.name, from_type=request.from_type, field=request.field
    )

    def accept(source_type: ContentType, stored: StoredEntry) -> bool:
        return stored_visible(caller, source_type, stored, view)

    shown = verified(workspace_id, target.id, relations, view, accept)
    start = (request.page - 1) * request.page_size
    return LinkerPage(
        items=shown[start : start + request.page_size],
        total=len(shown),
        page=request.page,
        page_size=request.page_size,
    )


def published_linkers(
    caller: Caller, workspace_id: str, target: ContentType, target_id: str
) -> tuple[list[Linker], list[Linker]]:
    """Every published, non-trashed entry whose published version links the target, whoever
    may see it (what trashing the target would break on a site), and those of them `caller`
    may see (the ones a refusal names)."""
    seen: set[str] = set()

    def accept(source_type: ContentType, stored: StoredEntry) -> bool:
        if stored_visible(caller, source_type, stored, "published"):
            seen.add(stored.id)
        return True

    relations = relations_to(get_schema(workspace_id).types.values(), target.name)
    every = verified(workspace_id, target_id, relations, "published", accept)
    return every, [linker for linker in every if linker.id in seen]


def _stored(workspace_id: str, item: Mapping[str, Any] | None) -> StoredEntry | None:
    return from_item(workspace_id, item) if item else None
