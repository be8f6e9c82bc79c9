"""REST and GraphQL return the same records for the same arguments.

Each case reads through both protocols over real HTTP and compares ids, statuses and values after
mapping the documented differences (docs/graphql.md, "Differences from REST"): the status in upper
case, the list envelope without `page`/`pageSize`, relations as nested fields instead of
`relations`, a single type's record instead of the list's first item, and the relations route's page
as the field's list. Cursor walks page through a list in both protocols at once: every page, its
total and its next cursor are the same, and the pages together are the whole list once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.support.content import create, define, publish, shared_workspace
from tests.support.graphql import Blog, build_blog, clear_schema_cache, data

SYSTEM = ("id", "status", "locale", "localeGroupId", "createdAt", "updatedAt", "publishedAt")
POST_VALUES = ("title", "body", "views", "score", "hot", "day", "at", "color", "meta")


@pytest.fixture(scope="module")
def blog(base_url: str) -> Iterator[Blog]:
    with shared_workspace(base_url) as access:
        yield build_blog(access)


@dataclass(frozen=True)
class Relation:
    name: str
    to_one: bool
    fields: tuple[str, ...]


@dataclass(frozen=True)
class Case:
    """One read: the REST route and query, the GraphQL root field and its arguments."""

    rest_path: str
    rest_params: dict[str, Any]
    root: str
    arguments: dict[str, tuple[str, Any]]
    fields: tuple[str, ...]
    relations: tuple[Relation, ...] = ()
    kind: str = "list"  # list | single | single_type | relation_page
    client: str = "full"
    entry: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    empty: bool = False  # the read finds nothing (said, so that no case compares nothing)


def _selection(fields: tuple[str, ...], relations: tuple[Relation, ...]) -> str:
    parts = [*SYSTEM, *fields]
    for relation in relations:
        parts.append(
            f"{relation.name}(pageSize: 25) {{ {' '.join((*SYSTEM, *relation.fields))} }}"
            if not relation.to_one
            else f"{relation.name} {{ {' '.join((*SYSTEM, *relation.fields))} }}"
        )
    return " ".join(parts)


def _expected(
    rest: dict[str, Any], fields: tuple[str, ...], relations: tuple[Relation, ...]
) -> dict[str, Any]:
    """A REST entry in the shape GraphQL answers it (table 2.2)."""
    mapped: dict[str, Any] = {name: rest[name] for name in SYSTEM}
    mapped["status"] = rest["status"].upper()
    for name in fields:
        mapped[name] = rest["values"][name]
    for relation in relations:
        targets = [_expected(t, relation.fields, ()) for t in rest["relations"][relation.name]]
        mapped[relation.name] = (targets[0] if targets else None) if relation.to_one else targets
    return mapped


CASES: dict[str, Case] = {
    "list, defaults": Case("/api/v1/content/post", {}, "posts", {}, ("title", "views")),
    "list, every value type": Case("/api/v1/content/post", {}, "posts", {}, POST_VALUES),
    "list, page and sort": Case(
        "/api/v1/content/post",
        {"page": 2, "pageSize": 2, "sort": "-views,title"},
        "posts",
        {"page": ("Int", 2), "pageSize": ("Int", 2), "sort": ("String", "-views,title")},
        ("title", "views"),
    ),
    "list, sort by float ascending": Case(
        "/api/v1/content/post",
        {"sort": "score"},
        "posts",
        {"sort": ("String", "score")},
        ("title", "score"),
    ),
    "list, filter and": Case(
        "/api/v1/content/post",
        {
            "filter": {
                "and": [
                    {"field": "hot", "op": "eq", "value": True},
                    {"field": "views", "op": "gt", "value": 0},
                ]
            }
        },
        "posts",
        {
            "filter": (
                "Filter",
                {
                    "and": [
                        {"field": "hot", "op": "eq", "value": True},
                        {"field": "views", "op": "gt", "value": 0},
                    ]
                },
            )
        },
        ("title", "hot", "views"),
    ),
    "list, filter or and in": Case(
        "/api/v1/content/post",
        {
            "filter": {
                "or": [
                    {"field": "color", "op": "in", "value": ["red", "green"]},
                    {"field": "title", "op": "contains", "value": "silo"},
                ]
            }
        },
        "posts",
        {
            "filter": (
                "Filter",
                {
                    "or": [
                        {"field": "color", "op": "in", "value": ["red", "green"]},
                        {"field": "title", "op": "contains", "value": "silo"},
                    ]
                },
            )
        },
        ("title", "color"),
    ),
    "list, filter isNull and status": Case(
        "/api/v1/content/post",
        {
            "filter": {
                "and": [
                    {"field": "views", "op": "isNull", "value": False},
                    {"field": "status", "op": "eq", "value": "published"},
                ]
            }
        },
        "posts",
        {
            "filter": (
                "Filter",
                {
                    "and": [
                        {"field": "views", "op": "isNull", "value": False},
                        {"field": "status", "op": "eq", "value": "published"},
                    ]
                },
            )
        },
        ("title",),
    ),
    "list, locale": Case(
        "/api/v1/content/post",
        {"locale": "de", "expand": "author"},
        "posts",
        {"locale": ("String", "de")},
        ("title",),
        (Relation("author", True, ("name",)),),
    ),
    "list, filter by id": Case(
        "/api/v1/content/post",
        {"filter": {"field": "id", "op": "eq", "value": "@beta"}},
        "posts",
        {"filter": ("Filter", {"field": "id", "op": "eq", "value": "@beta"})},
        ("title",),
    ),
    "list, filter by localeGroupId in a locale": Case(
        "/api/v1/content/post",
        {"locale": "de", "filter": {"field": "localeGroupId", "op": "eq", "value": "@alpha"}},
        "posts",
        {
            "locale": ("String", "de"),
            "filter": ("Filter", {"field": "localeGroupId", "op": "eq", "value": "@alpha"}),
        },
        ("title",),
    ),
    "list, relations": Case(
        "/api/v1/content/post",
        {"expand": "author,tags,related", "pageSize": 10},
        "posts",
        {"pageSize": ("Int", 10)},
        ("title",),
        (
            Relation("author", True, ("name", "bio")),
            Relation("tags", False, ("name",)),
            Relation("related", False, ("title", "views")),
        ),
    ),
    "list, relations for a read token": Case(
        "/api/v1/content/post",
        {"expand": "author,tags"},
        "posts",
        {},
        ("title",),
        (Relation("author", True, ("name",)), Relation("tags", False, ("name",))),
        client="read",
    ),
    "list, read token": Case(
        "/api/v1/content/post",
        {"sort": "title"},
        "posts",
        {"sort": ("String", "title")},
        ("title", "color"),
        client="read",
    ),
    "single entry": Case(
        "/api/v1/content/post/@gamma",
        {"expand": "tags,author"},
        "post",
        {"id": ("ID!", "@gamma")},
        ("title", "body", "meta"),
        (Relation("tags", False, ("name",)), Relation("author", True, ("name",))),
        kind="single",
    ),
    "single type": Case(
        "/api/v1/content/site_settings",
        {},
        "siteSettings",
        {},
        ("site_name", "footer"),
        kind="single_type",
    ),
    "single type, locale": Case(
        "/api/v1/content/site_settings",
        {"locale": "de"},
        "siteSettings",
        {"locale": ("String", "de")},
        ("site_name",),
        kind="single_type",
    ),
    "single type, read token": Case(
        "/api/v1/content/site_settings",
        {"locale": "en"},
        "siteSettings",
        {"locale": ("String", "en")},
        ("site_name",),
        kind="single_type",
        client="read",
    ),
    "single type, read token, draft only": Case(
        "/api/v1/content/site_settings",
        {"locale": "de"},
        "siteSettings",
        {"locale": ("String", "de")},
        ("site_name",),
        kind="single_type",
        client="read",
        empty=True,
    ),
    "relation page 2": Case(
        "/api/v1/content/post/@gamma/relations/tags",
        {"page": 2, "pageSize": 2},
        "post",
        {"id": ("ID!", "@gamma")},
        ("name",),
        kind="relation_page",
        extra={"field": "tags", "page": 2, "pageSize": 2},
    ),
    "relation page 1, read token": Case(
        "/api/v1/content/post/@gamma/relations/tags",
        {"page": 1, "pageSize": 2},
        "post",
        {"id": ("ID!", "@gamma")},
        ("name",),
        kind="relation_page",
        client="read",
        extra={"field": "tags", "page": 1, "pageSize": 2},
    ),
}


def _resolve(value: Any, blog: Blog) -> Any:
    """`@name` stands for that post's id."""
    if isinstance(value, str) and value.startswith("@"):
        return blog.posts[value[1:]]["id"]
    if isinstance(value, str) and "@" in value:
        for name, entry in blog.posts.items():
            value = value.replace(f"@{name}/", f"{entry['id']}/").replace(f"@{name}", entry["id"])
        return value
    if isinstance(value, dict):
        return {k: _resolve(v, blog) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, blog) for v in value]
    if isinstance(value, tuple):
        return tuple(_resolve(v, blog) for v in value)
    return value


def _rest(client: httpx.Client, case: Case, blog: Blog) -> Any:
    params = {
        k: json.dumps(v) if isinstance(v, dict) else v
        for k, v in _resolve(case.rest_params, blog).items()
    }
    response = client.get(_resolve(case.rest_path, blog), params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _graphql(client: httpx.Client, case: Case, blog: Blog) -> Any:
    arguments = _resolve(case.arguments, blog)
    declared = ", ".join(f"${name}: {kind}" for name, (kind, _) in arguments.items())
    passed = ", ".join(f"{name}: ${name}" for name in arguments)
    variables = {name: value for name, (_, value) in arguments.items()}
    call = f"{case.root}({passed})" if passed else case.root
    selection = _selection(case.fields, case.relations)
    if case.kind == "list":
        body = f"{call} {{ total items {{ {selection} }} }}"
    elif case.kind == "relation_page":
        extra = case.extra
        body = (
            f"{call} {{ {extra['field']}(page: {extra['page']}, pageSize: {extra['pageSize']}) "
            f"{{ {selection} }} }}"
        )
    else:
        body = f"{call} {{ {selection} }}"
    query = f"query ({declared}) {{ {body} }}" if declared else f"{{ {body} }}"
    return data(client, query, variables)[case.root]


@pytest.mark.parametrize("name", list(CASES))
def test_rest_and_graphql_return_the_same_records(blog: Blog, name: str) -> None:
    case = CASES[name]
    client = getattr(blog.access, case.client)
    rest = _rest(client, case, blog)
    answer = _graphql(client, case, blog)
    if case.kind == "list":
        assert set(answer) == {"total", "items"}
        assert answer["total"] == rest["total"]
        expected = [_expected(e, case.fields, case.relations) for e in rest["items"]]
        assert answer["items"] == expected
        assert expected  # every case compares something
    elif case.kind == "single":
        assert answer == _expected(rest, case.fields, case.relations)
    elif case.kind == "single_type" and case.empty:
        assert rest["items"] == []
        assert answer is None
    elif case.kind == "single_type":
        (first,) = rest["items"]
        assert answer == _expected(first, case.fields, ())
    else:
        targets = answer[case.extra["field"]]
        assert targets == [_expected(e, case.fields, ()) for e in rest["items"]]
        assert targets  # every relation page compares something


# ---------------------------------------------------------------------------------------------
# Cursor paging and totals: both protocols walk the same pages, page by page


PRODUCT_FIELDS: list[dict[str, Any]] = [
    {"name": "title", "type": "string"},
    {"name": "price", "type": "float", "sortable": True},
    {"name": "category", "type": "enum", "values": ["a", "b"], "sortable": True},
]


@pytest.fixture(scope="module")
def products(blog: Blog) -> Blog:
    """A type with sortable fields next to the blog: prices with ties and nulls, drafts."""
    client = blog.access.full
    define(client, "product", PRODUCT_FIELDS)
    prices = [3.5, None, 7.0, 7.0, 1.25, 7.0, None, 9.5, 2.0, 7.0, 4.0, 0.5]
    for i, price in enumerate(prices):
        values: dict[str, Any] = {"title": f"p{i}", "category": "ab"[i % 2]}
        if price is not None:
            values["price"] = price
        made = create(client, "product", values)
        if i % 5 != 4:
            publish(client, "product", made["id"])
    clear_schema_cache()  # the schema cached before `product` existed
    return blog


@dataclass(frozen=True)
class Walk:
    path: str
    root: str
    page_size: int
    sort: str | None = None
    filter: dict[str, Any] | None = None
    locale: str | None = None
    client: str = "full"
    fields: tuple[str, ...] = ("title",)


WALKS: dict[str, Walk] = {
    "posts, default order": Walk("/api/v1/content/post", "posts", 2),
    "posts, read token": Walk("/api/v1/content/post", "posts", 2, client="read"),
    "posts, sorted in memory by two keys": Walk(
        "/api/v1/content/post", "posts", 2, sort="-views,title", fields=("title", "views")
    ),
    "posts, filtered in memory": Walk(
        "/api/v1/content/post",
        "posts",
        1,
        filter={"field": "hot", "op": "eq", "value": True},
        fields=("title", "hot"),
    ),
    "products, sortable field with eq on another": Walk(
        "/api/v1/content/product",
        "products",
        2,
        sort="-price",
        filter={"field": "category", "op": "eq", "value": "a"},
        client="read",
        fields=("title", "price", "category"),
    ),
    "products, range on the sort key": Walk(
        "/api/v1/content/product",
        "products",
        3,
        sort="price",
        filter={"field": "price", "op": "gte", "value": 2},
        fields=("title", "price"),
    ),
    "products, nulls last, drafts too": Walk(
        "/api/v1/content/product", "products", 4, sort="-price", fields=("title", "price")
    ),
}


def _rest_page(client: httpx.Client, walk: Walk, cursor: str | None) -> dict[str, Any]:
    params: dict[str, Any] = {"pageSize": walk.page_size}
    for name in ("sort", "locale", "cursor"):
        value = cursor if name == "cursor" else getattr(walk, name)
        if value is not None:
            params[name] = value
    if walk.filter is not None:
        params["filter"] = json.dumps(walk.filter)
    response = client.get(walk.path, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _graphql_page(client: httpx.Client, walk: Walk, cursor: str | None) -> dict[str, Any]:
    arguments = {
        "pageSize": ("Int", walk.page_size),
        "sort": ("String", walk.sort),
        "filter": ("Filter", walk.filter),
        "locale": ("String", walk.locale),
        "cursor": ("String", cursor),
    }
    used = {name: pair for name, pair in arguments.items() if pair[1] is not None}
    declared = ", ".join(f"${name}: {kind}" for name, (kind, _) in used.items())
    passed = ", ".join(f"{name}: ${name}" for name in used)
    selection = " ".join((*SYSTEM, *walk.fields))
    query = (
        f"query ({declared}) {{ {walk.root}({passed}) "
        f"{{ total nextCursor items {{ {selection} }} }} }}"
    )
    page: dict[str, Any] = data(client, query, {n: v for n, (_, v) in used.items()})[walk.root]
    return page


@pytest.mark.parametrize("name", list(WALKS))
def test_rest_and_graphql_walk_the_same_cursor_pages_and_totals(products: Blog, name: str) -> None:
    walk = WALKS[name]
    client = getattr(products.access, walk.client)
    everything = _rest_page(client, Walk(**{**walk.__dict__, "page_size": 100}), None)
    rest_cursor: str | None = None
    graphql_cursor: str | None = None
    walked: list[str] = []
    pages = 0
    while True:
        rest = _rest_page(client, walk, rest_cursor)
        answer = _graphql_page(client, walk, graphql_cursor)
        assert set(answer) == {"total", "nextCursor", "items"}  # no page, no pageSize echoed
        assert answer["total"] == rest["total"] == everything["total"]
        assert answer["items"] == [_expected(e, walk.fields, ()) for e in rest["items"]]
        assert answer["nextCursor"] == rest["nextCursor"]
        walked.extend(e["id"] for e in rest["items"])
        pages += 1
        if rest["nextCursor"] is None:
            break
        rest_cursor, graphql_cursor = rest["nextCursor"], answer["nextCursor"]
    assert walked == [e["id"] for e in everything["items"]]
    assert pages == max(1, -(-everything["total"] // walk.page_size))
    assert everything["total"] > walk.page_size  # every case walks more than one page
