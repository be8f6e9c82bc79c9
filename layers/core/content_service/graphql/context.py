"""The per-request context of the GraphQL resolvers: the caller, the selection each field
reads (`Picked`), and the read-ahead that loads a level's relation targets in one round
(`Context.prefetch`, one DataLoader per target type and selection; see `resolvers.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import Enum as PyEnum
from typing import Any, Protocol

from graphene.utils.dataloader import DataLoader
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLSchema,
    get_named_type,
)
from graphql.execution.collect_fields import collect_sub_fields
from graphql.execution.values import get_argument_values

from content_service.content import service
from content_service.content.entries import Entry, View
from content_service.content.relations import Targets
from content_service.content.requests import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
)
from content_service.content.schema import ASSET_TYPE, ContentType, FieldDef
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
            object_type, nodes = entry_nodes(info, through_items)
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
            if type_name == ASSET_TYPE:  # `Asset` shows the file's facts: read every value
                names = {f.name for f in content_type.value_fields}
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
            page = or_default(arguments.get("page"), 1)
            page_size = or_default(arguments.get("pageSize"), DEFAULT_PAGE_SIZE)
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

    def reader(self, aheads: tuple[Ahead, ...]) -> Callable[[Sequence[Entry]], ReadAhead]:
        """What reads the targets of `aheads` ahead for a level of entries, to be called in a
        worker thread (with what is loaded already, as the loaders would not ask again)."""
        known = {key: dict(self.loaded.get(key, {})) for key in _keys(aheads)}
        return lambda entries: ReadAhead(self, known).run(aheads, entries)

    def remember(self, read: ReadAhead) -> None:
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
        one worker thread hop (`ReadAhead`); the relation fields then complete without
        awaiting. Nothing here reports an error: what failed is not loaded, and the field's
        resolver asks again and raises it."""
        if not entries:
            return
        object_type, nodes = entry_nodes(info, through_items)
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


class ReadAhead:
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

    def run(self, aheads: Sequence[Ahead], entries: Sequence[Entry]) -> ReadAhead:
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


def entry_nodes(
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


def context_of(info: GraphQLResolveInfo) -> Context:
    context = info.context
    assert isinstance(context, Context)
    return context


def or_default(value: Any, default: Any) -> Any:
    return default if value is None else value
