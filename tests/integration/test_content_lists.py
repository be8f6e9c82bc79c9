"""Lists through real HTTP: paging, sort, the filter grammar, fields, and what DynamoDB is asked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from content_service.content.schema import get_type
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.content import (
    assert_error,
    capture,
    create,
    define,
    publish,
    shared_workspace,
)
from tests.support.field_types import every_field_type

FIELDS = every_field_type(
    text="notes",
    integer="rank",
    float="score",
    boolean="hot",
    datetime="at",
    enum="color",
    enum_values=("red", "green", "blue"),
)
ROWS: list[dict[str, Any]] = [
    {
        "title": "alpha",
        "rank": 3,
        "score": 1.5,
        "hot": True,
        "at": "2024-01-01T00:00:00Z",
        "day": "2024-01-01",
        "color": "red",
    },
    {
        "title": "beta",
        "rank": 1,
        "score": 2.5,
        "hot": False,
        "at": "2024-02-01T00:00:00Z",
        "day": "2024-02-01",
        "color": "green",
    },
    {"title": "gamma", "rank": 2, "hot": True, "at": "2024-03-01T00:00:00+01:00", "color": "blue"},
    {"title": "delta", "rank": None, "score": 0.5, "day": "2023-12-31"},
    {"title": "epsilon", "rank": 5, "score": 9.75, "hot": False, "color": "red"},
    {"title": "Alpha two", "rank": 4, "score": 1.5},
]


class World:
    def __init__(self, access: WorkspaceAccess, ids: dict[str, str]) -> None:
        self.access = access
        self.ids = ids

    def titles(self, **params: Any) -> list[str]:
        response = self.access.full.get("/api/v1/content/item", params=params)
        assert response.status_code == 200, response.text
        return [e["values"]["title"] for e in response.json()["items"]]

    def list(self, client: str = "full", **params: Any) -> dict[str, Any]:
        response = getattr(self.access, client).get("/api/v1/content/item", params=params)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@pytest.fixture(scope="module")
def world(base_url: str) -> Iterator[World]:
    """Six entries of one type (all published but `delta`), created in order."""
    with shared_workspace(base_url) as access:
        define(access.full, "item", FIELDS)
        ids: dict[str, str] = {}
        for row in ROWS:
            values = {k: v for k, v in row.items() if v is not None}
            values["body"] = "rich " * 1000
            values["meta"] = {"row": row["title"]}
            entry = create(access.full, "item", values)
            ids[row["title"]] = entry["id"]
            if row["title"] != "delta":
                publish(access.full, "item", entry["id"])
        yield World(access, ids)


def f(field: str, op: str, value: Any = None, **extra: Any) -> str:
    leaf: dict[str, Any] = {"field": field, "op": op, **extra}
    if value is not None or op != "isNull":
        leaf["value"] = value
    return json.dumps(leaf)


def test_default_order_is_newest_first_with_total_and_paging(world: World) -> None:
    body = world.list()
    assert body["total"] == 6
    assert body["page"] == 1
    assert body["pageSize"] == 25
    assert [e["values"]["title"] for e in body["items"]] == [r["title"] for r in reversed(ROWS)]
    page_two = world.list(page=2, pageSize=4)
    assert page_two["total"] == 6
    assert page_two["pageSize"] == 4
    assert [e["values"]["title"] for e in page_two["items"]] == ["beta", "alpha"]
    assert world.list(page=3, pageSize=4)["items"] == []


def test_read_tokens_see_published_only_and_totals_count_what_they_see(world: World) -> None:
    body = world.list("read")
    assert body["total"] == 5
    assert "delta" not in [e["values"]["title"] for e in body["items"]]
    assert {e["status"] for e in body["items"]} == {"published"}


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("rank", ["beta", "gamma", "alpha", "Alpha two", "epsilon", "delta"]),
        ("-rank", ["epsilon", "Alpha two", "alpha", "gamma", "beta", "delta"]),
        ("title", ["Alpha two", "alpha", "beta", "delta", "epsilon", "gamma"]),
        ("-score,title", ["epsilon", "beta", "Alpha two", "alpha", "delta", "gamma"]),
        ("score,-title", ["delta", "alpha", "Alpha two", "beta", "epsilon", "gamma"]),
        ("hot,title", ["beta", "epsilon", "alpha", "gamma", "Alpha two", "delta"]),
        ("at", ["alpha", "beta", "gamma", "Alpha two", "delta", "epsilon"]),
        ("-day", ["beta", "alpha", "delta", "Alpha two", "epsilon", "gamma"]),
        ("color,title", ["gamma", "beta", "alpha", "epsilon", "Alpha two", "delta"]),
        ("createdAt", [r["title"] for r in ROWS]),
        ("-createdAt", [r["title"] for r in reversed(ROWS)]),
    ],
)
def test_sort_on_scalars_and_timestamps_with_nulls_last(
    world: World, sort: str, expected: list[str]
) -> None:
    titles = world.titles(sort=sort)
    if sort in ("at",):
        # Entries without `at` come last, in id order (the stable tie-break).
        assert titles[:3] == expected[:3]
        nulls = sorted(["Alpha two", "delta", "epsilon"], key=lambda t: world.ids[t])
        assert titles[3:] == nulls
    elif sort in ("-day",):
        assert titles[:3] == expected[:3]
        assert sorted(titles[3:]) == sorted(expected[3:])
    else:
        assert titles == expected


def test_sort_by_id_and_published_at(world: World) -> None:
    assert world.titles(sort="id") == sorted(world.ids, key=lambda t: world.ids[t])
    by_published = world.titles(sort="publishedAt")
    assert by_published[-1] == "delta"  # never published: null, last


@pytest.mark.parametrize(
    ("filter", "expected"),
    [
        (f("title", "eq", "beta"), {"beta"}),
        (f("title", "ne", "beta"), {"alpha", "gamma", "delta", "epsilon", "Alpha two"}),
        (f("rank", "gt", 2), {"alpha", "epsilon", "Alpha two"}),
        (f("rank", "gte", 3), {"alpha", "epsilon", "Alpha two"}),
        (f("rank", "lt", 3), {"beta", "gamma"}),
        (f("rank", "lte", 1), {"beta"}),
        (f("rank", "ne", 3), {"beta", "gamma", "delta", "epsilon", "Alpha two"}),
        (f("score", "eq", 1.5), {"alpha", "Alpha two"}),
        (f("score", "gte", 2), {"beta", "epsilon"}),
        (f("hot", "eq", True), {"alpha", "gamma"}),
        (f("hot", "isNull", True), {"delta", "Alpha two"}),
        (f("hot", "isNull", False), {"alpha", "beta", "gamma", "epsilon"}),
        (f("rank", "isNull"), {"delta"}),
        (f("at", "gte", "2024-02-01T01:00:00+01:00"), {"beta", "gamma"}),
        (f("at", "lt", "2024-02-29T23:00:00Z"), {"alpha", "beta"}),
        (f("at", "lte", "2024-02-29T23:00:00Z"), {"alpha", "beta", "gamma"}),
        (f("day", "lt", "2024-01-15"), {"alpha", "delta"}),
        (f("color", "in", ["red", "blue"]), {"alpha", "gamma", "epsilon"}),
        (f("color", "nin", ["red"]), {"beta", "gamma", "delta", "Alpha two"}),
        (f("title", "contains", "lph"), {"alpha", "Alpha two"}),
        (f("title", "startsWith", "Al"), {"Alpha two"}),
        (f("status", "eq", "draft"), {"delta"}),
        (f("publishedAt", "isNull", True), {"delta"}),
        (
            json.dumps({"and": [json.loads(f("hot", "eq", True)), json.loads(f("rank", "gt", 2))]}),
            {"alpha"},
        ),
        (
            json.dumps(
                {"or": [json.loads(f("title", "eq", "beta")), json.loads(f("rank", "eq", 5))]}
            ),
            {"beta", "epsilon"},
        ),
        (
            json.dumps(
                {
                    "and": [
                        {
                            "or": [
                                json.loads(f("color", "eq", "red")),
                                json.loads(f("color", "eq", "green")),
                            ]
                        },
                        {"or": [json.loads(f("hot", "eq", False)), json.loads(f("rank", "lt", 4))]},
                    ]
                }
            ),
            {"alpha", "beta", "epsilon"},
        ),
    ],
)
def test_filter_grammar(world: World, filter: str, expected: set[str]) -> None:
    body = world.list(filter=filter, pageSize=100)
    assert {e["values"]["title"] for e in body["items"]} == expected
    assert body["total"] == len(expected)


def test_filter_by_id_and_locale_group_address_one_record(world: World, stack: LocalStack) -> None:
    target = world.ids["gamma"]
    for field in ("id", "localeGroupId"):
        with capture(stack) as captured:
            body = world.list(filter=f(field, "eq", target))
        assert [e["id"] for e in body["items"]] == [target]
        assert body["total"] == 1
        operations = captured.operations()
        assert "Query" not in operations
        assert "Scan" not in operations
        assert operations.count("GetItem") <= 4  # token, type, (claim), entry
    combined = json.dumps(
        {"and": [json.loads(f("id", "eq", target)), json.loads(f("rank", "gt", 5))]}
    )
    assert world.list(filter=combined)["total"] == 0
    assert world.list(filter=f("id", "eq", "00000000-0000-4000-8000-000000000000"))["total"] == 0
    assert world.list("read", filter=f("id", "eq", world.ids["delta"]))["total"] == 0


def test_fields_narrow_the_projection_and_never_read_rich_text(
    world: World, stack: LocalStack
) -> None:
    assert stack.settings is not None
    with capture(stack) as captured:
        body = world.list(fields="title")
    assert body["total"] == 6
    assert all(set(e["values"]) == {"title"} for e in body["items"])
    content_calls = captured.on(stack.settings.tables.content)
    assert [c.operation for c in content_calls] == ["Query", "BatchGetItem"]
    query, batch = content_calls
    # The list reads the narrow index: one strongly consistent Query of the list partition, of
    # a page and one more, projecting only the index keys (no value, no summary).
    assert "IndexName" not in query.body
    assert query.body["ConsistentRead"] is True
    assert query.body["Limit"] == 26
    assert query.body["ProjectionExpression"] == "#sk"
    assert set(query.body["ExpressionAttributeNames"].values()) == {"pk", "sk"}
    assert b"rich rich" not in query.raw_response
    # The page read names the system attributes and exactly one value path: the title's.
    request = batch.body["RequestItems"][stack.settings.tables.content]
    names = request["ExpressionAttributeNames"]
    paths = [p.strip() for p in request["ProjectionExpression"].split(",")]
    nested = [[names[alias] for alias in p.split(".")] for p in paths if "." in p]
    stored = get_type(world.access.id, "item")
    assert stored is not None
    keys = {f.name: f.key for f in stored.fields}
    assert nested == [["values", keys["title"]]]
    assert "values" not in [names[p] for p in paths if "." not in p]
    for unselected in ("body", "notes", "meta"):
        assert keys[unselected] not in names.values()
    assert "summary" not in names.values()
    # What came back holds no rich text; without `fields` it does (the control).
    assert b"rich rich" not in batch.raw_response
    with capture(stack) as control:
        world.list()
    (full_batch,) = [
        c for c in control.on(stack.settings.tables.content) if c.operation == "BatchGetItem"
    ]
    assert b"rich rich" in full_batch.raw_response
    assert full_batch.response_bytes > 5 * batch.response_bytes


def test_system_names_in_fields_are_accepted(world: World) -> None:
    body = world.list(fields="id,title,createdAt")
    assert all(set(e["values"]) == {"title"} for e in body["items"])
    assert world.list(fields="createdAt")["items"][0]["values"] == {}


@pytest.mark.parametrize(
    "params",
    [
        {"pageSize": 0},
        {"pageSize": 1000},
        {"pageSize": 101},
        {"pageSize": "ten"},
        {"page": 0},
        {"page": -1},
        {"page": "x"},
        {"filter": "{"},
        {"filter": "[]"},
        {"filter": "null"},
        {"filter": '"title"'},
        {"filter": '{"field": "title", "op": "like", "value": "x"}'},
        {"filter": '{"field": "title", "op": "eq"}'},
        {"filter": '{"field": "nope", "op": "eq", "value": 1}'},
        {"filter": '{"field": "body", "op": "eq", "value": "x"}'},
        {"filter": '{"field": "meta", "op": "isNull", "value": true}'},
        {"filter": '{"field": "rank", "op": "eq", "value": "3"}'},
        {"filter": '{"field": "rank", "op": "eq", "value": 1.5}'},
        {"filter": '{"field": "rank", "op": "eq", "value": null}'},
        {"filter": '{"field": "rank", "op": "in", "value": 3}'},
        {"filter": '{"field": "rank", "op": "in", "value": []}'},
        {"filter": '{"field": "rank", "op": "contains", "value": 3}'},
        {"filter": '{"field": "hot", "op": "gt", "value": true}'},
        {"filter": '{"field": "color", "op": "eq", "value": "purple"}'},
        {"filter": '{"field": "at", "op": "gt", "value": "2024-01-01"}'},
        {"filter": '{"field": "status", "op": "eq", "value": "archived"}'},
        {"filter": '{"field": "title", "op": "isNull", "value": "yes"}'},
        {"filter": '{"field": "title", "op": "eq", "value": "x", "extra": 1}'},
        {"filter": '{"and": []}'},
        {"filter": '{"and": {"field": "title"}}'},
        {"filter": '{"and": [], "or": []}'},
        {"filter": '{"not": [{"field": "title", "op": "eq", "value": "x"}]}'},
        {
            "filter": json.dumps(
                {
                    "and": [
                        {
                            "and": [
                                {
                                    "and": [
                                        {
                                            "and": [
                                                {
                                                    "and": [
                                                        {"field": "title", "op": "eq", "value": "x"}
                                                    ]
                                                }
                                            ]
                                        }
                                    ]
                                }
                            ]
                        }
                    ]
                }
            )
        },
        {
            "filter": json.dumps(
                {"or": [{"field": "title", "op": "eq", "value": str(i)} for i in range(21)]}
            )
        },
        {"filter": "[" * 5000},
        {"sort": "nope"},
        {"sort": "body"},
        {"sort": "-meta"},
        {"sort": "status"},
        {"sort": "title;drop"},
        {"fields": "nope"},
        {"fields": "title,../../etc"},
        {"expand": "title"},
        {"expand": "nope"},
        {"locale": "english"},
        {"locale": "EN"},
    ],
)
def test_malformed_list_requests_are_400(world: World, params: dict[str, Any]) -> None:
    response = world.access.full.get("/api/v1/content/item", params=params)
    error = assert_error(response, 400, "bad_request")
    assert len(error["message"]) < 500


def test_list_of_an_unknown_type_is_404(world: World) -> None:
    assert_error(world.access.full.get("/api/v1/content/unknown"), 404)
    assert_error(world.access.full.get("/api/v1/content/Item"), 404)
    assert_error(world.access.full.get("/api/v1/content/" + "x" * 3000), 404)
