"""Resolvers: each turns a field and its arguments into the request the REST route builds, and
calls the same service function (docs/graphql.md). No storage access here.

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
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import Enum as PyEnum
from typing import Any, Protocol

from graphene.utils.dataloader import DataLoader
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    GraphQLField,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLSchema,
    get_named_type,
)
from graphql.execution.collect_fields import collect_sub_fields
from graphql.execution.values import get_argument_values
from pydantic import ValidationError

from content_service.content import service
from content_service.content.items import View
from content_service.content.model import ContentType, FieldDef
from content_service.content.relation_planner import Targets, from_known
from content_service.content.requests import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    EntryAction,
    EntryWriteBody,
    GetRequest,
    ListRequest,
    RelationRequest,
    ScheduleAction,
    ScheduleRequest,
    VersionRequest,
    WriteRequest,
    check_page,
)
from content_service.content.views import Entry, EntryPage
from content_service.errors import ValidationFailed
from content_service.identity.principal import Caller

Resolver = Callable[..., Any]
LoaderKey = tuple[View, str, tuple[str, ...], tuple[str, ...]]
"""(view, target type, value fields, links): one DataLoader, and one service call per round."""
NOT_READY: Any = object()
"""What a field's ready function answers when the value is not loaded yet."""

# Loads of one read-ahead round beyond the first run here, side by side (never waiting on
# anything themselves, so a full pool only queues them).
_side_loads = ThreadPoolExecutor(thread_name_prefix="graphql-read-ahead")


@dataclass(frozen=True)
class Picked:
    """What a selection reads of one content type: value fields and relation links."""

    fields: tuple[str, ...]
    links: tuple[str, ...]


@dataclass(frozen=True)
class Ahead:
    """A relation field whose targets are read ahead for a level of entries, and the relation
    fields selected below it (read ahead for the targets in turn)."""

    relation: str
    key: LoaderKey
    picked: Picked
    wanted: int
    below: tuple[Ahead, ...]


@dataclass
class Context:
    """One request: the live caller, its workspace, and what the request has loaded."""

    caller: Caller
    workspace_id: str
    types: Mapping[str, ContentType]
    """The content types the schema was built from (to tell value fields from relations)."""
    relations: Mapping[str, Mapping[str, FieldDef]]
    """Relation fields present in the schema, by content type (targets visible when built)."""
    alone: bool = False
    """The operation has one root field: nothing else of the request could run while its read
    waits, so the read (and its read-ahead) runs on the request's own thread, not in a hop."""
    loaded: dict[LoaderKey, dict[str, Entry | None]] = field(default_factory=dict)
    """Targets by loader key and id (None: not visible); read ahead or loaded on demand."""
    loaders: dict[LoaderKey, DataLoader] = field(default_factory=dict)
    picks: dict[tuple[Any, ...], Picked] = field(default_factory=dict)
    aheads: dict[tuple[Any, ...], tuple[Ahead, ...]] = field(default_factory=dict)

    def loader(self, view: View, type_name: str, picked: Picked) -> DataLoader:
        """The request's DataLoader for (view, target type, selection): what a resolver awaits
        when its targets were not read ahead; ids already loaded are answered from `loaded`."""
        key = (view, type_name, picked.fields, picked.links)
        found = self.loaders.get(key)
        if found is None:
            found = DataLoader(batch_load_fn=self._batch(key), loop=asyncio.get_running_loop())
            self.loaders[key] = found
        return found

    def _batch(self, key: LoaderKey) -> Callable[[list[str]], Awaitable[list[Entry | None]]]:
        known = self.loaded.setdefault(key, {})

        async def batch(ids: list[str]) -> list[Entry | None]:
            missing = [i for i in ids if i not in known]
            if missing:
                found = await asyncio.to_thread(self.load, key, missing)
                known.update((i, found.get(i)) for i in missing)
            return [known[i] for i in ids]

        return batch

    def load(self, key: LoaderKey, ids: list[str]) -> dict[str, Entry]:
        """One service call (runs in a worker thread): the live type, through the live caller,
        so a revoked or deleted type is an error."""
        view, type_name, fields, links = key
        content_type = service.require_type(self.caller, self.workspace_id, type_name)
        return service.load_entries_by_ids(
            self.caller, self.workspace_id, content_type, ids, fields=fields, links=links, view=view
        )

    def pick(self, info: GraphQLResolveInfo, type_name: str, through_items: bool) -> Picked:
        """The value fields and relations the field's selection asks of `type_name`."""
        key = (through_items, *map(id, info.field_nodes))
        found = self.picks.get(key)
        if found is None:
            object_type, nodes = _entry_nodes(info, through_items)
            found = self.pick_nodes(info, type_name, object_type, nodes)
            self.picks[key] = found
        return found

    def pick_nodes(
        self,
        selection: Selection,
        type_name: str,
        object_type: GraphQLObjectType,
        nodes: list[FieldNode],
    ) -> Picked:
        key = (type_name, *map(id, nodes))
        found = self.picks.get(key)
        if found is None:
            names = {
                group[0].name.value for group in _sub_fields(selection, object_type, nodes).values()
            }
            content_type = self.types[type_name]
            relations = self.relations.get(type_name, {})
            fields: list[str] = []
            links: list[str] = []
            for name in names:
                definition = content_type.field(name)
                if definition is None:
                    continue  # a system field or __typename: always read
                if definition.is_relation:
                    if name in relations:
                        links.append(name)
                else:
                    fields.append(name)
            found = Picked(tuple(sorted(fields)), tuple(sorted(links)))
            self.picks[key] = found
        return found

    def ahead(
        self,
        info: GraphQLResolveInfo,
        type_name: str,
        object_type: GraphQLObjectType,
        nodes: list[FieldNode],
        view: View,
    ) -> tuple[Ahead, ...]:
        """The relation fields below a selection of `type_name` that are read ahead: page 1 of
        each (another page is the relations route's, one call per row; a bad page size is the
        resolver's error), with the fields selected below them in turn, all in `view`."""
        key = (view, type_name, *map(id, nodes))
        found = self.aheads.get(key)
        if found is not None:
            return found
        relations = self.relations.get(type_name, {})
        aheads: list[Ahead] = []
        for field_nodes in _sub_fields(info, object_type, nodes).values() if relations else ():
            definition = relations.get(field_nodes[0].name.value)
            if definition is None:
                continue
            graphql_field = object_type.fields[definition.name]
            try:
                arguments = get_argument_values(graphql_field, field_nodes[0], info.variable_values)
            except Exception:  # noqa: S112 (the resolver reports it)
                continue
            page = _or(arguments.get("page"), 1)
            page_size = _or(arguments.get("pageSize"), DEFAULT_PAGE_SIZE)
            if page != 1 or not isinstance(page_size, int) or not 1 <= page_size <= MAX_PAGE_SIZE:
                continue
            target = definition.target or ""
            target_object = get_named_type(graphql_field.type)
            assert isinstance(target_object, GraphQLObjectType)
            picked = self.pick_nodes(info, target, target_object, field_nodes)
            aheads.append(
                Ahead(
                    relation=definition.name,
                    key=(view, target, picked.fields, picked.links),
                    picked=picked,
                    wanted=1 if definition.to_one else page_size,
                    below=self.ahead(info, target, target_object, field_nodes, view),
                )
            )
        self.aheads[key] = found = tuple(aheads)
        return found

    def reader(self, aheads: tuple[Ahead, ...]) -> Callable[[Sequence[Entry]], _ReadAhead]:
        """What reads the targets of `aheads` ahead for a level of entries, to be called in a
        worker thread (with what is loaded already, as the loaders would not ask again)."""
        known = {key: dict(self.loaded.get(key, {})) for key in _keys(aheads)}
        return lambda entries: _ReadAhead(self, known).run(aheads, entries)

    def remember(self, read: _ReadAhead) -> None:
        for key, found in read.fresh.items():
            self.loaded.setdefault(key, {}).update(found)

    async def prefetch(
        self,
        info: GraphQLResolveInfo,
        type_name: str,
        entries: Sequence[Entry],
        through_items: bool = False,
    ) -> None:
        """Reads the relation levels below `entries` ahead of their resolvers, all levels in
        one worker thread hop (`_ReadAhead`); the relation fields then complete without
        awaiting. Nothing here reports an error: what failed is not loaded, and the field's
        resolver asks again and raises it."""
        if not entries:
            return
        object_type, nodes = _entry_nodes(info, through_items)
        aheads = self.ahead(info, type_name, object_type, nodes, entries[0].view)
        if aheads:
            self.remember(await asyncio.to_thread(self.reader(aheads), list(entries)))


def _keys(aheads: Sequence[Ahead]) -> set[LoaderKey]:
    keys: set[LoaderKey] = set()
    stack = list(aheads)
    while stack:
        ahead = stack.pop()
        keys.add(ahead.key)
        stack.extend(ahead.below)
    return keys


class _ReadAhead:
    """Loads, level by level, what the relation fields below a level of entries will ask for,
    making the very service calls the request's DataLoaders would make: per round, one call
    per loader key for the ids not loaded yet, each row asking for its next ids while it has
    fewer than `wanted` visible targets (so, as REST's expand does, more ids only for rows
    whose first targets were invisible). Runs in a worker thread; a round's calls for several
    keys run side by side. A call that fails leaves its ids unloaded (the resolver asks again
    and reports the error) and stops reading below that field."""

    def __init__(self, context: Context, known: dict[LoaderKey, dict[str, Entry | None]]) -> None:
        self.context = context
        self.known = known
        self.fresh: dict[LoaderKey, dict[str, Entry | None]] = {}

    def run(self, aheads: Sequence[Ahead], entries: Sequence[Entry]) -> _ReadAhead:
        level: list[tuple[Sequence[Ahead], Sequence[Entry]]] = [(aheads, entries)]
        while level:
            rows = [
                _Rows(ahead, [e.links[ahead.relation] for e in found if ahead.relation in e.links])
                for plans, found in level
                for ahead in plans
            ]
            while self._round(rows):
                pass
            level = [(r.ahead.below, r.found()) for r in rows if r.ok and r.ahead.below]
        return self

    def _round(self, rows: list[_Rows]) -> bool:
        """One round of the planner's asks; False when no row asks for more."""
        asks = [(r, targets, chunk) for r in rows if r.ok for targets, chunk in r.asks()]
        if not asks:
            return False
        wanted: dict[LoaderKey, dict[str, None]] = {}
        for r, _, chunk in asks:
            known = self.known.setdefault(r.ahead.key, {})
            wanted.setdefault(r.ahead.key, {}).update((i, None) for i in chunk if i not in known)
        failed = self._load({key: list(ids) for key, ids in wanted.items() if ids})
        for r, targets, chunk in asks:
            if r.ahead.key in failed:
                r.ok = False
                continue
            known = self.known[r.ahead.key]
            targets.take(known[i] for i in chunk)
        return True

    def _load(self, wanted: dict[LoaderKey, list[str]]) -> set[LoaderKey]:
        """The keys whose call failed."""
        calls = list(wanted.items())
        side = [_side_loads.submit(self.context.load, key, ids) for key, ids in calls[1:]]
        failed: set[LoaderKey] = set()
        for index, (key, ids) in enumerate(calls):
            try:
                found = self.context.load(key, ids) if index == 0 else side[index - 1].result()
            except Exception:
                failed.add(key)
                continue
            results = {i: found.get(i) for i in ids}
            self.known[key].update(results)
            self.fresh.setdefault(key, {}).update(results)
        return failed


class _Rows:
    """One relation field of one level: each row's targets, as the planner asks for them."""

    def __init__(self, ahead: Ahead, links: list[tuple[str, ...]]) -> None:
        self.ahead = ahead
        self.rows: list[Targets[Entry]] = [Targets(ids, ahead.wanted) for ids in links if ids]
        self.ok = True

    def asks(self) -> list[tuple[Targets[Entry], list[str]]]:
        return [(targets, chunk) for targets in self.rows if (chunk := targets.ask())]

    def found(self) -> list[Entry]:
        """The level's targets (each once), for the level below."""
        seen: dict[str, Entry] = {}
        for targets in self.rows:
            for target in targets.found:
                seen.setdefault(target.id, target)
        return list(seen.values())


class Selection(Protocol):
    """What collecting a selection needs: a ResolveInfo, or the execution context itself."""

    @property
    def schema(self) -> GraphQLSchema: ...

    @property
    def fragments(self) -> dict[str, FragmentDefinitionNode]: ...

    @property
    def variable_values(self) -> dict[str, Any]: ...


def _entry_nodes(
    info: GraphQLResolveInfo, through_items: bool
) -> tuple[GraphQLObjectType, list[FieldNode]]:
    """The entry object type of the field and the nodes whose selections apply to it (for a
    list field, its `items` selections)."""
    object_type = get_named_type(info.return_type)
    assert isinstance(object_type, GraphQLObjectType)
    nodes = info.field_nodes
    if through_items:
        envelope = _sub_fields(info, object_type, nodes)
        nodes = [
            node for group in envelope.values() for node in group if node.name.value == "items"
        ]
        items_type = get_named_type(object_type.fields["items"].type)
        assert isinstance(items_type, GraphQLObjectType)
        object_type = items_type
    return object_type, nodes


def _sub_fields(
    selection: Selection, return_type: GraphQLObjectType, nodes: list[FieldNode]
) -> dict[str, list[FieldNode]]:
    if not nodes:
        return {}
    return collect_sub_fields(
        selection.schema, selection.fragments, selection.variable_values, return_type, nodes
    )


def plain(value: Any) -> Any:
    """Coerced input as plain JSON-like data: enum members become their values."""
    if isinstance(value, PyEnum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def _context(info: GraphQLResolveInfo) -> Context:
    context = info.context
    assert isinstance(context, Context)
    return context


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


# ---------------------------------------------------------------------------------------------
# Reads


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
        context = _context(info)
        picked = context.pick(info, type_name, through_items=True)
        request = ListRequest.parse(
            context.caller,
            context.workspace_id,
            type_name,
            page=_or(page, 1),
            page_size=_or(pageSize, DEFAULT_PAGE_SIZE),
            sort=sort,
            filter=plain(filter),
            fields=picked.fields,
            locale=locale,
            links=picked.links,
            cursor=cursor,
            version=plain(version),
        )
        return _read(
            context, info, type_name, True, request.view, lambda: service.list_entries(request)
        )

    return resolve


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
    object_type, nodes = _entry_nodes(info, through_items)
    aheads = context.ahead(info, type_name, object_type, nodes, view)
    read_ahead = context.reader(aheads) if aheads else None

    def both() -> tuple[Any, _ReadAhead | None]:
        answer = read()
        if read_ahead is None:
            return answer, None
        entries = answer.items if isinstance(answer, EntryPage) else [answer]
        return answer, read_ahead([e for e in entries if e is not None])

    def keep(answer: Any, loaded: _ReadAhead | None) -> Any:
        if loaded is not None:
            context.remember(loaded)
        return answer

    if context.alone:
        return keep(*both())

    async def hop() -> Any:
        return keep(*await asyncio.to_thread(both))

    return hop()


async def _read_back(
    context: Context, info: GraphQLResolveInfo, type_name: str, entry_id: str
) -> Entry:
    """A written entry read back, as the single entry field reads it."""
    found = _get(context, info, type_name, entry_id)
    entry: Entry = await found if inspect.isawaitable(found) else found
    return entry


def single_entry_field(type_name: str) -> Resolver:
    def resolve(_root: Any, info: GraphQLResolveInfo, id: str, version: Any = None) -> Any:
        return _get(_context(info), info, type_name, id, plain(version))

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
        context = _context(info)
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
        context = _context(info)
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


def to_many_relation(source_type: str, relation: str, target_type: str) -> Resolver:
    def resolve(
        entry: Entry,
        info: GraphQLResolveInfo,
        page: int | None = None,
        pageSize: int | None = None,  # noqa: N803
    ) -> Any:
        context = _context(info)
        picked = context.pick(info, target_type, through_items=False)
        request = RelationRequest.parse(
            context.caller,
            context.workspace_id,
            source_type,
            entry.id,
            relation,
            page=_or(page, 1),
            page_size=_or(pageSize, DEFAULT_PAGE_SIZE),
            fields=picked.fields,
            version=entry.view,
        )
        if request.page == 1:
            selection = (target_type, picked.fields, picked.links)
            found = _targets_ready(context, selection, relation, request.page_size)(entry)
            if found is not NOT_READY:
                return found
        loader = context.loader(entry.view, target_type, picked)
        return _to_many(context, info, loader, entry, request)

    async def _to_many(
        context: Context,
        info: GraphQLResolveInfo,
        loader: DataLoader,
        entry: Entry,
        request: RelationRequest,
    ) -> list[Entry]:
        if request.page > 1:
            # Spec 4.1: beyond the first page, the relations route's own call, one per row.
            related = await asyncio.to_thread(service.list_related, request)
            found = related.items
        else:
            found = await _first_visible(
                loader, await _links(context, entry, relation), request.page_size
            )
        await context.prefetch(info, target_type, found)
        return found

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
            page = _or(arguments.get("page"), 1)
            page_size = _or(arguments.get("pageSize"), DEFAULT_PAGE_SIZE)
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


# ---------------------------------------------------------------------------------------------
# Writes: the REST body model builds the WriteRequest, so both protocols refuse the same input


def _write_request(
    context: Context,
    type_name: str,
    entry_id: str | None,
    raw_input: Mapping[str, Any],
    version: int | None = None,
) -> WriteRequest:
    body: dict[str, Any] = {} if version is None else {"version": version}
    for key, value in plain(raw_input).items():
        if value is None and key in ("values", "relations"):
            continue  # an explicit null object: nothing to change
        if key == "relations":
            value = {
                name: {k: v for k, v in (change or {}).items() if v is not None}
                for name, change in value.items()
            }
        body[key] = value
    try:
        parsed = EntryWriteBody.model_validate(body)
    except ValidationError as error:
        details = [
            {
                "location": ".".join(str(part) for part in ("input", *e.get("loc", ()))),
                "problem": e.get("msg", "invalid"),
            }
            for e in error.errors()
        ]
        raise ValidationFailed("the mutation input is invalid", details=details) from None
    return parsed.request(context.caller, context.workspace_id, type_name, entry_id)


def create_mutation(type_name: str) -> Resolver:
    async def resolve(_root: Any, info: GraphQLResolveInfo, input: Mapping[str, Any]) -> Entry:
        context = _context(info)
        request = _write_request(context, type_name, None, input)
        created = await asyncio.to_thread(service.create_entry, request)
        return await _read_back(context, info, type_name, created.id)

    return resolve


def update_mutation(type_name: str) -> Resolver:
    async def resolve(
        _root: Any,
        info: GraphQLResolveInfo,
        id: str,
        input: Mapping[str, Any],
        version: int | None = None,
    ) -> Entry:
        context = _context(info)
        request = _write_request(context, type_name, id, input, version)
        updated = await asyncio.to_thread(service.update_entry, request)
        return await _read_back(context, info, type_name, updated.id)

    return resolve


def _action(context: Context, type_name: str, entry_id: str) -> EntryAction:
    return EntryAction(
        caller=context.caller,
        workspace_id=context.workspace_id,
        content_type=type_name,
        id=entry_id,
    )


def state_mutation(type_name: str, change: Callable[[EntryAction], Entry]) -> Resolver:
    """`change` (`service.publish_entry` or `unpublish_entry`), then the entry read back."""

    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str) -> Entry:
        context = _context(info)
        changed = await asyncio.to_thread(change, _action(context, type_name, id))
        return await _read_back(context, info, type_name, changed.id)

    return resolve


def delete_mutation(type_name: str) -> Resolver:
    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str) -> bool:
        context = _context(info)
        await asyncio.to_thread(service.delete_entry, _action(context, type_name, id))
        return True

    return resolve


def restore_version_mutation(type_name: str) -> Resolver:
    """`restoreXVersion(id, version)`: snapshot `version` copied into the draft, read back."""

    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str, version: int) -> Entry:
        context = _context(info)
        request = VersionRequest(context.caller, context.workspace_id, type_name, id, version)
        restored = await asyncio.to_thread(service.restore_version, request)
        return await _read_back(context, info, type_name, restored.id)

    return resolve


def schedule_mutation(type_name: str) -> Resolver:
    """`scheduleX(id, action, at)`: the schedule, as REST's POST .../schedules answers it."""

    async def resolve(
        _root: Any, info: GraphQLResolveInfo, id: str, action: Any, at: str
    ) -> dict[str, Any]:
        context = _context(info)
        request = ScheduleRequest(
            context.caller, context.workspace_id, type_name, id, str(plain(action)), at
        )
        schedule = await asyncio.to_thread(service.create_schedule, request)
        return schedule.to_json()

    return resolve


def cancel_schedule_mutation(type_name: str) -> Resolver:
    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str, scheduleId: str) -> bool:  # noqa: N803
        context = _context(info)
        request = ScheduleAction(context.caller, context.workspace_id, type_name, id, scheduleId)
        await asyncio.to_thread(service.cancel_schedule, request)
        return True

    return resolve
