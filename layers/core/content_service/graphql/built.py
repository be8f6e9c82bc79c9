"""A built schema and the executor's direct paths through it.

`BuiltSchema` is what `build.py` hands the pipeline: the executable schema, its cost model, and
the fields the executor completes without calling their resolver (`leaves`: a scalar read
straight from the entry; `directs`: a value already loaded).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLLeafType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    is_leaf_type,
    print_schema,
)

from content_service.content.schema import ContentType, FieldDef
from content_service.graphql.cost_limits import CostModel
from content_service.graphql.introspection_bound import INTROSPECTION_FACTOR, standard_size
from content_service.graphql.naming import SchemaNames

LeafField = tuple[Callable[[Any], Any], Callable[[Any], Any], bool]
"""(getter of the entry's value, its serializer, whether the field is non-null)."""
DirectField = Callable[..., Any]
"""A resolver's `ready(execution, field, nodes)`: a function of the source that answers the
value when it needs no resolver call (or NOT_READY), or None when the selection cannot."""


@dataclass(eq=False)
class BuiltSchema:
    """An executable schema and what the pipeline needs beside it."""

    workspace_id: str
    version: int
    type_names: frozenset[str]
    schema: GraphQLSchema
    cost_model: CostModel
    types: Mapping[str, ContentType]
    relations: Mapping[str, Mapping[str, FieldDef]]
    names: SchemaNames
    writable: bool
    """Built for a caller who may write: only then are there mutations (if any type is visible)."""
    graphene_schema: Any = field(repr=False)
    leaves: Mapping[tuple[str, str], LeafField] = field(default_factory=dict, repr=False)
    """Scalar fields read straight from the entry or page (the executor's fast path)."""
    directs: Mapping[tuple[str, str], DirectField] = field(default_factory=dict, repr=False)
    """Fields completed without their resolver when their value is ready (the executor's)."""
    _sdl: str | None = field(default=None, repr=False)
    execution_class: Any = field(default=None, repr=False)

    @functools.cached_property
    def introspection_limit(self) -> int:
        """The most values introspection may answer (`introspection_bound`), counted on the first
        document that introspects."""
        return INTROSPECTION_FACTOR * standard_size(self.schema)

    @property
    def sdl(self) -> str:
        if self._sdl is None:
            self._sdl = print_schema(self.schema)
        return self._sdl

    @property
    def key(self) -> tuple[str, int, frozenset[str], bool]:
        """What the schema was built for (the schema cache's key, `graphql.cache`)."""
        return (self.workspace_id, self.version, self.type_names, self.writable)


def _fast_serializer(leaf_type: GraphQLLeafType) -> Callable[[Any], Any]:
    """`leaf_type.serialize`, with the common case answered without its checks: a str for
    String and ID, a bool for Boolean, a float for Float, a known member for an enum."""
    serialize = leaf_type.serialize
    plain = {"String": str, "ID": str, "Boolean": bool, "Float": float}.get(leaf_type.name)
    if isinstance(leaf_type, GraphQLEnumType):
        names = {
            getattr(member.value, "value", member.value): name
            for name, member in leaf_type.values.items()
        }

        def enum_value(value: Any) -> Any:
            found = names.get(value) if isinstance(value, str) else None
            return found if found is not None else serialize(value)

        return enum_value
    if plain is not None:

        def plain_value(value: Any) -> Any:
            return value if type(value) is plain else serialize(value)

        return plain_value
    return serialize


def direct_fields(
    schema: GraphQLSchema,
) -> tuple[dict[tuple[str, str], LeafField], dict[tuple[str, str], DirectField]]:
    """The fields of this build's object types whose resolvers offer a direct path: `leaf` (a
    scalar read from the source, no arguments) or `ready` (a value available without a call)."""
    leaves: dict[tuple[str, str], LeafField] = {}
    directs: dict[tuple[str, str], DirectField] = {}
    for type_name, object_type in schema.type_map.items():
        if not isinstance(object_type, GraphQLObjectType) or type_name.startswith("__"):
            continue
        for field_name, definition in object_type.fields.items():
            getter = getattr(definition.resolve, "leaf", None)
            ready = getattr(definition.resolve, "ready", None)
            field_type = definition.type
            non_null = isinstance(field_type, GraphQLNonNull)
            named = field_type.of_type if non_null else field_type
            if getter is not None and not definition.args and is_leaf_type(named):
                leaves[(type_name, field_name)] = (getter, _fast_serializer(named), non_null)
            elif ready is not None:
                directs[(type_name, field_name)] = ready
    return leaves, directs


def by_attribute(name: str) -> Callable[[Any, Any], Any]:
    """An entry attribute's resolver, with its `leaf` getter for the direct path."""

    def leaf(entry: Any) -> Any:
        return getattr(entry, name)

    def resolve(entry: Any, _info: Any) -> Any:
        return leaf(entry)

    resolve.leaf = leaf  # type: ignore[attr-defined]
    return resolve


def by_key(name: str) -> Callable[[Any, Any], Any]:
    """A field of a plain JSON object (a schedule, a user) by its key."""

    def resolve(source: Mapping[str, Any], _info: Any) -> Any:
        return source.get(name)

    return resolve


def by_value(name: str) -> Callable[[Any, Any], Any]:
    """A field value's resolver, with its `leaf` getter for the direct path."""

    def leaf(entry: Any) -> Any:
        return entry.values.get(name)

    def resolve(entry: Any, _info: Any) -> Any:
        return leaf(entry)

    resolve.leaf = leaf  # type: ignore[attr-defined]
    return resolve
