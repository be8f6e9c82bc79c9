"""Reading entries: one entry, relation pages, expansions and the batched loaders.

Lists are `content.lists.listing`; both read pages of entries with `fetch_entries` (one BatchGetItem
per 100 ids, projected to the selected fields) and expand each relation level with one
BatchGetItem round for every row at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from content_service.content import cache_tags
from content_service.content.entries.items import (
    StoredEntry,
    Summary,
    View,
    from_item,
    is_entry_id,
    projection_paths,
    view_key,
)
from content_service.content.entries.views import Entry, EntryPage, entry_view
from content_service.content.entries.visibility import visible
from content_service.content.lists import Selection, select
from content_service.content.relations import Targets
from content_service.content.requests import DEFAULT_PAGE_SIZE, GetRequest, RelationRequest
from content_service.content.schema import ContentType, FieldDef, get_type, get_types, require_type
from content_service.content.store import store
from content_service.errors import NotFound
from content_service.identity.principal import Caller


def stored_visible(
    caller: Caller, content_type: ContentType, stored: StoredEntry, view: View = "latest"
) -> bool:
    return stored.content_type == content_type.name and visible(caller, content_type, stored, view)


def summary_visible(
    caller: Caller, content_type: ContentType, summary: Summary, view: View
) -> bool:
    return visible(caller, content_type, summary, view)


def fetch_entries(
    workspace_id: str,
    ids: Iterable[str],
    value_keys: Iterable[str] | None,
    link_keys: Iterable[str] | None,
    view: View = "latest",
) -> dict[str, StoredEntry]:
    """Entries by id (any type, any state), BatchGetItem with a projection; misses are absent.
    `view` reads the latest versions (entry items) or the published ones (published items:
    an entry never published is then a miss)."""
    wanted = [i for i in dict.fromkeys(ids) if is_entry_id(i)]
    if not wanted:
        return {}
    paths = projection_paths(value_keys, link_keys)
    items = store().get_many("content", [view_key(workspace_id, i, view) for i in wanted], paths)
    return {e.id: e for e in (from_item(workspace_id, i) for i in items)}


def fetch_one(
    workspace_id: str, entry_id: str, paths: list[list[str]], view: View
) -> dict[str, Any] | None:
    if not is_entry_id(entry_id):
        return None
    return store().get("content", view_key(workspace_id, entry_id, view), paths)


# ---------------------------------------------------------------------------------------------
# Expansion: one BatchGetItem round per level for all rows


def expand_level(
    caller: Caller,
    workspace_id: str,
    sources: Mapping[str, Mapping[str, Sequence[str]]],
    relations: Sequence[FieldDef],
    view: View,
) -> dict[str, dict[str, list[Entry]]]:
    """The visible targets of `relations` for every source, as `relation_planner` picks them.

    `sources` maps a source id to its links by field name. Each round is one BatchGetItem call
    per 100 distinct ids for every row and field at once; a further round runs only for rows
    whose first targets were invisible and that hold more links.
    """
    names = {r.target or "" for r in relations if caller.grants(r.target or "")}
    types = get_types(workspace_id, names) if names else {}
    selections = {name: select(caller, target_type, None) for name, target_type in types.items()}
    value_keys = _value_keys(selections.values())
    rows: list[tuple[ContentType, Targets[Entry]]] = []
    result: dict[str, dict[str, list[Entry]]] = {source_id: {} for source_id in sources}
    for source_id, links in sources.items():
        for relation in (r for r in relations if (r.target or "") in types):
            targets: Targets[Entry] = Targets(
                links.get(relation.name, ()), 1 if relation.to_one else DEFAULT_PAGE_SIZE
            )
            rows.append((types[relation.target or ""], targets))
            result[source_id][relation.name] = targets.found
    while asks := [(t, targets, chunk) for t, targets in rows if (chunk := targets.ask())]:
        for target_type, _, chunk in asks:
            cache_tags.record_entries(workspace_id, target_type.name, chunk)
        fetched = fetch_entries(
            workspace_id, (i for *_, c in asks for i in c), value_keys, (), view
        )
        for target_type, targets, chunk in asks:
            value_fields = selections[target_type.name].value_fields
            shown = (fetched.get(i) for i in chunk)
            targets.take(
                entry_view(target_type, s, value_fields, link_fields=(), view=view)
                if s is not None and stored_visible(caller, target_type, s, view)
                else None
                for s in shown
            )
    for by_field in result.values():
        for relation in relations:
            by_field.setdefault(relation.name, [])
    return result


def _value_keys(selections: Iterable[Selection]) -> set[str] | None:
    """The value keys every selection reads (None: all of them)."""
    keys: set[str] = set()
    for selection in selections:
        if selection.value_keys is None:
            return None
        keys.update(selection.value_keys)
    return keys


def entry_views(
    caller: Caller,
    content_type: ContentType,
    entries: Sequence[StoredEntry],
    selection: Selection,
    view: View,
) -> list[Entry]:
    relations: dict[str, dict[str, list[Entry]]] = {}
    if selection.expand:
        relations = expand_level(
            caller,
            content_type.workspace_id,
            {e.id: {f.name: e.links.get(f.key, ()) for f in selection.expand} for e in entries},
            selection.expand,
            view,
        )
    return [
        entry_view(
            content_type,
            e,
            selection.value_fields,
            link_fields=selection.link_fields,
            relations=relations.get(e.id) if selection.expand else None,
            view=view,
        )
        for e in entries
    ]


# ---------------------------------------------------------------------------------------------
# Service functions


def get_entry(request: GetRequest) -> Entry:
    content_type = require_type(request.caller, request.workspace_id, request.content_type)
    selection = select(request.caller, content_type, request.fields, request.expand, request.links)
    cache_tags.record_entries(request.workspace_id, content_type.name, [request.id])
    item = fetch_one(
        request.workspace_id,
        request.id,
        projection_paths(selection.value_keys, selection.link_keys),
        request.view,
    )
    stored = from_item(request.workspace_id, item) if item else None
    if stored is None or not stored_visible(request.caller, content_type, stored, request.view):
        raise NotFound(f"entry {request.id[:64]!r} not found")
    return entry_views(request.caller, content_type, [stored], selection, request.view)[0]


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
    view = request.view
    item = fetch_one(request.workspace_id, request.id, projection_paths((), (relation.key,)), view)
    source = from_item(request.workspace_id, item) if item else None
    if source is None or not stored_visible(caller, content_type, source, view):
        raise NotFound(f"entry {request.id[:64]!r} not found")
    ids = source.links.get(relation.key, ())
    cache_tags.record_entries(request.workspace_id, content_type.name, [source.id])
    cache_tags.record_entries(request.workspace_id, target_type.name, ids)
    start = (request.page - 1) * request.page_size
    if start == 0 and len(ids) <= request.page_size:
        # Everything fits in the first page: read the targets once, with the selection.
        fetched = fetch_entries(request.workspace_id, ids, selection.value_keys, (), view)
        shown = [
            fetched[i]
            for i in ids
            if i in fetched and stored_visible(caller, target_type, fetched[i], view)
        ]
        total = len(shown)
    else:
        states = fetch_entries(request.workspace_id, ids, (), (), view)
        visible_ids = [
            i for i in ids if i in states and stored_visible(caller, target_type, states[i], view)
        ]
        total = len(visible_ids)
        page_ids = visible_ids[start : start + request.page_size]
        fetched = fetch_entries(request.workspace_id, page_ids, selection.value_keys, (), view)
        shown = [fetched[i] for i in page_ids if i in fetched]
    return EntryPage(
        items=[
            entry_view(target_type, e, selection.value_fields, link_fields=(), view=view)
            for e in shown
        ],
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
    view: View,
) -> dict[str, Entry]:
    """For the GraphQL adapter's DataLoader: the visible entries of `content_type` among `ids`.

    One BatchGetItem call per 100 distinct ids, with the same projection and visibility rules as
    a list (`fields` narrows the values read; `links` names relation fields whose ids to read).
    Invisible, trashed, foreign and missing ids are simply absent from the result.
    """
    if not caller.grants(content_type.name) or not caller.can_read:
        return {}
    selection = select(caller, content_type, fields, (), links)
    cache_tags.record_entries(workspace_id, content_type.name, ids)
    fetched = fetch_entries(workspace_id, ids, selection.value_keys, selection.link_keys, view)
    return {
        entry_id: entry_view(
            content_type,
            stored,
            selection.value_fields,
            link_fields=selection.link_fields,
            view=view,
        )
        for entry_id, stored in fetched.items()
        if stored_visible(caller, content_type, stored, view)
    }
