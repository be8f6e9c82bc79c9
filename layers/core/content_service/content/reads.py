"""Reading entries: one entry, relation pages, expansions and the batched loaders.

Lists are `content.listing`; both read pages of entries with `fetch_entries` (one BatchGetItem
per 100 ids, projected to the selected fields) and expand each relation level with one
BatchGetItem round for every row at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from content_service.content.items import (
    StoredEntry,
    Summary,
    entry_key,
    from_item,
    projection_paths,
)
from content_service.content.model import ContentType, FieldDef
from content_service.content.query import Selection, select
from content_service.content.requests import (
    DEFAULT_PAGE_SIZE,
    GetRequest,
    RelationRequest,
    is_entry_id,
)
from content_service.content.schema import get_type, get_types, require_type
from content_service.content.views import Entry, EntryPage, entry_view
from content_service.content.visibility import visible
from content_service.errors import NotFound
from content_service.identity.principal import Caller
from content_service.storage import dynamo


def _content_table() -> str:
    return dynamo.tables().content


def stored_visible(caller: Caller, content_type: ContentType, stored: StoredEntry) -> bool:
    return stored.content_type == content_type.name and visible(
        caller,
        content_type,
        status=stored.status,
        deleted=stored.deleted,
        audiences=stored.audiences,
    )


def summary_visible(caller: Caller, content_type: ContentType, summary: Summary) -> bool:
    return visible(
        caller,
        content_type,
        status=summary.status,
        deleted=summary.deleted,
        audiences=summary.audiences,
    )


def fetch_entries(
    workspace_id: str,
    ids: Iterable[str],
    value_keys: Iterable[str] | None,
    link_keys: Iterable[str] | None,
) -> dict[str, StoredEntry]:
    """Entries by id (any type, any state), BatchGetItem with a projection; misses are absent."""
    wanted = [i for i in dict.fromkeys(ids) if is_entry_id(i)]
    if not wanted:
        return {}
    projection = dynamo.Projection.of(projection_paths(value_keys, link_keys))
    items = dynamo.batch_get(
        _content_table(), [entry_key(workspace_id, i) for i in wanted], projection
    )
    return {e.id: e for e in (from_item(workspace_id, i) for i in items)}


def fetch_one(workspace_id: str, entry_id: str, paths: list[list[str]]) -> dict[str, Any] | None:
    if not is_entry_id(entry_id):
        return None
    return dynamo.get_item(
        _content_table(), entry_key(workspace_id, entry_id), dynamo.Projection.of(paths)
    )


# ---------------------------------------------------------------------------------------------
# Expansion: one BatchGetItem round per level for all rows


@dataclass
class _Pending:
    source_id: str
    relation: FieldDef
    ids: tuple[str, ...]
    wanted: int
    offset: int = 0
    found: list[Entry] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return len(self.found) >= self.wanted or self.offset >= len(self.ids)


def expand_level(
    caller: Caller,
    workspace_id: str,
    sources: Mapping[str, Mapping[str, Sequence[str]]],
    relations: Sequence[FieldDef],
    *,
    page_size: int = DEFAULT_PAGE_SIZE,
    fields: Mapping[str, tuple[str, ...] | None] | None = None,
    target_types: Mapping[str, ContentType] | None = None,
) -> dict[str, dict[str, list[Entry]]]:
    """The visible targets of `relations` for every source, batched.

    `sources` maps a source id to its links by field name. A to-one field yields at most one
    target; a to-many field the first `page_size` visible targets in link order. Each round is
    one BatchGetItem call per 100 distinct ids for every row and field at once; a further round
    runs only for rows whose first targets were invisible (trashed, draft for a read token,
    another audience) and that hold more links.
    """
    types: dict[str, ContentType] = dict(target_types or {})
    missing = {
        r.target or ""
        for r in relations
        if (r.target or "") not in types and caller.grants(r.target or "")
    }
    if missing:
        types.update(get_types(workspace_id, missing))
    pending: list[_Pending] = []
    for source_id, links in sources.items():
        for relation in relations:
            if (relation.target or "") not in types:
                continue
            pending.append(
                _Pending(
                    source_id=source_id,
                    relation=relation,
                    ids=tuple(links.get(relation.name, ())),
                    wanted=1 if relation.to_one else page_size,
                )
            )
    field_selection = {
        name: select(caller, target_type, (fields or {}).get(name))
        for name, target_type in types.items()
    }
    while True:
        active = [p for p in pending if not p.done]
        if not active:
            break
        chunks: dict[int, tuple[str, ...]] = {}
        for index, item in enumerate(active):
            need = item.wanted - len(item.found)
            chunks[index] = item.ids[item.offset : item.offset + need]
        value_keys: set[str] | None = set()
        for selection in field_selection.values():
            if selection.value_keys is None:
                value_keys = None
                break
            assert value_keys is not None
            value_keys.update(selection.value_keys)
        fetched = fetch_entries(
            workspace_id,
            (i for chunk in chunks.values() for i in chunk),
            value_keys,
            (),
        )
        for index, item in enumerate(active):
            target_type = types[item.relation.target or ""]
            selection = field_selection[target_type.name]
            for target_id in chunks[index]:
                stored = fetched.get(target_id)
                if stored is not None and stored_visible(caller, target_type, stored):
                    item.found.append(
                        entry_view(target_type, stored, selection.value_fields, link_fields=())
                    )
            item.offset += len(chunks[index])
    result: dict[str, dict[str, list[Entry]]] = {source_id: {} for source_id in sources}
    for item in pending:
        result[item.source_id][item.relation.name] = item.found[: item.wanted]
    for source_id in sources:
        for relation in relations:
            result[source_id].setdefault(relation.name, [])
    return result


def expand_relations(
    caller: Caller,
    workspace_id: str,
    content_type: ContentType,
    sources: Sequence[Entry],
    relation_field: str,
    *,
    page_size: int = DEFAULT_PAGE_SIZE,
    fields: tuple[str, ...] | None = None,
) -> dict[str, list[Entry]]:
    """For the GraphQL adapter: page 1 of one relation field's visible targets, for many sources.

    `sources` must have been read with the field in their `links` (ListRequest.links or no
    `fields`). Returns source id -> targets. Batched as `expand_level` says; a page beyond the
    first goes through `list_related` for one source at a time (spec 4.1).
    """
    relation = content_type.field(relation_field)
    if relation is None or not relation.is_relation:
        raise NotFound(
            f"content type {content_type.name!r} has no relation field {relation_field!r}"
        )
    expanded = expand_level(
        caller,
        workspace_id,
        {s.id: {relation.name: s.links.get(relation.name, ())} for s in sources},
        [relation],
        page_size=page_size,
        fields={relation.target or "": fields},
    )
    return {source_id: by_field[relation.name] for source_id, by_field in expanded.items()}


def views(
    caller: Caller,
    content_type: ContentType,
    entries: Sequence[StoredEntry],
    selection: Selection,
) -> list[Entry]:
    relations: dict[str, dict[str, list[Entry]]] = {}
    if selection.expand:
        relations = expand_level(
            caller,
            content_type.workspace_id,
            {e.id: {f.name: e.links.get(f.key, ()) for f in selection.expand} for e in entries},
            selection.expand,
        )
    return [
        entry_view(
            content_type,
            e,
            selection.value_fields,
            link_fields=selection.link_fields,
            relations=relations.get(e.id) if selection.expand else None,
        )
        for e in entries
    ]


# ---------------------------------------------------------------------------------------------
# Service functions


def get_entry(request: GetRequest) -> Entry:
    content_type = require_type(request.caller, request.workspace_id, request.content_type)
    selection = select(request.caller, content_type, request.fields, request.expand, request.links)
    item = fetch_one(
        request.workspace_id,
        request.id,
        projection_paths(selection.value_keys, selection.link_keys),
    )
    stored = from_item(request.workspace_id, item) if item else None
    if stored is None or not stored_visible(request.caller, content_type, stored):
        raise NotFound(f"entry {request.id[:64]!r} not found")
    return views(request.caller, content_type, [stored], selection)[0]


def list_related(request: RelationRequest) -> EntryPage:
    """`/content/{type}/{id}/relations/{field}`: the visible targets, in link order, paged."""
    caller = request.caller
    content_type = require_type(caller, request.workspace_id, request.content_type)
    relation = content_type.field(request.field)
    if relation is None or not relation.is_relation or not caller.grants(relation.target or ""):
        raise NotFound(
            f"content type {content_type.name!r} has no relation field {request.field[:64]!r}"
        )
    target_type = get_type(request.workspace_id, relation.target or "")
    if target_type is None:
        raise NotFound(f"content type {relation.target!r} not found")
    selection = select(caller, target_type, request.fields)
    item = fetch_one(request.workspace_id, request.id, projection_paths((), (relation.key,)))
    source = from_item(request.workspace_id, item) if item else None
    if source is None or not stored_visible(caller, content_type, source):
        raise NotFound(f"entry {request.id[:64]!r} not found")
    ids = source.links.get(relation.key, ())
    start = (request.page - 1) * request.page_size
    if start == 0 and len(ids) <= request.page_size:
        # Everything fits in the first page: read the targets once, with the selection.
        fetched = fetch_entries(request.workspace_id, ids, selection.value_keys, ())
        shown = [
            fetched[i]
            for i in ids
            if i in fetched and stored_visible(caller, target_type, fetched[i])
        ]
        total = len(shown)
    else:
        states = fetch_entries(request.workspace_id, ids, (), ())
        visible_ids = [
            i for i in ids if i in states and stored_visible(caller, target_type, states[i])
        ]
        total = len(visible_ids)
        page_ids = visible_ids[start : start + request.page_size]
        fetched = fetch_entries(request.workspace_id, page_ids, selection.value_keys, ())
        shown = [fetched[i] for i in page_ids if i in fetched]
    return EntryPage(
        items=[entry_view(target_type, e, selection.value_fields, link_fields=()) for e in shown],
        total=total,
        page=request.page,
        page_size=request.page_size,
    )


def load_entries_by_ids(
    caller: Caller,
    workspace_id: str,
    content_type: ContentType,
    ids: Sequence[str],
    *,
    fields: tuple[str, ...] | None = None,
    links: tuple[str, ...] = (),
) -> dict[str, Entry]:
    """For the GraphQL adapter's DataLoader: the visible entries of `content_type` among `ids`.

    One BatchGetItem call per 100 distinct ids, with the same projection and visibility rules as
    a list (`fields` narrows the values read; `links` names relation fields whose ids to read).
    Invisible, trashed, foreign and missing ids are simply absent from the result.
    """
    if not caller.grants(content_type.name) or not caller.can_read:
        return {}
    selection = select(caller, content_type, fields, (), links)
    fetched = fetch_entries(workspace_id, ids, selection.value_keys, selection.link_keys)
    return {
        entry_id: entry_view(
            content_type, stored, selection.value_fields, link_fields=selection.link_fields
        )
        for entry_id, stored in fetched.items()
        if stored_visible(caller, content_type, stored)
    }
