"""GraphQL reads through real HTTP: list, single entry, single type, relations (to-one, to-many,
pages beyond the first), visibility, field selection at the storage boundary, and read errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from content_service.content.schema import get_type
from infra.local_stack import LocalStack
from tests.support.content import capture, shared_workspace
from tests.support.graphql import (
    RICH,
    Blog,
    build_blog,
    data,
    only_error,
    post,
    service_calls,
)


@pytest.fixture(scope="module")
def blog(base_url: str) -> Iterator[Blog]:
    with shared_workspace(base_url) as access:
        yield build_blog(access)


def test_a_list_returns_items_and_total_only(blog: Blog) -> None:
    result = data(
        blog.access.full,
        '{ posts(sort: "title") { total items { id status locale title views } } }',
    )
    listing = result["posts"]
    assert set(listing) == {"total", "items"}
    assert listing["total"] == 5
    assert [e["title"] for e in listing["items"]] == ["alpha", "beta", "delta", "epsilon", "gamma"]
    by_title = {e["title"]: e for e in listing["items"]}
    assert by_title["alpha"]["id"] == blog.posts["alpha"]["id"]
    assert by_title["alpha"]["status"] == "PUBLISHED"
    assert by_title["delta"]["status"] == "DRAFT"
    assert by_title["epsilon"]["views"] == 2**40  # a 64-bit integer survives
    assert {e["locale"] for e in listing["items"]} == {"en"}
    paged = data(
        blog.access.full, '{ posts(sort: "title", page: 2, pageSize: 2) { items { title } } }'
    )
    assert [e["title"] for e in paged["posts"]["items"]] == ["delta", "epsilon"]
    german = data(
        blog.access.full, '{ posts(locale: "de") { total items { title localeGroupId } } }'
    )
    assert german["posts"] == {
        "total": 1,
        "items": [{"title": "alpha (de)", "localeGroupId": blog.posts["alpha"]["id"]}],
    }


def test_every_value_type_reads_back_as_rest_gives_it(blog: Blog) -> None:
    alpha = blog.posts["alpha"]
    entry = data(
        blog.access.full,
        """query ($id: ID!) { post(id: $id) {
            id status locale localeGroupId createdAt updatedAt publishedAt
            title body views score hot day at color meta } }""",
        {"id": alpha["id"]},
    )["post"]
    rest = blog.access.full.get(f"/api/v1/content/post/{alpha['id']}").json()
    assert entry == {
        "id": rest["id"],
        "status": rest["status"].upper(),
        "locale": rest["locale"],
        "localeGroupId": rest["localeGroupId"],
        "createdAt": rest["createdAt"],
        "updatedAt": rest["updatedAt"],
        "publishedAt": rest["publishedAt"],
        **rest["values"],
    }
    assert entry["meta"] == {"k": [1, 2], "n": None}
    assert entry["body"] == RICH


def test_a_single_type_field_returns_the_record_of_a_locale(blog: Blog) -> None:
    query = "query ($l: String) { siteSettings(locale: $l) { id site_name locale status } }"
    english = data(blog.access.full, query)["siteSettings"]
    assert english == {
        "id": blog.settings["en"]["id"],
        "site_name": "Site",
        "locale": "en",
        "status": "PUBLISHED",
    }
    assert data(blog.access.full, query, {"l": "de"})["siteSettings"]["site_name"] == "Seite"
    # The German record is a draft: a read token sees no record, and that is not an error.
    assert data(blog.access.read, query, {"l": "de"}) == {"siteSettings": None}
    assert data(blog.access.full, query, {"l": "fr"}) == {"siteSettings": None}


def test_relations_return_their_targets(blog: Blog) -> None:
    result = data(
        blog.access.full,
        """{ posts(sort: "title", pageSize: 10) { items { title author { name }
            tags(pageSize: 10) { name } related(pageSize: 5) { title author { name } } } } }""",
    )
    rows = {e["title"]: e for e in result["posts"]["items"]}
    assert rows["alpha"]["author"] == {"name": "Ann"}
    assert [t["name"] for t in rows["alpha"]["tags"]] == ["t3", "t1"]  # link order
    assert rows["gamma"]["author"] == {"name": "Cyd (draft)"}
    assert [t["name"] for t in rows["gamma"]["tags"]] == ["t4 (draft)", "t1", "t2", "t3"]
    assert rows["gamma"]["related"] == [
        {"title": "alpha", "author": {"name": "Ann"}},
        {"title": "beta", "author": {"name": "Bob"}},
    ]
    assert rows["epsilon"]["author"] is None  # a to-one relation with no target is null
    assert rows["epsilon"]["tags"] == [{"name": "t4 (draft)"}]
    # A read token sees published targets only, as REST's expand does.
    read = data(
        blog.access.read,
        '{ posts(sort: "title") { items { title author { name } tags(pageSize: 10) { name } } } }',
    )
    rows = {e["title"]: e for e in read["posts"]["items"]}
    assert "delta" not in rows
    assert rows["gamma"]["author"] is None
    assert [t["name"] for t in rows["gamma"]["tags"]] == ["t1", "t2", "t3"]
    assert rows["epsilon"]["tags"] == []


def test_to_many_page_size_counts_visible_targets_and_later_pages_use_the_relations_route(
    blog: Blog,
) -> None:
    gamma = blog.posts["gamma"]["id"]
    query = """query ($id: ID!, $page: Int, $size: Int) {
        post(id: $id) { tags(page: $page, pageSize: $size) { name } } }"""
    # The read token cannot see t4: the first two visible targets are t1 and t2.
    first = data(blog.access.read, query, {"id": gamma, "size": 2})
    assert [t["name"] for t in first["post"]["tags"]] == ["t1", "t2"]
    with service_calls() as calls:
        second = data(blog.access.read, query, {"id": gamma, "page": 2, "size": 2})
    assert [t["name"] for t in second["post"]["tags"]] == ["t3"]
    assert calls.reads.count("list_related") == 1
    rest = blog.access.read.get(
        f"/api/v1/content/post/{gamma}/relations/tags", params={"page": 2, "pageSize": 2}
    ).json()
    assert [e["values"]["name"] for e in rest["items"]] == ["t3"]
    # One list_related call per row for page > 1 (docs/graphql.md, "Batching"), nested relations
    # still resolve.
    with service_calls() as calls:
        rows = data(
            blog.access.full,
            """{ posts(sort: "title") { items { title
                 tags(page: 2, pageSize: 1) { name }
                 related(page: 2, pageSize: 1) { title author { name } } } } }""",
        )["posts"]["items"]
    assert calls.reads.count("list_related") == 2 * len(rows)
    gamma_row = next(r for r in rows if r["title"] == "gamma")
    assert gamma_row["tags"] == [{"name": "t1"}]
    assert gamma_row["related"] == [{"title": "beta", "author": {"name": "Bob"}}]


def test_visibility_matches_rest_for_a_read_token(blog: Blog) -> None:
    listing = data(blog.access.read, '{ posts(sort: "title") { total items { title status } } }')
    assert listing["posts"]["total"] == 4
    assert {e["status"] for e in listing["posts"]["items"]} == {"PUBLISHED"}
    delta = blog.posts["delta"]["id"]
    result = post(blog.access.read, "query ($id: ID!) { post(id: $id) { id } }", {"id": delta})
    error = only_error(result, "NOT_FOUND", 404)
    assert error["path"] == ["post"]
    assert result["data"] == {"post": None}
    assert data(blog.access.full, "query ($id: ID!) { post(id: $id) { id } }", {"id": delta})


def test_filters_take_the_rest_grammar_verbatim(blog: Blog) -> None:
    query = """query ($f: Filter) { posts(filter: $f, sort: "title") { total items { title } } }"""
    cases: list[tuple[dict[str, Any], list[str]]] = [
        ({"field": "views", "op": "gte", "value": 2}, ["epsilon", "gamma", "alpha"]),
        ({"and": [{"field": "hot", "op": "eq", "value": True}]}, ["alpha", "epsilon"]),
        (
            {
                "or": [
                    {"field": "title", "op": "startsWith", "value": "al"},
                    {"field": "color", "op": "eq", "value": "green"},
                ]
            },
            ["alpha", "beta"],
        ),
        ({"field": "views", "op": "isNull", "value": True}, ["delta"]),
        ({"field": "status", "op": "eq", "value": "draft"}, ["delta"]),
        ({"field": "color", "op": "in", "value": ["red", "blue"]}, ["alpha", "gamma"]),
    ]
    for condition, titles in cases:
        result = data(blog.access.full, query, {"f": condition})["posts"]
        assert sorted(e["title"] for e in result["items"]) == sorted(titles), condition
        assert result["total"] == len(titles)
    literal = data(
        blog.access.full,
        '{ posts(filter: {and: [{field: "color", op: eq, value: "red"}]}) { items { title } } }',
    )
    assert literal["posts"]["items"] == [{"title": "alpha"}]
    by_id = data(
        blog.access.full,
        "query ($f: Filter) { posts(filter: $f) { total items { title } } }",
        {"f": {"field": "id", "op": "eq", "value": blog.posts["beta"]["id"]}},
    )
    assert by_id["posts"] == {"total": 1, "items": [{"title": "beta"}]}


@pytest.mark.parametrize(
    ("query", "variables", "message"),
    [
        ('{ posts(sort: "nope") { total } }', None, "nope"),
        ('{ posts(locale: "English") { total } }', None, "locale"),
        ('{ posts(filter: {field: "nope", op: eq, value: 1}) { total } }', None, "nope"),
        ('{ posts(filter: {field: "title", op: eq}) { total } }', None, "value"),
        ('{ posts(filter: {field: "title", op: gt, value: [1]}) { total } }', None, "single"),
        ("query ($f: Filter) { posts(filter: $f) { total } }", {"f": {"and": []}}, "non-empty"),
        ('{ post(id: "not-an-id") { id } }', None, "not found"),
    ],
)
def test_arguments_the_service_refuses_are_errors_with_the_rest_status(
    blog: Blog, query: str, variables: dict[str, Any] | None, message: str
) -> None:
    result = post(blog.access.full, query, variables)
    (error,) = result["errors"]
    assert message in error["message"]
    expected = 404 if message == "not found" else 400
    assert error["extensions"]["status"] == expected
    assert error["extensions"]["code"] == ("NOT_FOUND" if expected == 404 else "BAD_USER_INPUT")
    assert error["path"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("{ posts(pageSize: 101) { total } }", "pageSize must be from 1 to 100"),
        ("{ posts(pageSize: 0) { total } }", "pageSize must be from 1 to 100"),
        ("{ posts(page: 0) { total } }", "page must be an integer from 1 to 1000000"),
        ("{ posts { items { tags(pageSize: 0) { name } } } }", "pageSize must be from 1 to 100"),
        ("{ posts { items { tags(pageSize: -1) { name } } } }", "pageSize must be from 1 to 100"),
        ("{ posts { items { tags(page: 0) { name } } } }", "page must be an integer"),
    ],
)
def test_page_bounds_are_rests_and_refused_before_execution(
    blog: Blog, query: str, message: str
) -> None:
    """REST's bounds and message on every list and to-many relation, whether or not a row
    would reach the field's resolver (issue 16, item 5)."""
    with service_calls() as calls:
        result = post(blog.access.full, query)
    assert "data" not in result
    (error,) = result["errors"]
    assert error["message"].startswith(message)
    assert error["extensions"] == {"status": 400, "code": "BAD_USER_INPUT"}
    assert calls.calls == []


def _page_read(captured: Any, table: str) -> dict[str, Any]:
    (batch,) = [c for c in captured.on(table) if c.operation == "BatchGetItem"]
    request: dict[str, Any] = batch.body["RequestItems"][table]
    request["raw_response"] = batch.raw_response
    return request


def test_selection_narrows_the_storage_read_like_rest_fields(blog: Blog, stack: LocalStack) -> None:
    assert stack.settings is not None
    table = stack.settings.tables.content
    stored = get_type(blog.access.id, "post")
    assert stored is not None
    keys = {f.name: f.key for f in stored.fields}
    documents = {
        "plain": "{ posts { items { id title } } }",
        "fragment": "query { posts { items { ...Row } } } fragment Row on Post { id title }",
        "inline": "{ posts { items { ... on Post { title } id } } }",
        "nested": "{ posts { ...L } } fragment L on PostList { items { ... on Post { ...T } } } "
        "fragment T on Post { title }",
        "skipped": "query ($no: Boolean = true) { posts { items { title body @skip(if: $no) } } }",
    }
    for name, document in documents.items():
        with capture(stack) as captured:
            items = data(blog.access.full, document)["posts"]["items"]
        assert all("body" not in e for e in items), name
        request = _page_read(captured, table)
        names = request["ExpressionAttributeNames"]
        paths = [
            [names[alias] for alias in p.strip().split(".")]
            for p in request["ProjectionExpression"].split(",")
        ]
        assert ["values", keys["title"]] in paths, name
        assert [p for p in paths if p[0] in ("values", "links")] == [["values", keys["title"]]], (
            name
        )
        assert keys["body"] not in names.values(), name
        assert b"rich text rich text" not in request["raw_response"], name
    # The control: selecting the rich text reads it; a relation reads its links, not targets.
    with capture(stack) as captured:
        data(blog.access.full, "{ posts { items { body author { name } } } }")
    request = _page_read_first(captured, table)
    names = request["ExpressionAttributeNames"]
    assert keys["body"] in names.values()
    assert keys["author"] in names.values()
    assert keys["tags"] not in names.values()
    assert b"rich text rich text" in request["raw_response"]


def _page_read_first(captured: Any, table: str) -> dict[str, Any]:
    batch = next(c for c in captured.on(table) if c.operation == "BatchGetItem")
    request: dict[str, Any] = batch.body["RequestItems"][table]
    request["raw_response"] = batch.raw_response
    return request


def test_a_single_entry_and_a_single_type_narrow_their_reads_too(
    blog: Blog, stack: LocalStack
) -> None:
    assert stack.settings is not None
    table = stack.settings.tables.content
    with capture(stack) as captured:
        data(
            blog.access.full,
            "query ($id: ID!) { post(id: $id) { title } siteSettings { site_name } }",
            {"id": blog.posts["alpha"]["id"]},
        )
    responses = b"".join(c.raw_response for c in captured.on(table))
    assert b"rich text rich text" not in responses
    requests = [c.body for c in captured.on(table) if c.operation in ("GetItem", "BatchGetItem")]
    assert requests
    for body in requests:
        batch: dict[str, Any] = next(iter(body.get("RequestItems", {}).values()), {})
        projection = body.get("ProjectionExpression") or batch.get("ProjectionExpression")
        assert projection, body
