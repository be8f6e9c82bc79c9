"""One executable schema for one set of visible content types, built with graphene.

The shape (docs/graphql.md, "The schema"), for a collection type
`blog_post` and a single type `site_settings`:

    type BlogPost { id: ID! status: EntryStatus! locale: String! localeGroupId: ID!
                    createdAt: String! updatedAt: String! publishedAt: String
                    audiences: [String!]!            # audience-gated types only
                    title: String  views: Long  ...   # value fields, names unchanged
                    author: Author                   # to-one relation
                    tags(page: Int, pageSize: Int): [Tag!]! }   # to-many relation
    type BlogPostList { items: [BlogPost!]! total: Int! nextCursor: String }
    type Query { blogPost(id: ID!): BlogPost
                 blogPosts(page: Int, pageSize: Int, sort: String, filter: Filter,
                           locale: String, cursor: String): BlogPostList!
                 siteSettings(locale: String): SiteSettings }
    type Mutation { createBlogPost(input: BlogPostCreateInput!): BlogPost
                    updateBlogPost(id: ID!, input: BlogPostUpdateInput!): BlogPost
                    publishBlogPost(id: ID!): BlogPost  unpublishBlogPost(id: ID!): BlogPost
                    deleteBlogPost(id: ID!): Boolean }

A caller who cannot write (a read token) gets no `Mutation` type at all. `deleteX` is nullable,
so a failed delete nulls that field alone, not `data` with the other mutations' results.
A relation whose target is not visible is left out of the object type and the write input.
Input fields and arguments declare no default values, and input objects coerce to plain dicts
keyed by their GraphQL names, so an omitted field stays absent and an explicit null stays null.

graphene keeps the first of two classes sharing a type name and silently drops the second,
so each build creates exactly one class per name and the schema is assembled from
that build's classes alone; `build` checks it. A build is cached per (workspace, schema
version, visible types) by `content_service.graphql.cache`, so classes are created once per
cache key, never per request.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

import graphene
from graphene.types.definitions import GrapheneGraphQLType
from graphql import (
    GraphQLInputObjectType,
    GraphQLSchema,
)

from content_service.assets.builtin_type import asset_definition
from content_service.content import service
from content_service.content.lists import FILTER_OPS
from content_service.content.requests import MAX_LIST_DEPTH
from content_service.content.schema import ASSET_TYPE, ContentType, FieldDef
from content_service.graphql import mutations, resolvers
from content_service.graphql.asset_type import asset_object
from content_service.graphql.built import (
    BuiltSchema,
    by_attribute,
    by_key,
    by_value,
    direct_fields,
)
from content_service.graphql.cost_limits import CostModel
from content_service.graphql.linked_from import container_field, linked_from_fields
from content_service.graphql.naming import SchemaNames, TypeNames, allocate
from content_service.graphql.scalars import (
    JSON_DESCRIPTION,
    LONG_DESCRIPTION,
    json_identity,
    json_literal,
    long_literal,
    long_serialize,
    long_value,
)

TEXT_TYPES = frozenset({"string", "text", "richtext", "date", "datetime"})


class _Builder:
    def __init__(
        self, types: Mapping[str, ContentType], names: SchemaNames, writable: bool
    ) -> None:
        self.types = types
        self.names = names
        self.writable = writable
        self.classes: list[Any] = []
        self.objects: dict[str, Any] = {}
        self.enums: dict[tuple[str, str], Any] = {}
        self.envelopes: dict[str, Any] = {}
        self.relations: dict[str, dict[str, FieldDef]] = {
            name: {f.name: f for f in t.relation_fields if (f.target or "") in types or f.is_asset}
            for name, t in types.items()
        }
        self._entry_types(names.shared)
        self.asset = asset_object(self._enum, self._input, self._object, names.shared, self.status)
        self._schedule_types(names.shared)
        self._filter_types(names.shared)

    def _entry_types(self, shared: Mapping[str, str]) -> None:
        """The scalars and the shared types every content type's object uses."""
        self.json = self._scalar(
            shared["JSON"], JSON_DESCRIPTION, json_identity, json_identity, json_literal
        )
        self.long = self._scalar(
            shared["Long"], LONG_DESCRIPTION, long_serialize, long_value, long_literal
        )
        self.status = self._enum(
            shared["EntryStatus"],
            "An entry's status; REST's `draft`, `published` and `changed` (published, with a "
            "newer draft) in upper case.",
            [("DRAFT", "draft"), ("PUBLISHED", "published"), ("CHANGED", "changed")],
        )
        self.version_view = self._enum(
            shared["EntryVersion"],
            "Which version of entries a read gets: LATEST (the preview, drafts included: a "
            "full token's default) or PUBLISHED (what a read token always gets), as REST's "
            "`version` query parameter.",
            [("LATEST", "latest"), ("PUBLISHED", "published")],
        )
        self.user = self._object(
            shared["EntryUser"],
            "The signed-in user who wrote a version.",
            {
                "id": graphene.Field(graphene.NonNull(graphene.ID), resolver=by_key("id")),
                "email": graphene.Field(
                    graphene.NonNull(graphene.String), resolver=by_key("email")
                ),
            },
        )

    def _schedule_types(self, shared: Mapping[str, str]) -> None:
        """A schedule's type and its enums."""
        self.schedule_action = self._enum(
            shared["ScheduleAction"],
            "What a schedule does when due.",
            [("PUBLISH", "publish"), ("UNPUBLISH", "unpublish")],
        )
        self.schedule_status = self._enum(
            shared["ScheduleStatus"],
            "Where a schedule stands.",
            [(s.upper(), s) for s in ("scheduled", "done", "failed", "cancelled")],
        )
        self.schedule = self._object(
            shared["EntrySchedule"],
            "A scheduled publish or unpublish (REST's POST .../schedules answer).",
            {
                "id": graphene.Field(graphene.NonNull(graphene.ID), resolver=by_key("id")),
                "action": graphene.Field(
                    graphene.NonNull(self.schedule_action), resolver=by_key("action")
                ),
                "at": graphene.Field(graphene.NonNull(graphene.String), resolver=by_key("at")),
                "status": graphene.Field(
                    graphene.NonNull(self.schedule_status), resolver=by_key("status")
                ),
                "reason": graphene.Field(graphene.String, resolver=by_key("reason")),
                "createdAt": graphene.Field(
                    graphene.NonNull(graphene.String), resolver=by_key("createdAt")
                ),
            },
        )

    def _filter_types(self, shared: Mapping[str, str]) -> None:
        """The inputs of list filters and of relation links."""
        self.filter_op = self._enum(
            shared["FilterOp"],
            "The operators of the REST filter grammar.",
            [(op, op) for op in FILTER_OPS],
        )
        self.filter = self._filter(shared["Filter"])
        self.link_input = self._input(
            shared["RelationLinkInput"],
            "Target ids to link and to unlink through one relation field.",
            {
                "link": graphene.List(graphene.NonNull(graphene.ID)),
                "unlink": graphene.List(graphene.NonNull(graphene.ID)),
            },
        )

    # -- graphene classes, one per name --------------------------------------------------------

    def _register(self, cls: Any) -> Any:
        self.classes.append(cls)
        return cls

    def _scalar(
        self,
        name: str,
        description: str,
        serialize: Callable[..., Any],
        parse_value: Callable[..., Any],
        parse_literal: Callable[..., Any],
    ) -> Any:
        meta = type("Meta", (), {"name": name, "description": description})
        attrs = {
            "Meta": meta,
            "serialize": staticmethod(serialize),
            "parse_value": staticmethod(parse_value),
            "parse_literal": staticmethod(parse_literal),
        }
        return self._register(type(f"Scalar_{name}", (graphene.Scalar,), attrs))

    def _enum(self, name: str, description: str, members: list[tuple[str, str]]) -> Any:
        python_enum = enum.Enum(f"Enum_{name}", members)  # type: ignore[misc]
        return self._register(
            graphene.Enum.from_enum(python_enum, name=name, description=description)
        )

    def _input(self, name: str, description: str, fields: Mapping[str, Any]) -> Any:
        meta = type("Meta", (), {"name": name, "description": description, "container": dict})
        attrs: dict[str, Any] = {"Meta": meta}
        for graphql_name, field_type in fields.items():
            attrs[f"f_{graphql_name}"] = graphene.InputField(field_type, name=graphql_name)
        return self._register(type(f"Input_{name}", (graphene.InputObjectType,), attrs))

    def _object(self, name: str, description: str, fields: Mapping[str, Any]) -> Any:
        meta = type("Meta", (), {"name": name, "description": description})
        attrs: dict[str, Any] = {"Meta": meta}
        for graphql_name, graphene_field in fields.items():
            graphene_field.name = graphql_name
            attrs[f"f_{graphql_name}"] = graphene_field
        return self._register(type(f"Object_{name}", (graphene.ObjectType,), attrs))

    def _filter(self, name: str) -> Any:
        def this() -> Any:
            return self.filter

        return self._input(
            name,
            "The REST filter grammar, verbatim: `{and: [...]}`, `{or: [...]}` or "
            '`{field, op, value}` (for example `{and: [{field: "title", op: eq, value: '
            '"Hello"}]}`). A relation field takes entry ids; a relation field and a field of '
            "its target joined by a dot filter by the linked entry's field.",
            {
                "and": graphene.List(graphene.NonNull(this)),
                "or": graphene.List(graphene.NonNull(this)),
                "field": graphene.String,
                "op": self.filter_op,
                "value": self.json,
            },
        )

    # -- per content type ------------------------------------------------------------------------

    def _value_type(self, content_type: ContentType, definition: FieldDef) -> Any:
        kind = definition.type
        if kind in TEXT_TYPES:
            return graphene.String
        if kind == "integer":
            return self.long
        if kind == "float":
            return graphene.Float
        if kind == "boolean":
            return graphene.Boolean
        if kind == "json":
            return self.json
        if kind == "enum":
            return self.enums.get((content_type.name, definition.name), graphene.String)
        raise ValueError(f"no GraphQL type for field type {kind!r}")

    def _field_enums(self, content_type: ContentType, own: TypeNames) -> None:
        for definition in content_type.fields:
            enum_name = own.enums.get(definition.name)
            if enum_name is not None:
                self.enums[(content_type.name, definition.name)] = self._enum(
                    enum_name,
                    f"The values of field `{definition.name}` of `{content_type.name}`.",
                    [(v, v) for v in definition.values],
                )

    def _system_fields(self, content_type: ContentType) -> dict[str, Any]:
        """The fields every entry has, whatever its type: id, status, locale, times, versions."""
        non_null = graphene.NonNull
        fields: dict[str, Any] = {
            "id": graphene.Field(non_null(graphene.ID), resolver=by_attribute("id")),
            "status": graphene.Field(non_null(self.status), resolver=by_attribute("status")),
            "locale": graphene.Field(non_null(graphene.String), resolver=by_attribute("locale")),
            "localeGroupId": graphene.Field(
                non_null(graphene.ID), resolver=by_attribute("locale_group_id")
            ),
            "createdAt": graphene.Field(
                non_null(graphene.String), resolver=by_attribute("created_at")
            ),
            "updatedAt": graphene.Field(
                non_null(graphene.String), resolver=by_attribute("updated_at")
            ),
            "publishedAt": graphene.Field(graphene.String, resolver=by_attribute("published_at")),
            "entryVersion": graphene.Field(
                non_null(graphene.Int),
                resolver=by_attribute("version"),
                description="Bumped by every write: pass it as `version` to updateX to be "
                "refused when someone saved first (REST's `version`).",
            ),
            "publishedVersion": graphene.Field(
                graphene.Int,
                resolver=by_attribute("published_version"),
                description="The number of the live snapshot; null while not published.",
            ),
            "updatedBy": graphene.Field(
                self.user,
                resolver=by_attribute("updated_by"),
                description="Who wrote this version last (null for a token, and when read "
                "as PUBLISHED).",
            ),
        }
        if content_type.audience_gated:
            fields["audiences"] = graphene.Field(
                non_null(graphene.List(non_null(graphene.String))),
                resolver=by_attribute("audiences"),
            )
        return fields

    def _relation_field(self, content_type: ContentType, definition: FieldDef) -> Any:
        """A relation's field: its linked entry, or a page of its linked entries."""
        non_null = graphene.NonNull
        target = definition.target or ""

        def target_type(target: str = target) -> Any:
            return self.asset if definition.is_asset else self.objects[target]

        if definition.to_one:
            return graphene.Field(
                target_type,
                resolver=resolvers.to_one_relation(content_type.name, definition.name, target),
                description=f"The linked `{target}` ({definition.cardinality}), or null.",
            )
        return graphene.Field(
            non_null(graphene.List(non_null(target_type))),
            args={
                "page": graphene.Argument(graphene.Int),
                "pageSize": graphene.Argument(graphene.Int),
            },
            resolver=resolvers.to_many_relation(content_type.name, definition.name, target),
            description=(
                f"The linked `{target}` entries ({definition.cardinality}) in link order; "
                "`pageSize` defaults to 25 (at most 100)."
            ),
        )

    def _object_type(self, content_type: ContentType, own: TypeNames) -> Any:
        fields = self._system_fields(content_type)
        relations = self.relations[content_type.name]
        for definition in content_type.fields:
            if not definition.is_relation:
                fields[definition.name] = graphene.Field(
                    self._value_type(content_type, definition),
                    resolver=by_value(definition.name),
                )
                continue
            if definition.name not in relations:
                continue  # the target is not visible: the relation is left out
            fields[definition.name] = self._relation_field(content_type, definition)
        linked_from = linked_from_fields(
            self.types, self.relations, self.names, self.envelopes, self.filter, content_type.name
        )
        if linked_from:
            about = f"The entries that link a `{content_type.name}` entry."
            fields["linkedFrom"] = container_field(
                self._object(own.linked_from, about, linked_from)
            )
        kind = "single type" if content_type.is_single else "content type"
        return self._object(own.object, f"An entry of {kind} `{content_type.name}`.", fields)

    def _write_inputs(self, content_type: ContentType, own: TypeNames) -> tuple[Any, Any | None]:
        values = {
            d.name: self._value_type(content_type, d)
            for d in content_type.fields
            if not d.is_relation
        }
        links = {name: self.link_input for name in self.relations[content_type.name]}
        shared: dict[str, Any] = {}
        if values:
            shared["values"] = self._input(
                own.values_input,
                f"Values of `{content_type.name}` by field name: an omitted field is left "
                "unchanged, an explicit null clears it.",
                values,
            )
        if links:
            shared["relations"] = self._input(
                own.relations_input,
                f"Links to add and remove, by relation field of `{content_type.name}`.",
                links,
            )
        audiences = (
            {"audiences": graphene.List(graphene.NonNull(graphene.String))}
            if content_type.audience_gated
            else {}
        )
        create = self._input(
            own.create_input,
            f"A new entry of `{content_type.name}` (always a draft).",
            {**shared, "locale": graphene.String, "localeGroupId": graphene.ID, **audiences},
        )
        update_fields = {**shared, **audiences}
        update = (
            self._input(
                own.update_input,
                f"Changes to an entry of `{content_type.name}`.",
                update_fields,
            )
            if update_fields
            else None
        )
        return create, update

    # -- the schema ------------------------------------------------------------------------------

    def build(self, workspace_id: str, version: int) -> BuiltSchema:
        ordered = sorted(self.types)
        for type_name in ordered:
            self._field_enums(self.types[type_name], self.names.types[type_name])
        for type_name in ordered:
            self.objects[type_name] = self._object_type(
                self.types[type_name], self.names.types[type_name]
            )
        query: dict[str, Any] = {}
        mutation: dict[str, Any] = {}
        for type_name in ordered:
            self._root_fields(type_name, query, mutation)
        if not query:
            query["_empty"] = graphene.Field(
                graphene.Boolean, description="Present only when no content type is visible."
            )
        query_type = self._object("Query", "Reads of the content API.", query)
        mutation_type = (
            self._object("Mutation", "Writes of the content API (a full token).", mutation)
            if mutation and self.writable
            else None
        )
        graphene_schema = graphene.Schema(
            query=query_type, mutation=mutation_type, auto_camelcase=False
        )
        schema: GraphQLSchema = graphene_schema.graphql_schema
        mine = set(map(id, self.classes))
        for graphql_type in schema.type_map.values():
            if isinstance(graphql_type, GrapheneGraphQLType):
                # One class per name, all from this build (never graphene's silent first-wins).
                assert id(graphql_type.graphene_type) in mine, graphql_type
            if isinstance(graphql_type, GraphQLInputObjectType):
                for input_field in graphql_type.fields.values():
                    input_field.out_name = None  # coerce to dicts keyed by the GraphQL names
        entry_types = [self.names.types[t].object for t in ordered] + [self.names.shared["Asset"]]
        leaves, directs = direct_fields(schema)
        return BuiltSchema(
            leaves=leaves,
            directs=directs,
            workspace_id=workspace_id,
            version=version,
            type_names=frozenset(self.types),
            schema=schema,
            cost_model=CostModel(schema, entry_types),
            types={**self.types, ASSET_TYPE: asset_definition(workspace_id)},
            relations=self.relations,
            names=self.names,
            writable=self.writable,
            graphene_schema=graphene_schema,
        )

    def _root_fields(self, type_name: str, query: dict[str, Any], mutation: dict[str, Any]) -> None:
        self._query_fields(type_name, query)
        self._mutation_fields(type_name, mutation)

    def _query_fields(self, type_name: str, query: dict[str, Any]) -> None:
        """A single type's one field, or a collection's by-id and list fields."""
        content_type = self.types[type_name]
        own = self.names.types[type_name]
        obj = self.objects[type_name]
        id_argument = {"id": graphene.Argument(graphene.NonNull(graphene.ID))}
        version = {"version": graphene.Argument(self.version_view)}
        if content_type.is_single:
            query[own.single_field] = graphene.Field(
                obj,
                args={"locale": graphene.Argument(graphene.String), **version},
                resolver=resolvers.single_type_field(type_name),
                description=f"The `{type_name}` record in `locale` (default `en`), or null.",
            )
        else:
            envelope = self._object(
                own.list_envelope,
                f"A page of `{type_name}` entries and the number of all that match.",
                {
                    "items": graphene.Field(
                        graphene.NonNull(graphene.List(graphene.NonNull(obj))),
                        resolver=resolvers.envelope_items,
                    ),
                    "total": graphene.Field(
                        graphene.NonNull(graphene.Int), resolver=resolvers.envelope_total
                    ),
                    "nextCursor": graphene.Field(
                        graphene.String,
                        resolver=resolvers.envelope_next_cursor,
                        description="Pass as `cursor` for the next page; null on the last.",
                    ),
                },
            )
            self.envelopes[type_name] = envelope
            query[own.single_field] = graphene.Field(
                obj,
                args={**id_argument, **version},
                resolver=resolvers.single_entry_field(type_name),
                description=f"One `{type_name}` entry by id.",
            )
            query[own.list_field] = graphene.Field(
                graphene.NonNull(envelope),
                args={
                    "page": graphene.Argument(graphene.Int),
                    "pageSize": graphene.Argument(graphene.Int),
                    "sort": graphene.Argument(graphene.String),
                    "filter": graphene.Argument(self.filter),
                    "locale": graphene.Argument(graphene.String),
                    "cursor": graphene.Argument(graphene.String),
                    **version,
                },
                resolver=resolvers.list_field(type_name),
                description=(
                    f"`{type_name}` entries: `page` from 1, `pageSize` 25 by default (at most "
                    "100), `sort` like `-publishedAt,title`, `filter` in the REST grammar, "
                    "`locale` (default `en`), `cursor` (a page's `nextCursor`, instead of "
                    f"`page`, which reaches the first {MAX_LIST_DEPTH:,} entries)."
                ),
            )

    def _mutation_fields(self, type_name: str, mutation: dict[str, Any]) -> None:
        """create, update, the state changes, the workflow and delete of one type."""
        content_type = self.types[type_name]
        own = self.names.types[type_name]
        obj = self.objects[type_name]
        id_argument = {"id": graphene.Argument(graphene.NonNull(graphene.ID))}
        create, update = self._write_inputs(content_type, own)
        mutation[own.mutation("create")] = graphene.Field(
            obj,
            args={"input": graphene.Argument(graphene.NonNull(create))},
            resolver=mutations.create_mutation(type_name),
            description=f"Creates a draft `{type_name}` entry and returns it.",
        )
        if update is not None:
            mutation[own.mutation("update")] = graphene.Field(
                obj,
                args={
                    **id_argument,
                    "input": graphene.Argument(graphene.NonNull(update)),
                    "version": graphene.Argument(graphene.Int),
                },
                resolver=mutations.update_mutation(type_name),
                description="Writes the draft: omitted fields are left unchanged, an explicit "
                "null clears; a published entry stays live and turns CHANGED. With `version` "
                "(the entryVersion edited), refused when someone saved first.",
            )
        for verb, change in (
            ("publish", service.publish_entry),
            ("unpublish", service.unpublish_entry),
            ("discard", service.discard_changes),
        ):
            resolver = mutations.state_mutation(type_name, change)
            mutation[own.mutation(verb)] = graphene.Field(obj, args=id_argument, resolver=resolver)
        self._workflow_mutations(type_name, own, obj, mutation)
        mutation[own.mutation("delete")] = graphene.Field(
            graphene.Boolean,
            args={**id_argument, "force": graphene.Argument(graphene.Boolean)},
            resolver=mutations.delete_mutation(type_name),
            description="Moves the entry to the trash; returns true (null with an error when "
            "refused, leaving the other mutations' results in place). Refused (409) while "
            "published entries link it, unless `force: true`.",
        )

    def _workflow_mutations(
        self, type_name: str, own: TypeNames, obj: Any, mutation: dict[str, Any]
    ) -> None:
        """Version restore and schedules: REST's .../versions/{n}/restore and .../schedules."""
        entry_id = graphene.Argument(graphene.NonNull(graphene.ID))
        mutation[f"restore{own.object}Version"] = graphene.Field(
            obj,
            args={"id": entry_id, "version": graphene.Argument(graphene.NonNull(graphene.Int))},
            resolver=mutations.restore_version_mutation(type_name),
            description="Copies published version `version` into the draft.",
        )
        mutation[own.mutation("schedule")] = graphene.Field(
            self.schedule,
            args={
                "id": entry_id,
                "action": graphene.Argument(graphene.NonNull(self.schedule_action)),
                "at": graphene.Argument(graphene.NonNull(graphene.String)),
            },
            resolver=mutations.schedule_mutation(type_name),
            description="Publishes or unpublishes the entry at `at` (ISO 8601 with a "
            "timezone, within a year).",
        )
        mutation[f"cancel{own.object}Schedule"] = graphene.Field(
            graphene.Boolean,
            args={"id": entry_id, "scheduleId": graphene.Argument(graphene.NonNull(graphene.ID))},
            resolver=mutations.cancel_schedule_mutation(type_name),
            description="Cancels a pending schedule; returns true.",
        )


def build_schema(
    workspace_id: str, version: int, types: Mapping[str, ContentType], *, writable: bool = True
) -> BuiltSchema:
    """A schema over `types` (the content types visible to a grant set), with mutations when
    `writable` (the caller may write)."""
    return _Builder(types, allocate(types), writable).build(workspace_id, version)
