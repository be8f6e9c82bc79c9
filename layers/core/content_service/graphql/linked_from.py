"""`linkedFrom`: on every entry type, one list field per relation that can link it.

A field is named `<source list field>By<Relation>` (`blogPostsByAuthor` for `blog_post.author`),
unique within its type since list fields are unique per schema and field names per type (a
contrived clash takes a `_`, as the adapter's other names do). Each returns the source type's
list envelope and reads it as the list field does, filtered to the entries whose relation links
this one (`eq` on a to-one relation, `contains` on a to-many one): the same visibility, view,
`filter`, `sort`, paging and cost counting as the root list. Single types are not listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import graphene

from content_service.content.schema import ContentType, FieldDef
from content_service.graphql import resolvers
from content_service.graphql.naming import SchemaNames, pascal


def linkers(
    types: Mapping[str, ContentType], relations: Mapping[str, Mapping[str, FieldDef]], target: str
) -> list[tuple[str, FieldDef]]:
    """Every (collection type, visible relation field) that can link a `target` entry."""
    return [
        (source, definition)
        for source in sorted(types)
        if not types[source].is_single
        for definition in relations[source].values()
        if definition.target == target
    ]


def linked_from_fields(
    types: Mapping[str, ContentType],
    relations: Mapping[str, Mapping[str, FieldDef]],
    names: SchemaNames,
    envelopes: Mapping[str, Any],
    filter_input: Any,
    target: str,
) -> dict[str, Any]:
    """The fields of `<Type>LinkedFrom` for `target` (empty when nothing can link it)."""
    fields: dict[str, Any] = {}
    for source, definition in linkers(types, relations, target):
        list_field = names.types[source].list_field
        name = f"{list_field}By{pascal(definition.name)}"
        while name in fields:
            name += "_"
        fields[name] = graphene.Field(
            graphene.NonNull(lambda source=source: envelopes[source]),
            args={
                "page": graphene.Argument(graphene.Int),
                "pageSize": graphene.Argument(graphene.Int),
                "sort": graphene.Argument(graphene.String),
                "filter": graphene.Argument(filter_input),
                "locale": graphene.Argument(graphene.String),
            },
            resolver=resolvers.linked_from_list(source, definition.name, definition.to_one),
            description=(
                f"The `{source}` entries whose `{definition.name}` links this entry, as the "
                f"`{list_field}` list reads them (`locale` defaults to this entry's)."
            ),
        )
    return fields


def container_field(container: Any) -> Any:
    """The `linkedFrom` field itself: it holds no data, its fields read lists about the entry."""
    return graphene.Field(
        graphene.NonNull(container),
        resolver=resolvers.linked_from_container,
        description="The entries that link this one, one field per relation that can.",
    )
