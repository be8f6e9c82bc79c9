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
   COUNT_BUDGET index keys). A filter of one relation condition naming one entry, sorted by
   `createdAt`, reads that entry's reverse-link items instead (`list_by_link.py`). Anything
   else (other filters, `or`, several sort keys, an audience-gated type read by a token) reads
   the summaries of the type's entries and filters and sorts them in memory, within
   READ_BUDGET entries: beyond it the list is refused with a 400 that names the field to mark
   sortable, before anything is read;
3. one BatchGetItem of the page's entries, projected to the selected fields;
4. expansions, one BatchGetItem round per level (`content.entries.reads`).

A filter pinning `id` or `localeGroupId` with `eq` skips all of it: a key lookup.
"""

from __future__ import annotations

from content_service.content import cache_tags
from content_service.content.entries import (
    EntryPage,
    StoredEntry,
    Summary,
    entry_views,
    fetch_entries,
    fetch_one,
    from_item,
    group_claim_key,
    is_entry_id,
    projection_paths,
    stored_visible,
    summary_from,
    summary_of,
    summary_visible,
)
from content_service.content.lists.filters import compile_filter, direct_address
from content_service.content.lists.list_in_memory import in_memory
from content_service.content.lists.list_index_reads import from_index
from content_service.content.lists.list_keys import COUNT_SK
from content_service.content.lists.list_plan import (
    Counts,
    Served,
    count_keys,
    plan,
    sum_counts,
    wants,
)
from content_service.content.lists.query import Selection, check_sort, select
from content_service.content.relations import by_link, link_address, resolve_linked
from content_service.content.requests import ListRequest
from content_service.content.schema import ContentType, require_type_with
from content_service.content.store import store
from content_service.storage import dynamo


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
        claim = store().get("content", group_claim_key(request.workspace_id, value, request.locale))
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
        items=entry_views(request.caller, content_type, rows, selection, request.view),
        total=len(matched),
        page=request.page,
        page_size=request.page_size,
        cursors=True,
    )


def list_entries(request: ListRequest) -> EntryPage:
    caller = request.caller
    counts_wanted = wants(request)
    keys = count_keys(request, counts_wanted)
    content_type, items = require_type_with(
        caller,
        request.workspace_id,
        request.content_type,
        (dynamo.key(pk, COUNT_SK) for pk in keys),
    )
    selection = select(caller, content_type, request.fields, request.expand, request.links)
    cache_tags.record_list(request.workspace_id, content_type.name)
    request = resolve_linked(request, content_type, list_entries)
    compile_filter(content_type, request.filter)
    check_sort(content_type, request.sort)
    address = direct_address(request.filter)
    if address is not None:
        return _addressed_page(request, content_type, address, selection)
    counts = Counts(request, sum_counts(keys, items))
    linked = link_address(content_type, request)
    chosen = plan(content_type, request)
    if linked is not None:
        page_ids, total, next_cursor = by_link(content_type, request, *linked)
    elif isinstance(chosen, Served):
        page_ids, total, next_cursor = from_index(content_type, request, chosen, counts)
    else:
        page_ids, total, next_cursor = in_memory(content_type, request, chosen, counts)
    fetched = fetch_entries(
        request.workspace_id, page_ids, selection.value_keys, selection.link_keys, request.view
    )
    rows = [
        fetched[i]
        for i in page_ids
        if i in fetched and stored_visible(caller, content_type, fetched[i], request.view)
    ]
    return EntryPage(
        items=entry_views(caller, content_type, rows, selection, request.view),
        total=total,
        page=request.page,
        page_size=request.page_size,
        next_cursor=next_cursor,
        cursors=True,
    )
