"""Resolvers: each turns a field and its arguments into the request the REST route builds, and
calls the same service function (ARCHITECTURE.md principle 1). No storage access here.

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
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum as PyEnum
from typing import Any

from graphene.utils.dataloader import DataLoader
from graphql import FieldNode, GraphQLObjectType, GraphQLResolveInfo, get_named_type
from graphql.execution.collect_fields import collect_sub_fields
from graphql.execution.values import get_argument_values
from pydantic import ValidationError

from content_service.api.routes.content import EntryWriteBody
from content_service.content import service
from content_service.content.model import ContentType, FieldDef
from content_service.content.requests import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    EntryAction,
    GetRequest,
    ListRequest,
    RelationRequest,
    WriteRequest,
)
from content_service.content.views import Entry, EntryPage
from content_service.errors import ValidationFailed
from content_service.identity.principal import Caller

Resolver = Callable[..., Any]


@dataclass(frozen=True)
class Picked:
    """What a selection reads of one content type: value fields and relation links."""

    fields: tuple[str, ...]
    links: tuple[str, ...]


@dataclass
class Context:
    """One request: the live caller, its workspace, and the request's loaders."""

    caller: Caller
    workspace_id: str
    types: Mapping[str, ContentType]
    """The content types the schema was built from (to tell value fields from relations)."""
    relations: Mapping[str, Mapping[str, FieldDef]]
    """Relation fields present in the schema, by content type (targets visible when built)."""
    loaders: dict[tuple[str, tuple[str, ...], tuple[str, ...]], DataLoader] = field(
        default_factory=dict
    )
    picks: dict[tuple[Any, ...], Picked] = field(default_factory=dict)

    def loader(self, type_name: str, picked: Picked) -> DataLoader:
        key = (type_name, picked.fields, picked.links)
        found = self.loaders.get(key)
        if found is None:
            found = DataLoader(
                batch_load_fn=self._batch(type_name, picked), loop=asyncio.get_running_loop()
            )
            self.loaders[key] = found
        return found

    def _batch(
        self, type_name: str, picked: Picked
    ) -> Callable[[list[str]], Awaitable[list[Entry | None]]]:
        caller, workspace_id = self.caller, self.workspace_id

        def load(ids: list[str]) -> dict[str, Entry]:
            # The live type, through the live caller: a revoked or deleted type is an error.
            content_type = service.require_type(caller, workspace_id, type_name)
            return service.load_entries_by_ids(
                caller, workspace_id, content_type, ids, fields=picked.fields, links=picked.links
            )

        async def batch(ids: list[str]) -> list[Entry | None]:
            found = await asyncio.to_thread(load, list(ids))
            return [found.get(i) for i in ids]

        return batch

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
        info: GraphQLResolveInfo,
        type_name: str,
        object_type: GraphQLObjectType,
        nodes: list[FieldNode],
    ) -> Picked:
        key = (type_name, *map(id, nodes))
        found = self.picks.get(key)
        if found is None:
            names = {
                group[0].name.value for group in _sub_fields(info, object_type, nodes).values()
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

    async def prefetch(
        self,
        info: GraphQLResolveInfo,
        type_name: str,
        entries: Sequence[Entry],
        through_items: bool = False,
    ) -> None:
        """Loads the relation levels below `entries` ahead of their resolvers, level by level.

        Each level is one round of DataLoader loads started in one tick, so every (target type,
        selection) of the level is one `load_entries_by_ids` call, in one worker thread hop;
        the relation resolvers then find their targets loaded and answer without awaiting, so
        graphql-core completes the subtree without a task per row. Nothing here reports an
        error: a failed load stays in the loader, and the field's resolver raises it.
        """
        object_type, nodes = _entry_nodes(info, through_items)
        level = [(type_name, object_type, nodes, list(entries))]
        while level:
            plans: list[_Plan] = []
            for source_type, source_object, source_nodes, rows in level:
                plans.extend(self._plans(info, source_type, source_object, source_nodes, rows))
            if not plans:
                return
            await asyncio.gather(*(plan.run() for plan in plans), return_exceptions=True)
            level = [
                (plan.target_type, plan.target_object, plan.nodes, plan.found)
                for plan in plans
                if plan.found
            ]

    def _plans(
        self,
        info: GraphQLResolveInfo,
        type_name: str,
        object_type: GraphQLObjectType,
        nodes: list[FieldNode],
        rows: list[Entry],
    ) -> list[_Plan]:
        relations = self.relations.get(type_name, {})
        if not relations or not rows:
            return []
        plans: list[_Plan] = []
        for field_nodes in _sub_fields(info, object_type, nodes).values():
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
                continue  # another page is the relations route's; a bad size the resolver's error
            target = definition.target or ""
            target_object = get_named_type(graphql_field.type)
            assert isinstance(target_object, GraphQLObjectType)
            picked = self.pick_nodes(info, target, target_object, field_nodes)
            plans.append(
                _Plan(
                    loader=self.loader(target, picked),
                    links=[r.links[definition.name] for r in rows if definition.name in r.links],
                    wanted=1 if definition.to_one else page_size,
                    target_type=target,
                    target_object=target_object,
                    nodes=field_nodes,
                )
            )
        return plans


@dataclass
class _Plan:
    """One relation field of one level: its targets for every row, visible ones first."""

    loader: DataLoader
    links: list[tuple[str, ...]]
    wanted: int
    target_type: str
    target_object: GraphQLObjectType
    nodes: list[FieldNode]
    found: list[Entry] = field(default_factory=list)

    async def run(self) -> None:
        """`_first_visible` for every row at once: each round asks the loader for the next ids
        of every row still short of `wanted` and awaits them together (one batch)."""
        # (ids, [offset], visible targets found so far) per row
        rows: list[tuple[tuple[str, ...], list[int], list[Entry]]] = [
            (ids, [0], []) for ids in self.links if ids
        ]
        while True:
            asks: list[tuple[list[Entry], list[str]]] = []
            for ids, offset, found in rows:
                need = self.wanted - len(found)
                if need > 0 and offset[0] < len(ids):
                    chunk = list(ids[offset[0] : offset[0] + need])
                    offset[0] += len(chunk)
                    asks.append((found, chunk))
            if not asks:
                break
            futures = {i: self.loader.load(i) for _, chunk in asks for i in chunk}
            await asyncio.gather(*futures.values())
            for found, chunk in asks:
                found.extend(e for e in (futures[i].result() for i in chunk) if e is not None)
        seen: dict[str, Entry] = {}
        for _, _, found in rows:
            for target in found[: self.wanted]:
                seen.setdefault(target.id, target)
        self.found = list(seen.values())


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
    info: GraphQLResolveInfo, return_type: GraphQLObjectType, nodes: list[FieldNode]
) -> dict[str, list[FieldNode]]:
    if not nodes:
        return {}
    return collect_sub_fields(info.schema, info.fragments, info.variable_values, return_type, nodes)


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
    async def resolve(
        _root: Any,
        info: GraphQLResolveInfo,
        page: int | None = None,
        pageSize: int | None = None,  # noqa: N803 (the GraphQL argument name)
        sort: str | None = None,
        filter: Mapping[str, Any] | None = None,
        locale: str | None = None,
        cursor: str | None = None,
    ) -> EntryPage:
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
        )
        page_of_entries = await asyncio.to_thread(service.list_entries, request)
        await context.prefetch(info, type_name, page_of_entries.items, through_items=True)
        return page_of_entries

    return resolve


def single_entry_field(type_name: str) -> Resolver:
    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str) -> Entry:
        context = _context(info)
        return await _get(context, info, type_name, id)

    return resolve


async def _get(context: Context, info: GraphQLResolveInfo, type_name: str, entry_id: str) -> Entry:
    picked = context.pick(info, type_name, through_items=False)
    request = GetRequest.parse(
        context.caller,
        context.workspace_id,
        type_name,
        entry_id,
        fields=picked.fields,
        links=picked.links,
    )
    entry = await asyncio.to_thread(service.get_entry, request)
    await context.prefetch(info, type_name, [entry])
    return entry


def single_type_field(type_name: str) -> Resolver:
    """A single type: the list route's first item (REST's client takes the first item)."""

    async def resolve(_root: Any, info: GraphQLResolveInfo, locale: str | None = None) -> Any:
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
        )
        page = await asyncio.to_thread(service.list_entries, request)
        await context.prefetch(info, type_name, page.items)
        return page.items[0] if page.items else None

    return resolve


def envelope_items(page: EntryPage, _info: GraphQLResolveInfo) -> list[Entry]:
    return page.items


def envelope_total(page: EntryPage, _info: GraphQLResolveInfo) -> int:
    return page.total


def envelope_next_cursor(page: EntryPage, _info: GraphQLResolveInfo) -> str | None:
    return page.next_cursor


async def _first_visible(loader: DataLoader, ids: Sequence[str], wanted: int) -> list[Entry]:
    """The first `wanted` visible targets in link order, as REST's expand picks them: the first
    `wanted` ids, then more only while some were invisible (trashed, draft for a read token,
    another audience)."""
    found: list[Entry] = []
    offset = 0
    while len(found) < wanted and offset < len(ids):
        chunk = list(ids[offset : offset + wanted - len(found)])
        results = await loader.load_many(chunk)
        found.extend(r for r in results if r is not None)
        offset += len(chunk)
    return found[:wanted]


def _loaded(loader: DataLoader, ids: Sequence[str], wanted: int) -> list[Entry] | None:
    """What `_first_visible` would answer, when every id it needs is loaded already (by
    `Context.prefetch`); None otherwise. A failed load raises its error."""
    found: list[Entry] = []
    for target_id in ids:
        if len(found) >= wanted:
            break
        future = loader.load(target_id)
        if not future.done():
            return None
        target = future.result()
        if target is not None:
            found.append(target)
    return found


async def _links(context: Context, entry: Entry, relation: str) -> tuple[str, ...]:
    """The entry's linked ids; read (batched) when the entry came without them, as the
    relations route's targets do."""
    ids = entry.links.get(relation)
    if ids is not None:
        return ids
    loader = context.loader(entry.content_type, Picked((), (relation,)))
    with_links = await loader.load(entry.id)
    return with_links.links.get(relation, ()) if with_links is not None else ()


def to_one_relation(source_type: str, relation: str, target_type: str) -> Resolver:
    def resolve(entry: Entry, info: GraphQLResolveInfo) -> Any:
        context = _context(info)
        loader = context.loader(target_type, context.pick(info, target_type, through_items=False))
        ids = entry.links.get(relation)
        if ids is not None:
            ready = _loaded(loader, ids, 1)
            if ready is not None:
                return ready[0] if ready else None
        return _to_one(context, info, loader, entry)

    async def _to_one(
        context: Context, info: GraphQLResolveInfo, loader: DataLoader, entry: Entry
    ) -> Entry | None:
        ids = await _links(context, entry, relation)
        found = await _first_visible(loader, ids, 1)
        if found:
            await context.prefetch(info, target_type, found)
        return found[0] if found else None

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
        )
        loader = context.loader(target_type, picked)
        if request.page == 1:
            ids = entry.links.get(relation)
            if ids is not None:
                ready = _loaded(loader, ids, request.page_size)
                if ready is not None:
                    return ready
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

    return resolve


# ---------------------------------------------------------------------------------------------
# Writes: the REST body model builds the WriteRequest, so both protocols refuse the same input


def _write_request(
    context: Context, type_name: str, entry_id: str | None, raw_input: Mapping[str, Any]
) -> WriteRequest:
    body: dict[str, Any] = {}
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
        return await _get(context, info, type_name, created.id)

    return resolve


def update_mutation(type_name: str) -> Resolver:
    async def resolve(
        _root: Any,
        info: GraphQLResolveInfo,
        id: str,
        input: Mapping[str, Any],
    ) -> Entry:
        context = _context(info)
        request = _write_request(context, type_name, id, input)
        updated = await asyncio.to_thread(service.update_entry, request)
        return await _get(context, info, type_name, updated.id)

    return resolve


def _action(context: Context, type_name: str, entry_id: str) -> EntryAction:
    return EntryAction(
        caller=context.caller,
        workspace_id=context.workspace_id,
        content_type=type_name,
        id=entry_id,
    )


def state_mutation(type_name: str, operation: str) -> Resolver:
    """`publish_entry` or `unpublish_entry`, then the entry read back."""

    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str) -> Entry:
        context = _context(info)
        change: Callable[[EntryAction], Entry] = getattr(service, operation)
        changed = await asyncio.to_thread(change, _action(context, type_name, id))
        return await _get(context, info, type_name, changed.id)

    return resolve


def delete_mutation(type_name: str) -> Resolver:
    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str) -> bool:
        context = _context(info)
        await asyncio.to_thread(service.delete_entry, _action(context, type_name, id))
        return True

    return resolve
