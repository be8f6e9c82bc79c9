"""Resolvers: each turns a field and its arguments into the request the REST route builds, and
calls the same service function: one content service serves both protocols. No storage access.

| GraphQL field                       | service call (REST route)                               |
|-------------------------------------|---------------------------------------------------------|
| `blogPosts(page, cursor, ...)`      | `list_entries(ListRequest)` (`GET /content/blog_post`)  |
| `blogPost(id)`                      | `get_entry(GetRequest)` (`GET /content/blog_post/{id}`) |
| `siteSettings(locale)`              | `list_entries(ListRequest)` page 1, first item          |
| `author`, `tags` (page 1)           | `load_entries_by_ids` through a per-request DataLoader  |
| `tags(page: 2)`                     | `list_related(RelationRequest)` (the relations route)   |
| `createX`, `updateX`                | `create_entry`/`update_entry(WriteRequest)`, read back  |
| `publishX`, `unpublishX`, `deleteX` | `publish_entry`... `(EntryAction)`                      |

Every call passes the live caller, so the service re-checks the grant set, the scopes and the
visibility rules on every read: a schema cached before a revocation can describe a type but
cannot read it. The selection narrows the read exactly like REST `fields`: the value fields
selected (fragments and inline fragments followed, `@skip`/`@include` honoured) become
`fields`, the relation fields selected become `links` (their target ids are read, nothing else).

Relation reads are batched per level: one DataLoader per (request, target type, selection)
collects the ids asked in one tick and makes one `load_entries_by_ids` call (one BatchGetItem
per 100 ids). The resolver that produced a level of entries loads the levels below it ahead
(`Context.prefetch`): every row's ids of a relation field in one round, so the relation
resolvers find their targets loaded and answer without awaiting (and without a task per row);
when they do not (a failed or skipped look-ahead), they await the same loaders. A to-many field
takes the first `pageSize` visible targets in link order, asking for more ids only for rows
whose first targets were invisible, exactly like REST's `expand`. The service's storage calls
are synchronous, so they run in a worker thread.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from graphene.utils.dataloader import DataLoader
from graphql import (
    FieldNode,
    GraphQLField,
    GraphQLObjectType,
    GraphQLResolveInfo,
    get_named_type,
)
from graphql.execution.values import get_argument_values

from content_service.content import service
from content_service.content.entries import Entry, EntryPage, View
from content_service.content.relations import Targets, from_known
from content_service.content.requests import (
    DEFAULT_PAGE_SIZE,
    GetRequest,
    ListRequest,
    RelationRequest,
    check_page,
)
from content_service.graphql.context import (
    NOT_READY,
    Context,
    Picked,
    ReadAhead,
    Resolver,
    context_of,
    entry_nodes,
    or_default,
    plain,
)


def list_field(type_name: str) -> Resolver:
    def resolve(
        _root: Any,
        info: GraphQLResolveInfo,
        page: int | None = None,
        pageSize: int | None = None,  # noqa: N803 (the GraphQL argument name)
        sort: str | None = None,
        filter: Mapping[str, Any] | None = None,
        locale: str | None = None,
        cursor: str | None = None,
        version: Any = None,
    ) -> Any:
        return _list(
            info,
            type_name,
            Paging(page, pageSize, cursor),
            sort=sort,
            filter=plain(filter),
            locale=locale,
            version=plain(version),
        )

    return resolve


def linked_from_container(entry: Entry, _info: GraphQLResolveInfo) -> Entry:
    """`linkedFrom` holds no data of its own: its fields read lists about the entry."""
    return entry


def linked_from_list(source_type: str, relation: str, to_one: bool) -> Resolver:
    """`linkedFrom.<sources>By<Relation>`: the `source_type` list filtered to the entries whose
    `relation` links this one (`eq` on a to-one relation, `contains` on a to-many one), in the
    entry's view, with the caller's own `filter` and `sort` beside it."""

    def resolve(
        target: Entry,
        info: GraphQLResolveInfo,
        page: int | None = None,
        pageSize: int | None = None,  # noqa: N803 (the GraphQL argument name)
        sort: str | None = None,
        filter: Mapping[str, Any] | None = None,
        locale: str | None = None,
    ) -> Any:
        link = {"field": relation, "op": "eq" if to_one else "contains", "value": target.id}
        asked = plain(filter)
        return _list(
            info,
            source_type,
            Paging(page, pageSize),
            sort=sort,
            filter=link if asked is None else {"and": [asked, link]},
            locale=locale or target.locale,
            version=target.view,
        )

    return resolve


class Paging(NamedTuple):
    """A list field's `page`, `pageSize` and `cursor` arguments, as given (None: not given)."""

    page: int | None
    page_size: int | None
    cursor: str | None = None


def _list(
    info: GraphQLResolveInfo,
    type_name: str,
    paging: Paging,
    *,
    sort: str | None,
    filter: Mapping[str, Any] | None,
    locale: str | None,
    version: str | None,
) -> Any:
    """A `type_name` list with the fields and links the query picks under `items` (read as
    `_read` reads)."""
    context = context_of(info)
    picked = context.pick(info, type_name, through_items=True)
    request = ListRequest.parse(
        context.caller,
        context.workspace_id,
        type_name,
        page=or_default(paging.page, 1),
        page_size=or_default(paging.page_size, DEFAULT_PAGE_SIZE),
        sort=sort,
        filter=filter,
        fields=picked.fields,
        locale=locale,
        links=picked.links,
        cursor=paging.cursor,
        version=version,
    )
    return _read(
        context, info, type_name, True, request.view, lambda: service.list_entries(request)
    )


def _read(
    context: Context,
    info: GraphQLResolveInfo,
    type_name: str,
    through_items: bool,
    view: View,
    read: Callable[[], Any],
) -> Any:
    """`read()` (an EntryPage, or an Entry) and the relation levels below what it read: in one
    worker thread hop (an awaitable), or right here when the operation has one root field."""
    object_type, nodes = entry_nodes(info, through_items)
    aheads = context.ahead(info, type_name, object_type, nodes, view)
    read_ahead = context.reader(aheads) if aheads else None

    def both() -> tuple[Any, ReadAhead | None]:
        answer = read()
        if read_ahead is None:
            return answer, None
        entries = answer.items if isinstance(answer, EntryPage) else [answer]
        return answer, read_ahead([e for e in entries if e is not None])

    def keep(answer: Any, loaded: ReadAhead | None) -> Any:
        if loaded is not None:
            context.remember(loaded)
        return answer

    if context.alone:
        return keep(*both())

    async def hop() -> Any:
        return keep(*await asyncio.to_thread(both))

    return hop()


async def read_back(
    context: Context, info: GraphQLResolveInfo, type_name: str, entry_id: str
) -> Entry:
    """A written entry read back, as the single entry field reads it."""
    found = _get(context, info, type_name, entry_id)
    entry: Entry = await found if inspect.isawaitable(found) else found
    return entry


def single_entry_field(type_name: str) -> Resolver:
    def resolve(_root: Any, info: GraphQLResolveInfo, id: str, version: Any = None) -> Any:
        return _get(context_of(info), info, type_name, id, plain(version))

    return resolve


def _get(
    context: Context,
    info: GraphQLResolveInfo,
    type_name: str,
    entry_id: str,
    version: str | None = None,
) -> Any:
    """The entry read back (an Entry, or an awaitable of one: see `_read`)."""
    picked = context.pick(info, type_name, through_items=False)
    request = GetRequest.parse(
        context.caller,
        context.workspace_id,
        type_name,
        entry_id,
        fields=picked.fields,
        links=picked.links,
        version=version,
    )
    return _read(context, info, type_name, False, request.view, lambda: service.get_entry(request))


def single_type_field(type_name: str) -> Resolver:
    """A single type: the list route's first item (REST's client takes the first item)."""

    def resolve(
        _root: Any, info: GraphQLResolveInfo, locale: str | None = None, version: Any = None
    ) -> Any:
        context = context_of(info)
        picked = context.pick(info, type_name, through_items=False)
        request = ListRequest.parse(
            context.caller,
            context.workspace_id,
            type_name,
            page=1,
            page_size=1,
            fields=picked.fields,
            locale=locale,
            links=picked.links,
            version=plain(version),
        )

        def first() -> Any:
            page = service.list_entries(request)
            return page.items[0] if page.items else None

        return _read(context, info, type_name, False, request.view, first)

    return resolve


def envelope_items(page: EntryPage, _info: GraphQLResolveInfo) -> list[Entry]:
    return page.items


def envelope_total(page: EntryPage, _info: GraphQLResolveInfo) -> int:
    return page.total


def envelope_next_cursor(page: EntryPage, _info: GraphQLResolveInfo) -> str | None:
    return page.next_cursor


def _items_ready(_execution: Any, _field: GraphQLField, _nodes: list[FieldNode]) -> Any:
    return _page_items


def _page_items(page: EntryPage) -> list[Entry]:
    return page.items


def _page_total(page: EntryPage) -> int:
    return page.total


# The executor's direct paths (`graphql.execution`): a page's items and total need no resolver.
envelope_items.ready = _items_ready  # type: ignore[attr-defined]
envelope_total.leaf = _page_total  # type: ignore[attr-defined]


async def _first_visible(loader: DataLoader, ids: Sequence[str], wanted: int) -> list[Entry]:
    """The first `wanted` visible targets in link order, through the loader (the planner's)."""
    targets: Targets[Entry] = Targets(ids, wanted)
    while chunk := targets.ask():
        targets.take(await loader.load_many(chunk))
    return targets.found


async def _links(context: Context, entry: Entry, relation: str) -> tuple[str, ...]:
    """The entry's linked ids; read (batched) when the entry came without them, as the
    relations route's targets do."""
    ids = entry.links.get(relation)
    if ids is not None:
        return ids
    loader = context.loader(entry.view, entry.content_type, Picked((), (relation,)))
    with_links = await loader.load(entry.id)
    return with_links.links.get(relation, ()) if with_links is not None else ()


def _targets_ready(
    context: Context,
    picked: tuple[str, tuple[str, ...], tuple[str, ...]],
    relation: str,
    wanted: int,
) -> Callable[[Entry], Any]:
    """An entry's first `wanted` visible targets through `relation` when they are loaded (in
    the entry's view, with the selection `picked`: target type, fields, links); NOT_READY
    otherwise (the resolver then loads them)."""

    def ready(entry: Entry) -> Any:
        ids = entry.links.get(relation)
        if ids is None:
            return NOT_READY
        known = context.loaded.setdefault((entry.view, *picked), {})
        found = from_known(known, ids, wanted)
        return NOT_READY if found is None else found

    return ready


def to_one_relation(source_type: str, relation: str, target_type: str) -> Resolver:
    def resolve(entry: Entry, info: GraphQLResolveInfo) -> Any:
        context = context_of(info)
        picked = context.pick(info, target_type, through_items=False)
        selection = (target_type, picked.fields, picked.links)
        found = _targets_ready(context, selection, relation, 1)(entry)
        if found is not NOT_READY:
            return found[0] if found else None
        return _to_one(context, info, context.loader(entry.view, target_type, picked), entry)

    async def _to_one(
        context: Context, info: GraphQLResolveInfo, loader: DataLoader, entry: Entry
    ) -> Entry | None:
        ids = await _links(context, entry, relation)
        found = await _first_visible(loader, ids, 1)
        if found:
            await context.prefetch(info, target_type, found)
        return found[0] if found else None

    def ready(
        execution: Any, graphql_field: GraphQLField, nodes: list[FieldNode]
    ) -> Callable[[Entry], Any]:
        """The executor's direct path: the target when it was read ahead."""
        context: Context = execution.context_value
        target_object = get_named_type(graphql_field.type)
        assert isinstance(target_object, GraphQLObjectType)
        picked = context.pick_nodes(execution, target_type, target_object, nodes)
        selection = (target_type, picked.fields, picked.links)
        targets = _targets_ready(context, selection, relation, 1)

        def one(entry: Entry) -> Any:
            found = targets(entry)
            if found is NOT_READY:
                return NOT_READY
            return found[0] if found else None

        return one

    resolve.ready = ready  # type: ignore[attr-defined]
    return resolve


async def _to_many(
    context: Context,
    info: GraphQLResolveInfo,
    loader: DataLoader,
    entry: Entry,
    request: RelationRequest,
    target_type: str,
) -> list[Entry]:
    """A to-many relation's page off the executor's direct path."""
    if request.page > 1:
        # Beyond the first page, the relations route's own call, one per row (docs/graphql.md).
        related = await asyncio.to_thread(service.list_related, request)
        found = related.items
    else:
        found = await _first_visible(
            loader, await _links(context, entry, request.field), request.page_size
        )
    await context.prefetch(info, target_type, found)
    return found


def to_many_relation(source_type: str, relation: str, target_type: str) -> Resolver:
    def resolve(
        entry: Entry,
        info: GraphQLResolveInfo,
        page: int | None = None,
        pageSize: int | None = None,  # noqa: N803
    ) -> Any:
        context = context_of(info)
        picked = context.pick(info, target_type, through_items=False)
        request = RelationRequest.parse(
            context.caller,
            context.workspace_id,
            source_type,
            entry.id,
            relation,
            page=or_default(page, 1),
            page_size=or_default(pageSize, DEFAULT_PAGE_SIZE),
            fields=picked.fields,
            version=entry.view,
        )
        if request.page == 1:
            selection = (target_type, picked.fields, picked.links)
            found = _targets_ready(context, selection, relation, request.page_size)(entry)
            if found is not NOT_READY:
                return found
        loader = context.loader(entry.view, target_type, picked)
        return _to_many(context, info, loader, entry, request, target_type)

    def ready(
        execution: Any, graphql_field: GraphQLField, nodes: list[FieldNode]
    ) -> Callable[[Entry], Any] | None:
        """The executor's direct path for page 1 (None for any other page, or arguments the
        resolver would refuse)."""
        context: Context = execution.context_value
        target_object = get_named_type(graphql_field.type)
        assert isinstance(target_object, GraphQLObjectType)
        try:
            arguments = get_argument_values(graphql_field, nodes[0], execution.variable_values)
            page = or_default(arguments.get("page"), 1)
            page_size = or_default(arguments.get("pageSize"), DEFAULT_PAGE_SIZE)
            check_page(page, page_size)
        except Exception:
            return None
        if page != 1:
            return None
        picked = context.pick_nodes(execution, target_type, target_object, nodes)
        return _targets_ready(
            context, (target_type, picked.fields, picked.links), relation, page_size
        )

    resolve.ready = ready  # type: ignore[attr-defined]
    return resolve
