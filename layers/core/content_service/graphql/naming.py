"""Every GraphQL name of one schema, allocated once so no two things share a name.

Content types keep the names docs/graphql.md ("The schema") gives them (`blog_post` ->
`BlogPost`, `blogPost`, `blogPosts`, `createBlogPost`...:
`content_service.content.schema.graphql_names`, the same function the content-type validation
uses, so a name the validation accepted is the name served). The adapter's own types yield to
them: shared types (`EntryStatus`, `Filter`, `FilterOp`, `RelationLinkInput`, `Long`, `JSON`,
`EntryVersion`, `EntryUser`, `EntrySchedule`, `ScheduleAction`, `ScheduleStatus`) and per-type
helpers (`BlogPostList`, `BlogPostCreateInput`, `BlogPostUpdateInput`, `BlogPostValuesInput`,
`BlogPostRelationsInput`, `BlogPostLinkedFrom`, and `BlogPostColor` for an enum field `color`)
take their plain name unless a visible content type (or an earlier helper) already has it, and
otherwise the plain name followed by `_` (repeated until free). A derived content-type name
never contains `_`, so the fallback cannot collide with one. Only visible types take part, so a
schema never hints at a type the caller is not granted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from content_service.content.schema import ContentType, graphql_names

BUILTIN_NAMES = frozenset(
    {"String", "Int", "Float", "Boolean", "ID", "Query", "Mutation", "Subscription"}
)
SHARED = (
    "EntryStatus",
    "FilterOp",
    "Filter",
    "RelationLinkInput",
    "Long",
    "JSON",
    "EntryVersion",
    "EntryUser",
    "EntrySchedule",
    "ScheduleAction",
    "ScheduleStatus",
    "Asset",
    "AssetTransform",
    "AssetFit",
    "AssetFocus",
    "AssetFormat",
)
# GraphQL forbids these as enum values; Python's Enum forbids `mro`. An enum field holding one
# is served as a String instead.
FORBIDDEN_ENUM_VALUES = frozenset({"true", "false", "null", "mro"})


def pascal(snake: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_"))


def enum_supported(values: Iterable[str]) -> bool:
    values = tuple(values)
    return bool(values) and not FORBIDDEN_ENUM_VALUES.intersection(values)


@dataclass
class TypeNames:
    """The names one content type takes in a schema."""

    object: str
    single_field: str
    list_field: str
    list_envelope: str = ""
    values_input: str = ""
    relations_input: str = ""
    create_input: str = ""
    update_input: str = ""
    linked_from: str = ""
    enums: dict[str, str] = field(default_factory=dict)

    def mutation(self, verb: str) -> str:
        return f"{verb}{self.object}"


@dataclass
class SchemaNames:
    shared: dict[str, str]
    types: dict[str, TypeNames]


class _Allocator:
    def __init__(self) -> None:
        self.taken: set[str] = set(BUILTIN_NAMES)

    def reserve(self, name: str) -> None:
        self.taken.add(name)

    def claim(self, wanted: str) -> str:
        name = wanted
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name


def allocate(types: Mapping[str, ContentType]) -> SchemaNames:
    """Names for a schema over `types` (the visible ones), deterministic for a given set."""
    allocator = _Allocator()
    ordered = sorted(types)
    names: dict[str, TypeNames] = {}
    for type_name in ordered:
        derived = graphql_names(type_name)
        allocator.reserve(derived.type_name)
        names[type_name] = TypeNames(
            object=derived.type_name,
            single_field=derived.single_field,
            list_field=derived.list_field,
        )
    shared = {name: allocator.claim(name) for name in SHARED}
    for type_name in ordered:
        content_type = types[type_name]
        own = names[type_name]
        base = own.object
        if not content_type.is_single:
            own.list_envelope = allocator.claim(f"{base}List")
        own.values_input = allocator.claim(f"{base}ValuesInput")
        own.relations_input = allocator.claim(f"{base}RelationsInput")
        own.create_input = allocator.claim(f"{base}CreateInput")
        own.update_input = allocator.claim(f"{base}UpdateInput")
        own.linked_from = allocator.claim(f"{base}LinkedFrom")
        for definition in content_type.fields:
            if definition.type == "enum" and enum_supported(definition.values):
                own.enums[definition.name] = allocator.claim(f"{base}{pascal(definition.name)}")
    return SchemaNames(shared=shared, types=names)
