"""The GraphQL schema built from content types, without storage: shape, names, inputs, scalars,
the cost model's view of it, and the request-body rules."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    Undefined,
    build_schema,
    coerce_input_value,
    parse,
    print_schema,
)

from content_service.content.schema import ContentType, FieldDef
from content_service.graphql.build import build_schema as build
from content_service.graphql.context import plain
from content_service.graphql.cost_limits import Cost, CostModel, FieldKind, measure
from content_service.graphql.errors import RequestError
from content_service.graphql.execution import VALIDATION_RULES, prepare
from content_service.graphql.scalars import long_literal, long_serialize, long_value
from content_service.graphql.transport import (
    MAX_VARIABLE_DEPTH,
    MAX_VARIABLE_NODES,
    GraphQLRequest,
    check_variables,
    parse_body,
)
from content_service.settings import GraphQLLimits

UNLIMITED = GraphQLLimits(10**9, 10**9, 10**9, 10**12)


def field(name: str, kind: str, *extra: Any) -> FieldDef:
    if kind == "relation":
        target, cardinality = extra
        return FieldDef(name, "relation", key=f"k_{name}", target=target, cardinality=cardinality)
    if kind == "enum":
        return FieldDef(name, "enum", key=f"k_{name}", values=tuple(extra[0]))
    return FieldDef(name, kind, key=f"k_{name}")  # type: ignore[arg-type]


def content_type(
    name: str, *fields: FieldDef, kind: str = "collection", gated: bool = False
) -> ContentType:
    return ContentType(
        workspace_id="ws",
        name=name,
        kind="single" if kind == "single" else "collection",
        localized=True,
        audience_gated=gated,
        title_field=None,
        fields=fields,
        revision=1,
        field_seq=len(fields),
        created_at="",
        updated_at="",
    )


BLOG = {
    "blog_post": content_type(
        "blog_post",
        field("title", "string"),
        field("body", "richtext"),
        field("views", "integer"),
        field("score", "float"),
        field("hot", "boolean"),
        field("day", "date"),
        field("at", "datetime"),
        field("color", "enum", ["red", "green"]),
        field("meta", "json"),
        field("author", "relation", "author", "many-to-one"),
        field("cover", "relation", "image", "one-to-one"),
        field("tags", "relation", "tag", "many-to-many"),
        field("sections", "relation", "tag", "one-to-many"),
        gated=True,
    ),
    "author": content_type("author", field("name", "string")),
    "tag": content_type("tag", field("name", "string")),
    "image": content_type("image", field("url", "string")),
    "site_settings": content_type("site_settings", field("site_name", "string"), kind="single"),
}


def schema_of(types: dict[str, ContentType]) -> GraphQLSchema:
    return build("ws", 1, types).schema


def object_type(schema: GraphQLSchema, name: str) -> GraphQLObjectType:
    found = schema.type_map[name]
    assert isinstance(found, GraphQLObjectType)
    return found


def input_type(schema: GraphQLSchema, name: str) -> GraphQLInputObjectType:
    found = schema.type_map[name]
    assert isinstance(found, GraphQLInputObjectType)
    return found


def test_names_and_root_fields_follow_spec_2_1() -> None:
    schema = schema_of(BLOG)
    query = object_type(schema, "Query")
    assert set(query.fields) == {
        "blogPost",
        "blogPosts",
        "author",
        "authors",
        "tag",
        "tags",
        "image",
        "images",
        "siteSettings",
    }
    assert str(query.fields["blogPost"].type) == "BlogPost"
    assert set(query.fields["blogPost"].args) == {"id", "version"}
    assert str(query.fields["blogPost"].args["version"].type) == "EntryVersion"
    assert str(query.fields["blogPost"].args["id"].type) == "ID!"
    assert str(query.fields["blogPosts"].type) == "BlogPostList!"
    assert {name: str(a.type) for name, a in query.fields["blogPosts"].args.items()} == {
        "page": "Int",
        "pageSize": "Int",
        "sort": "String",
        "filter": "Filter",
        "locale": "String",
        "cursor": "String",
        "version": "EntryVersion",
    }
    # A single type: one field taking `locale`, returning the record itself.
    assert str(query.fields["siteSettings"].type) == "SiteSettings"
    assert set(query.fields["siteSettings"].args) == {"locale", "version"}
    assert "siteSettingss" not in query.fields
    envelope = object_type(schema, "BlogPostList")
    assert {n: str(f.type) for n, f in envelope.fields.items()} == {
        "items": "[BlogPost!]!",
        "total": "Int!",
        "nextCursor": "String",
    }
    mutation = object_type(schema, "Mutation")
    for verb in ("create", "update", "publish", "unpublish", "discard", "schedule", "delete"):
        assert f"{verb}BlogPost" in mutation.fields
        assert f"{verb}SiteSettings" in mutation.fields
    assert "restoreBlogPostVersion" in mutation.fields
    assert "cancelBlogPostSchedule" in mutation.fields
    assert str(mutation.fields["deleteBlogPost"].type) == "Boolean"
    assert str(mutation.fields["createBlogPost"].args["input"].type) == "BlogPostCreateInput!"
    assert set(mutation.fields["updateBlogPost"].args) == {"id", "input", "version"}
    assert set(mutation.fields["publishBlogPost"].args) == {"id"}
    assert set(mutation.fields["discardBlogPost"].args) == {"id"}
    assert str(mutation.fields["scheduleBlogPost"].type) == "EntrySchedule"


def test_object_type_fields_and_scalar_mapping() -> None:
    schema = schema_of(BLOG)
    post = object_type(schema, "BlogPost")
    assert {n: str(f.type) for n, f in post.fields.items()} == {
        "id": "ID!",
        "status": "EntryStatus!",
        "locale": "String!",
        "localeGroupId": "ID!",
        "createdAt": "String!",
        "updatedAt": "String!",
        "publishedAt": "String",
        "entryVersion": "Int!",
        "publishedVersion": "Int",
        "updatedBy": "EntryUser",
        "audiences": "[String!]!",
        "title": "String",
        "body": "String",
        "views": "Long",
        "score": "Float",
        "hot": "Boolean",
        "day": "String",
        "at": "String",
        "color": "BlogPostColor",
        "meta": "JSON",
        "author": "Author",
        "cover": "Image",
        "tags": "[Tag!]!",
        "sections": "[Tag!]!",
    }
    assert set(post.fields["tags"].args) == {"page", "pageSize"}
    assert not post.fields["author"].args
    # Not audience-gated: no audiences field. Field names keep their spelling.
    assert "audiences" not in object_type(schema, "Author").fields
    assert "site_name" in object_type(schema, "SiteSettings").fields
    status = schema.type_map["EntryStatus"]
    assert isinstance(status, GraphQLEnumType)
    assert list(status.values) == ["DRAFT", "PUBLISHED", "CHANGED"]
    assert status.serialize("published") == "PUBLISHED"
    assert status.serialize("draft") == "DRAFT"
    filter_op = schema.type_map["FilterOp"]
    assert isinstance(filter_op, GraphQLEnumType)
    assert list(filter_op.values) == [
        "eq",
        "ne",
        "lt",
        "lte",
        "gt",
        "gte",
        "in",
        "nin",
        "contains",
        "containsAny",
        "containsAll",
        "startsWith",
        "isNull",
    ]
    filter_input = input_type(schema, "Filter")
    assert {n: str(f.type) for n, f in filter_input.fields.items()} == {
        "and": "[Filter!]",
        "or": "[Filter!]",
        "field": "String",
        "op": "FilterOp",
        "value": "JSON",
    }


def test_relations_to_types_not_granted_are_absent_from_objects_and_inputs() -> None:
    without = {k: v for k, v in BLOG.items() if k not in ("author", "tag")}
    schema = schema_of(without)
    post = object_type(schema, "BlogPost")
    assert "author" not in post.fields
    assert "tags" not in post.fields
    assert "sections" not in post.fields
    assert "cover" in post.fields
    assert set(input_type(schema, "BlogPostRelationsInput").fields) == {"cover"}
    assert "Author" not in schema.type_map
    assert "Tag" not in schema.type_map
    assert "author" not in print_schema(schema).lower()
    # With no granted relation at all, the write inputs carry no `relations`.
    alone = schema_of({"blog_post": BLOG["blog_post"]})
    assert "relations" not in input_type(alone, "BlogPostCreateInput").fields
    assert "BlogPostRelationsInput" not in alone.type_map


def test_write_inputs_declare_no_default_values() -> None:
    schema = schema_of(BLOG)
    inputs = [t for t in schema.type_map.values() if isinstance(t, GraphQLInputObjectType)]
    assert {t.name for t in inputs} >= {
        "BlogPostCreateInput",
        "BlogPostUpdateInput",
        "BlogPostValuesInput",
        "BlogPostRelationsInput",
        "RelationLinkInput",
        "Filter",
    }
    for input_object in inputs:
        for name, input_field in input_object.fields.items():
            assert input_field.default_value is Undefined, (input_object.name, name)
            assert not isinstance(input_field.type, GraphQLNonNull), (input_object.name, name)
    for root in ("Query", "Mutation"):
        for root_field in object_type(schema, root).fields.values():
            for argument in root_field.args.values():
                assert argument.default_value is Undefined
    assert "=" not in print_schema(schema)
    create = input_type(schema, "BlogPostCreateInput")
    assert {n: str(f.type) for n, f in create.fields.items()} == {
        "values": "BlogPostValuesInput",
        "relations": "BlogPostRelationsInput",
        "locale": "String",
        "localeGroupId": "ID",
        "audiences": "[String!]",
    }
    update = input_type(schema, "BlogPostUpdateInput")
    assert set(update.fields) == {"values", "relations", "audiences"}
    values = input_type(schema, "BlogPostValuesInput")
    assert "author" not in values.fields
    assert str(values.fields["views"].type) == "Long"
    assert str(values.fields["color"].type) == "BlogPostColor"
    link = input_type(schema, "RelationLinkInput")
    assert {n: str(f.type) for n, f in link.fields.items()} == {"link": "[ID!]", "unlink": "[ID!]"}


def test_an_omitted_input_field_stays_absent_and_null_stays_null() -> None:
    schema = schema_of(BLOG)
    create = input_type(schema, "BlogPostCreateInput")
    coerced = coerce_input_value(
        {"values": {"title": None, "color": "red"}, "relations": {"tags": {"link": ["a"]}}},
        create,
    )
    assert plain(coerced) == {
        "values": {"title": None, "color": "red"},
        "relations": {"tags": {"link": ["a"]}},
    }
    assert plain(coerce_input_value({}, create)) == {}
    filter_input = input_type(schema, "Filter")
    raw = {"and": [{"field": "title", "op": "eq", "value": {"x": [1, None]}}]}
    assert plain(coerce_input_value(raw, filter_input)) == raw
    assert plain(coerce_input_value({"field": "a", "op": "isNull"}, filter_input)) == {
        "field": "a",
        "op": "isNull",
    }


def test_adapter_names_yield_to_content_type_names() -> None:
    types = {
        "filter": content_type("filter", field("x", "boolean")),
        "long": content_type("long", field("n", "integer")),
        "entry_status": content_type("entry_status", field("s", "string")),
        "blog_post": content_type("blog_post", field("color", "enum", ["a", "b"])),
        "blog_post_list": content_type("blog_post_list", field("y", "string")),
        "blog_post_color": content_type("blog_post_color", field("z", "string")),
    }
    built = build("ws", 1, types)
    schema = built.schema
    # The content types keep the names docs/graphql.md ("The schema") derives...
    for name in ("Filter", "Long", "EntryStatus", "BlogPostList", "BlogPostColor"):
        assert isinstance(schema.type_map[name], GraphQLObjectType), name
    # ...and the adapter's own types take the next free name.
    assert isinstance(schema.type_map["Filter_"], GraphQLInputObjectType)
    assert str(object_type(schema, "Long").fields["n"].type) == "Long_"
    assert str(object_type(schema, "Query").fields["blogPosts"].type) == "BlogPostList_!"
    assert str(object_type(schema, "BlogPost").fields["color"].type) == "BlogPostColor_"
    assert str(object_type(schema, "Filter").fields["status"].type) == "EntryStatus_!"
    # Deterministic, and a valid schema.
    assert build("ws", 1, types).sdl == built.sdl
    assert print_schema(build_schema(built.sdl)) == built.sdl


def test_enum_values_graphql_cannot_name_are_served_as_strings() -> None:
    types = {
        "flag": content_type(
            "flag", field("answer", "enum", ["true", "false"]), field("level", "enum", ["lo"])
        )
    }
    schema = schema_of(types)
    flag = object_type(schema, "Flag")
    assert str(flag.fields["answer"].type) == "String"
    assert str(flag.fields["level"].type) == "FlagLevel"


def test_each_build_has_one_class_per_name_and_never_mixes_builds() -> None:
    everything = build("ws", 1, BLOG)
    fewer = build("ws", 1, {k: v for k, v in BLOG.items() if k != "author"})
    assert str(object_type(everything.schema, "BlogPost").fields["author"].type) == "Author"
    assert "author" not in object_type(fewer.schema, "BlogPost").fields
    shared = set(everything.schema.type_map) & set(fewer.schema.type_map)
    for name in shared:
        mine = getattr(everything.schema.type_map[name], "graphene_type", None)
        theirs = getattr(fewer.schema.type_map[name], "graphene_type", None)
        if mine is not None:
            assert mine is not theirs, name


def test_no_visible_type_still_gives_a_valid_schema() -> None:
    built = build("ws", 1, {})
    assert set(object_type(built.schema, "Query").fields) == {"_empty"}
    assert built.schema.mutation_type is None
    assert print_schema(build_schema(built.sdl)) == built.sdl
    bare = build("ws", 1, {"thing": content_type("thing")})
    mutation = object_type(bare.schema, "Mutation")
    assert "updateThing" not in mutation.fields  # nothing an update could change
    assert set(input_type(bare.schema, "ThingCreateInput").fields) == {"locale", "localeGroupId"}


def test_only_a_writer_gets_mutations_and_a_reader_s_mutation_is_forbidden() -> None:
    reader = build("ws", 1, BLOG, writable=False)
    assert reader.schema.mutation_type is None
    assert "Mutation" not in reader.sdl
    assert build("ws", 1, BLOG, writable=True).schema.mutation_type is not None
    mutation = GraphQLRequest('mutation { deleteBlogPost(id: "x") }', None, None)
    with pytest.raises(RequestError) as forbidden:
        prepare(reader, mutation, GraphQLLimits())
    assert (forbidden.value.code, forbidden.value.status) == ("FORBIDDEN", 403)
    # A writer without any visible type has no Mutation either: that is a wrong document.
    with pytest.raises(RequestError) as invalid:
        prepare(build("ws", 1, {}, writable=True), mutation, GraphQLLimits())
    assert (invalid.value.code, invalid.value.status) == ("GRAPHQL_VALIDATION_FAILED", 400)


def test_the_cost_model_classifies_the_built_schema() -> None:
    built = build("ws", 1, BLOG)
    model = built.cost_model
    assert isinstance(model, CostModel)
    expected = {
        ("Query", "blogPosts"): FieldKind.LIST,
        ("Query", "blogPost"): FieldKind.ONE,
        ("Query", "siteSettings"): FieldKind.ONE,
        ("BlogPostList", "items"): FieldKind.ENVELOPE_ITEMS,
        ("BlogPostList", "total"): FieldKind.SCALAR,
        ("BlogPost", "tags"): FieldKind.TO_MANY,
        ("BlogPost", "sections"): FieldKind.TO_MANY,
        ("BlogPost", "author"): FieldKind.ONE,
        ("BlogPost", "cover"): FieldKind.ONE,
        ("BlogPost", "title"): FieldKind.SCALAR,
        ("BlogPost", "meta"): FieldKind.SCALAR,
        ("Mutation", "createBlogPost"): FieldKind.ONE,
        ("Mutation", "deleteBlogPost"): FieldKind.SCALAR,
    }
    for (parent, name), kind in expected.items():
        assert model.field(parent, name)[0] == kind, (parent, name)
    cost = measure(
        parse(
            "{ blogPosts(pageSize: 10) { total items { title author { name } "
            "tags(pageSize: 4) { name } } } siteSettings { site_name } }"
        ),
        model,
        UNLIMITED,
    )
    # blogPosts 10, author 10 x 1, tags 10 x 4, siteSettings 1.
    assert cost == Cost(depth=4, fields=10, complexity=10 + 10 + 40 + 1)


def test_the_sdl_round_trips_through_graphql_core() -> None:
    built = build("ws", 1, BLOG)
    assert print_schema(build_schema(built.sdl)) == built.sdl
    assert built.sdl == print_schema(built.schema)


def test_validation_keeps_every_specified_rule() -> None:
    from graphql import specified_rules

    assert tuple(VALIDATION_RULES) == tuple(specified_rules)


def test_long_carries_64_bit_integers_and_refuses_the_rest() -> None:
    assert long_serialize(2**63 - 1) == 2**63 - 1
    assert long_value(-(2**63)) == -(2**63)
    for bad in (2**63, -(2**63) - 1, 1.5, "12", True, None):
        with pytest.raises(Exception):  # noqa: B017, PT011 (graphql-core's own errors)
            long_value(bad)
    from graphql import IntValueNode, StringValueNode

    assert long_literal(IntValueNode(value=str(2**40))) == 2**40
    assert long_literal(IntValueNode(value=str(2**64))) is Undefined
    assert long_literal(StringValueNode(value="1")) is Undefined


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "not valid JSON"),
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'"query"', "JSON object"),
        (b"{}", "query"),
        (b'{"query": 5}', "query"),
        (b'{"query": "{ a }", "variables": [1]}', "variables"),
        (b'{"query": "{ a }", "variables": "x"}', "variables"),
        (b'{"query": "{ a }", "operationName": 3}', "operationName"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"query": "{ a }", "query": "{ b }"}', "the key 'query' appears twice"),
        (b'{"query": "{ a }", "variables": {"\\udfff": 1}}', "body.variables.\\udfff"),
    ],
)
def test_malformed_bodies_are_request_errors(raw: bytes, message: str) -> None:
    with pytest.raises(RequestError) as refused:
        parse_body(raw)
    assert refused.value.code == "BAD_REQUEST"
    assert refused.value.status == 400
    assert message in refused.value.message


def test_hostile_variables_are_refused_without_recursion() -> None:
    deep: Any = 1
    for _ in range(MAX_VARIABLE_DEPTH):
        deep = [deep]
    check_variables({"v": deep[0]})
    with pytest.raises(RequestError, match="deeper"):
        check_variables({"v": deep})
    very_deep = "[" * 50_000 + "]" * 50_000
    with pytest.raises(RequestError):
        parse_body(b'{"query": "{ a }", "variables": {"v": ' + very_deep.encode() + b"}}")
    assert parse_body(json.dumps({"query": "{ a }", "variables": {"v": deep[0]}}).encode())
    check_variables({"v": list(range(MAX_VARIABLE_NODES - 2))})
    with pytest.raises(RequestError, match="more than"):
        check_variables({"v": list(range(MAX_VARIABLE_NODES))})


def _entry(**changes: Any) -> Any:
    from content_service.content.entries import Entry

    base: dict[str, Any] = {
        "id": "e1",
        "content_type": "blog_post",
        "status": "published",
        "locale": "en",
        "locale_group_id": "e1",
        "created_at": "2024-01-01T00:00:00.000Z",
        "updated_at": "2024-01-01T00:00:00.000Z",
        "published_at": None,
        "audiences": ("a",),
        "values": {"title": "T", "views": 2**40, "color": "red", "meta": {"x": [1]}},
    }
    base.update(changes)
    return Entry(**base)


@pytest.mark.parametrize(
    "entry",
    [
        _entry(),
        _entry(status=None),  # a null in a non-null field
        _entry(values={"views": "not a number", "color": "purple", "title": 5}),
        _entry(values={}),
    ],
    ids=["plain", "null in non-null", "values the types refuse", "no values"],
)
def test_the_fast_path_for_scalar_fields_answers_as_graphql_core_does(
    entry: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from graphql import ExecutionContext, ExecutionResult, execute

    from content_service.content import service
    from content_service.graphql import execution
    from content_service.graphql.context import Context
    from content_service.identity.principal import UserCaller

    built = build("ws", 1, BLOG)
    monkeypatch.setattr(service, "get_entry", lambda request: entry)
    document = parse(
        '{ blogPost(id: "e1") { id status locale publishedAt audiences title views color meta '
        "alias: title __typename } }"
    )

    def run(execution_class: type[ExecutionContext]) -> Any:
        context = Context(UserCaller("u", "e", "admin"), "ws", built.types, built.relations)
        outcome = execute(
            built.schema,
            document,
            context_value=context,
            execution_context_class=execution_class,
        )
        if asyncio.iscoroutine(outcome):
            # A fresh loop in a thread of its own: another test may leave this thread's loop
            # running (Playwright's sync API does).
            with ThreadPoolExecutor(1) as pool:
                result: ExecutionResult = pool.submit(asyncio.run, outcome).result()
        else:
            assert isinstance(outcome, ExecutionResult)
            result = outcome
        return result.data, [(e.message, e.path) for e in result.errors or []]

    fast = run(execution._execution_class(built))
    assert fast == run(ExecutionContext)
    assert built.leaves  # the fast path was there to take


def _post(entry_id: str, **changes: Any) -> Any:
    changes.setdefault("links", {"author": ("a1",), "tags": ("t1", "gone", "t2"), "cover": ()})
    return _entry(id=entry_id, locale_group_id=entry_id, **changes)


@pytest.mark.parametrize(
    ("posts", "targets"),
    [
        ([_post("p1"), _post("p2")], {}),
        ([_post("p1"), _post("p2", status=None)], {}),  # a null in a non-null field of an item
        ([_post("p1")], {"a1": {"status": None}}),  # ... of a to-one target
        ([_post("p1")], {"t2": {"status": None}}),  # ... of a to-many target
        ([_post("p1")], {"t1": {"values": {"name": 5}}}),  # a value String serializes
        ([_post("p1", links={})], {}),  # relations not read: the resolvers load them
    ],
    ids=["plain", "null item", "null to-one", "null to-many", "odd value", "links not read"],
)
def test_the_direct_paths_answer_as_graphql_core_does(
    posts: list[Any], targets: dict[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's items and its relations completed without resolvers (their targets read ahead)
    give graphql-core's data and errors, paths included, whatever the rows hold."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from graphql import ExecutionContext, execute

    from content_service.content import service
    from content_service.content.entries import EntryPage
    from content_service.graphql import execution
    from content_service.graphql.context import Context
    from content_service.identity.principal import UserCaller

    built = build("ws", 1, BLOG)
    everyone = {
        "a1": _entry(id="a1", content_type="author", values={"name": "Ann"}),
        "t1": _entry(id="t1", content_type="tag", values={"name": "one"}),
        "t2": _entry(id="t2", content_type="tag", values={"name": "two"}),
    }
    for target_id, changes in targets.items():
        everyone[target_id] = dataclasses.replace(everyone[target_id], **changes)
    by_id = {p.id: p for p in posts}
    monkeypatch.setattr(
        service, "list_entries", lambda request: EntryPage(list(posts), len(posts), 1, 25)
    )
    monkeypatch.setattr(service, "require_type", lambda caller, ws, name: BLOG[name])
    monkeypatch.setattr(
        service,
        "load_entries_by_ids",
        lambda caller, ws, content_type, ids, fields, links, view: {
            i: dataclasses.replace(by_id[i], links={"author": ("a1",)} if "author" in links else {})
            if i in by_id
            else everyone[i]
            for i in ids
            if i in by_id or i in everyone
        },
    )
    document = parse(
        "{ blogPosts { total items { id status title author { id status name } "
        "tags(pageSize: 2) { id status name } cover { id } } } }"
    )

    def run(execution_class: type[ExecutionContext], alone: bool) -> Any:
        context = Context(
            UserCaller("u", "e", "admin"), "ws", built.types, built.relations, alone=alone
        )

        async def answer() -> Any:
            outcome = execute(
                built.schema,
                document,
                context_value=context,
                execution_context_class=execution_class,
            )
            return await outcome if asyncio.iscoroutine(outcome) else outcome

        # A fresh loop in a thread of its own (see the scalar test above).
        with ThreadPoolExecutor(1) as pool:
            result = pool.submit(asyncio.run, answer()).result()
        return result.data, [(e.message, e.path) for e in result.errors or []]

    expected = run(ExecutionContext, alone=False)
    assert run(execution._execution_class(built), alone=False) == expected
    assert run(execution._execution_class(built), alone=True) == expected
    assert built.directs  # the direct paths were there to take
