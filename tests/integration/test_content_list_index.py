"""Lists served by the list index: sortable fields, key conditions, cursors, counts, shards, the
read budget and background indexing, through real HTTP, checked against a reference ordering
written from docs/content.md (values in the sort's direction, nulls last, ties by id
ascending) and against what DynamoDB was asked."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from content_service.clock import iso_utc
from content_service.content.lists import READ_BUDGET
from content_service.content.requests import MAX_LIST_DEPTH
from content_service.content.schema import get_type
from harness.seeding import bulk_put, stored_entry
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.content import (
    Storage,
    assert_error,
    capture,
    create,
    define,
    publish,
    shared_workspace,
)
from tests.support.graphql import data, post

PRODUCT_FIELDS: list[dict[str, Any]] = [
    {"name": "title", "type": "string", "sortable": True},
    {"name": "price", "type": "float", "sortable": True},
    {"name": "category", "type": "enum", "values": ["a", "b", "c"], "sortable": True},
    {"name": "rank", "type": "integer"},
    {"name": "body", "type": "richtext"},
]
PRICES = [5.0, 7.5, 7.5, 10.0, None, 12.25, 7.5, 3.0, None, 10.0]
SYSTEM_SORTS = ("createdAt", "updatedAt", "publishedAt")
Entry = dict[str, Any]
Entries = list[Entry]  # `list` inside Catalog is its method


class Catalog:
    def __init__(self, access: WorkspaceAccess, name: str) -> None:
        self.access = access
        self.name = name

    def get(self, client: str = "full", **params: Any) -> httpx.Response:
        for key in ("filter",):
            if isinstance(params.get(key), dict | list):
                params[key] = json.dumps(params[key])
        http: httpx.Client = getattr(self.access, client)
        return http.get(f"/api/v1/content/{self.name}", params=params)

    def list(self, client: str = "full", **params: Any) -> dict[str, Any]:
        response = self.get(client, **params)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def entries(self) -> Entries:
        """Every entry a full token sees (fewer than 100)."""
        body = self.list(pageSize=100)
        assert body["total"] == len(body["items"])
        assert body["nextCursor"] is None
        return list(body["items"])

    def walk(self, client: str = "full", page_size: int = 3, **params: Any) -> Entries:
        """Every page through `nextCursor`; each page's total is the same."""
        first = self.list(client, pageSize=page_size, **params)
        found, total, cursor = list(first["items"]), first["total"], first["nextCursor"]
        while cursor is not None:
            page = self.list(client, pageSize=page_size, cursor=cursor, **params)
            assert page["total"] == total
            assert page["items"], "a cursor never leads to an empty page"
            found.extend(page["items"])
            cursor = page["nextCursor"]
        assert len(found) == total
        return found


def value_of(entry: Entry, name: str) -> Any:
    return entry[name] if name in SYSTEM_SORTS or name == "id" else entry["values"].get(name)


def reference(
    entries: list[Entry],
    sort: str = "-createdAt",
    where: Callable[[Entry], bool] = lambda _: True,
    client: str = "full",
) -> list[str]:
    """The documented order: values in the sort's direction, then nulls; ties by id."""
    descending = sort.startswith("-")
    name = sort.lstrip("-")
    shown = [e for e in entries if (client == "full" or e["status"] == "published") and where(e)]
    values = sorted((e for e in shown if value_of(e, name) is not None), key=lambda e: e["id"])
    values.sort(key=lambda e: value_of(e, name), reverse=descending)
    nulls = sorted((e for e in shown if value_of(e, name) is None), key=lambda e: e["id"])
    return [e["id"] for e in values + nulls]


def ids(items: list[Entry]) -> list[str]:
    return [e["id"] for e in items]


def make_catalog(access: WorkspaceAccess, name: str, count: int, **options: Any) -> Catalog:
    define(access.full, name, PRODUCT_FIELDS, **options)
    rng = random.Random(count)
    for i in range(count):
        values: dict[str, Any] = {
            "title": f"item {i % 7}",
            "rank": rng.randrange(100),
            "category": ["a", "b", "c", None][i % 4],
        }
        price = PRICES[i % len(PRICES)]
        if price is not None:
            values["price"] = price
        values = {k: v for k, v in values.items() if v is not None}
        entry = create(access.full, name, values)
        if i % 4 != 3:
            publish(access.full, name, entry["id"])
    return Catalog(access, name)


@pytest.fixture(scope="module")
def catalog(base_url: str) -> Iterator[Catalog]:
    with shared_workspace(base_url) as access:
        yield make_catalog(access, "product", 36)


@pytest.fixture(scope="module")
def entries(catalog: Catalog) -> list[Entry]:
    """The catalog's entries (the tests using this fixture only read)."""
    return catalog.entries()


def content_queries(stack: LocalStack, captured: Any) -> list[Any]:
    assert stack.settings is not None
    return [c for c in captured.on(stack.settings.tables.content) if c.operation == "Query"]


SORTS = [
    *SYSTEM_SORTS,
    *(f"-{s}" for s in SYSTEM_SORTS),
    "price",
    "-price",
    "title",
    "-title",
    "category",
    "-category",
]


@pytest.mark.parametrize("client", ["full", "read"])
@pytest.mark.parametrize("sort", SORTS)
def test_one_key_sorts_are_served_by_the_index_in_the_documented_order(
    catalog: Catalog, entries: list[Entry], stack: LocalStack, sort: str, client: str
) -> None:
    with capture(stack) as captured:
        body = catalog.list(client, sort=sort, pageSize=100)
    assert ids(body["items"]) == reference(entries, sort, client=client)
    assert body["total"] == len(body["items"])
    queries = content_queries(stack, captured)
    assert queries, "served by Queries of the list index"
    for query in queries:
        # Keys only, strongly consistent: never a summary, never a value, never rich text.
        assert query.body["ProjectionExpression"] == "#sk"
        assert query.body["ConsistentRead"] is True
        assert query.body["ExpressionAttributeValues"][":pk"]["S"].startswith("L#")


FILTERS: list[tuple[str, dict[str, Any], Callable[[Entry], bool]]] = [
    (
        "-price",
        {"field": "category", "op": "eq", "value": "b"},
        lambda e: e["values"]["category"] == "b",
    ),
    (
        "price",
        {
            "and": [
                {"field": "price", "op": "gte", "value": 7.5},
                {"field": "price", "op": "lt", "value": 12},
            ]
        },
        lambda e: e["values"]["price"] is not None and 7.5 <= e["values"]["price"] < 12,
    ),
    ("-price", {"field": "price", "op": "eq", "value": 7.5}, lambda e: e["values"]["price"] == 7.5),
    (
        "-price",
        {
            "and": [
                {"field": "category", "op": "eq", "value": "a"},
                {"field": "price", "op": "lte", "value": 7.5},
            ]
        },
        lambda e: (
            e["values"]["category"] == "a"
            and e["values"]["price"] is not None
            and e["values"]["price"] <= 7.5
        ),
    ),
    (
        "price",
        {"field": "price", "op": "isNull", "value": True},
        lambda e: e["values"]["price"] is None,
    ),
    (
        "-price",
        {"field": "price", "op": "isNull", "value": False},
        lambda e: e["values"]["price"] is not None,
    ),
    (
        "-createdAt",
        {"field": "category", "op": "eq", "value": "c"},
        lambda e: e["values"]["category"] == "c",
    ),
    (
        "publishedAt",
        {"field": "title", "op": "eq", "value": "item 3"},
        lambda e: e["values"]["title"] == "item 3",
    ),
    (
        "-updatedAt",
        {"field": "status", "op": "eq", "value": "published"},
        lambda e: e["status"] == "published",
    ),
    ("-title", {"field": "status", "op": "eq", "value": "draft"}, lambda e: e["status"] == "draft"),
    (
        "title",
        {"field": "title", "op": "gt", "value": "item 4"},
        lambda e: e["values"]["title"] > "item 4",
    ),
]


@pytest.mark.parametrize("client", ["full", "read"])
@pytest.mark.parametrize(
    ("sort", "filter", "where"), FILTERS, ids=[str(i) for i in range(len(FILTERS))]
)
def test_eq_on_another_sortable_field_and_ranges_on_the_sort_key_are_key_conditions(
    catalog: Catalog,
    entries: list[Entry],
    stack: LocalStack,
    sort: str,
    filter: dict[str, Any],
    where: Callable[[Entry], bool],
    client: str,
) -> None:
    expected = reference(entries, sort, where, client)
    with capture(stack) as captured:
        body = catalog.list(client, sort=sort, filter=filter, pageSize=100)
    assert ids(body["items"]) == expected
    assert body["total"] == len(expected)
    for query in content_queries(stack, captured):
        # Keys of the list index only: a page of them, or their number (a range's total).
        assert query.body.get("Select") == "COUNT" or query.body["ProjectionExpression"] == "#sk"
        assert "summary" not in json.dumps(query.body)
    assert ids(catalog.walk(client, sort=sort, filter=filter)) == expected


def test_an_eq_partition_is_one_query_and_its_total_comes_from_counts(
    catalog: Catalog, entries: list[Entry], stack: LocalStack
) -> None:
    where = lambda e: e["values"]["category"] == "b"  # noqa: E731
    with capture(stack) as captured:
        body = catalog.list(
            "read",
            sort="-price",
            filter={"field": "category", "op": "eq", "value": "b"},
            pageSize=2,
        )
    assert body["total"] == len(reference(entries, "-price", where, "read"))
    operations = captured.operations()
    # Token, type and counts in one BatchGetItem, one Query per partition (values, nulls
    # only when reached), the page's entries.
    assert operations == ["GetItem", "BatchGetItem", "Query", "BatchGetItem"]
    (query,) = content_queries(stack, captured)
    assert "#=" in query.body["ExpressionAttributeValues"][":pk"]["S"]
    assert query.body["Limit"] == 3  # a page and one more
    assert "Select" not in query.body


def test_a_range_total_is_counted_with_select_count(
    catalog: Catalog, entries: list[Entry], stack: LocalStack
) -> None:
    with capture(stack) as captured:
        body = catalog.list(
            sort="price", filter={"field": "price", "op": "gte", "value": 7.5}, pageSize=2
        )
    counted = [q for q in content_queries(stack, captured) if q.body.get("Select") == "COUNT"]
    assert counted
    assert body["total"] == sum(1 for e in entries if (e["values"]["price"] or 0) >= 7.5)


@pytest.mark.parametrize("page_size", [3, 7])
@pytest.mark.parametrize(
    ("sort", "client"),
    [
        ("-price", "full"),
        ("price", "read"),
        ("-category", "full"),
        ("-createdAt", "read"),
        ("-publishedAt", "full"),
        ("title", "full"),
    ],
)
def test_cursor_pages_walk_the_whole_list_once_in_order(
    catalog: Catalog, entries: list[Entry], sort: str, client: str, page_size: int
) -> None:
    expected = reference(entries, sort, client=client)
    assert ids(catalog.walk(client, page_size, sort=sort)) == expected


def test_descending_ties_keep_ids_ascending_across_page_boundaries(
    catalog: Catalog, entries: list[Entry]
) -> None:
    # 7.5 is the price of many entries: every page boundary falls inside a run of them.
    for page_size in (2, 3):
        walked = ids(catalog.walk("full", page_size, sort="-price"))
        assert walked == reference(entries, "-price")
    sevens = [e["id"] for e in entries if e["values"]["price"] == 7.5]
    walked = ids(catalog.walk("full", 2, sort="-price"))
    assert [i for i in walked if i in sevens] == sorted(sevens)


def test_cursors_in_memory_follow_several_sort_keys(catalog: Catalog, entries: list[Entry]) -> None:
    full = ids(catalog.list(sort="category,-rank", pageSize=100)["items"])
    assert len(full) == len(entries)
    assert ids(catalog.walk("full", 3, sort="category,-rank")) == full
    rank_filter = {"field": "rank", "op": "gte", "value": 50}
    filtered = ids(catalog.list(sort="-price", filter=rank_filter, pageSize=100)["items"])
    assert ids(catalog.walk("full", 2, sort="-price", filter=rank_filter)) == filtered
    assert filtered == reference(entries, "-price", lambda e: e["values"]["rank"] >= 50)


def test_an_offset_page_and_the_cursor_of_the_page_before_agree(catalog: Catalog) -> None:
    for sort in ("-price", "title", "-createdAt", "rank,-title"):
        first = catalog.list(sort=sort, pageSize=4)
        second = catalog.list(sort=sort, pageSize=4, page=2)
        by_cursor = catalog.list(sort=sort, pageSize=4, cursor=first["nextCursor"])
        assert ids(second["items"]) == ids(by_cursor["items"])
        assert second["nextCursor"] == by_cursor["nextCursor"]


def test_the_last_page_has_no_next_cursor(catalog: Catalog) -> None:
    body = catalog.list(pageSize=100)
    assert body["nextCursor"] is None
    assert catalog.list(pageSize=len(body["items"]))["nextCursor"] is None
    assert catalog.list(pageSize=len(body["items"]) - 1)["nextCursor"] is not None


def test_page_numbers_stop_at_the_documented_depth_and_point_to_the_cursor(
    catalog: Catalog,
) -> None:
    deepest = MAX_LIST_DEPTH // 25
    assert catalog.list(page=deepest, pageSize=25)["items"] == []
    error = assert_error(catalog.get(page=deepest + 1, pageSize=25), 400, "bad_request")
    assert "cursor" in error["message"]
    assert f"{MAX_LIST_DEPTH:,}" in error["message"]
    assert_error(catalog.get(page=101, pageSize=100), 400, "bad_request")
    result = post(
        catalog.access.full, f"{{ products(page: {deepest + 1}, pageSize: 25) {{ total }} }}"
    )
    assert "cursor" in result["errors"][0]["message"]
    assert result["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


@pytest.mark.parametrize(
    "params",
    [
        {"cursor": "not-a-cursor"},
        {"cursor": "e30"},  # {}
        {"cursor": "x" * 5000},
    ],
)
def test_malformed_cursors_are_400(catalog: Catalog, params: dict[str, Any]) -> None:
    error = assert_error(catalog.get(**params), 400)
    assert len(error["message"]) < 300


def test_a_cursor_belongs_to_its_list(catalog: Catalog) -> None:
    cursor = catalog.list(sort="-price", pageSize=2)["nextCursor"]
    error = assert_error(catalog.get(sort="price", cursor=cursor, pageSize=2), 400, "bad_request")
    assert "another list" in error["message"]
    assert_error(
        catalog.get(
            sort="-price", filter={"field": "category", "op": "eq", "value": "a"}, cursor=cursor
        ),
        400,
    )
    assert_error(catalog.get(sort="-price", cursor=cursor, page=2), 400)
    # The same list from the other token is the same list: the position applies.
    assert catalog.list("read", sort="-price", pageSize=2, cursor=cursor)["items"]


def test_graphql_pages_by_cursor_like_rest(catalog: Catalog) -> None:
    query = """query ($cursor: String) { products(sort: "-price", pageSize: 4, cursor: $cursor)
               { total nextCursor items { id } } }"""
    rest = catalog.walk("read", 4, sort="-price")
    cursor: str | None = None
    walked: list[str] = []
    while True:
        page = data(catalog.access.read, query, {"cursor": cursor})["products"]
        walked.extend(e["id"] for e in page["items"])
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert walked == ids(rest)


# ---------------------------------------------------------------------------------------------
# Sortable flags: validation, and layouts changed later


def test_sortable_flags_are_validated(new_workspace: Callable[..., WorkspaceAccess]) -> None:
    workspace = new_workspace()

    def refused(fields: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
        response = workspace.full.post(
            "/api/v1/content-types", json={"name": "bad", "fields": fields, **options}
        )
        return assert_error(response, 422)

    error = refused([{"name": "body", "type": "richtext", "sortable": True}])
    assert error["details"][0]["location"] == "fields[0].sortable"
    refused([{"name": f"f{i}", "type": "string", "sortable": True} for i in range(4)])
    refused([{"name": "title", "type": "string"}], listShards=0)
    refused([{"name": "title", "type": "string"}], listShards=9)
    made = define(workspace.full, "good", [{"name": "title", "type": "string", "sortable": True}])
    assert made["fields"][0]["sortable"] is True
    assert made["listIndex"] == {"shards": 1, "sortable": ["title"], "state": "ready"}


def test_a_type_without_entries_changes_its_layout_at_once(
    new_workspace: Callable[..., WorkspaceAccess],
) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "title", "type": "string"}])
    changed = workspace.full.put(
        "/api/v1/content-types/note",
        json={
            "name": "note",
            "fields": [{"name": "title", "type": "string", "sortable": True}],
            "listShards": 2,
        },
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["listIndex"] == {"shards": 2, "sortable": ["title"], "state": "ready"}


def test_shards_are_merged_on_read(
    new_workspace: Callable[..., WorkspaceAccess], stack: LocalStack
) -> None:
    workspace = new_workspace()
    sharded = make_catalog(workspace, "item", 24, listShards=3)
    entries = sharded.entries()
    for sort in ("-price", "title", "-createdAt", "publishedAt"):
        with capture(stack) as captured:
            body = sharded.list("read", sort=sort, pageSize=100)
        assert ids(body["items"]) == reference(entries, sort, client="read")
        pks = {
            q.body["ExpressionAttributeValues"][":pk"]["S"]
            for q in content_queries(stack, captured)
        }
        assert {pk.split("#")[5] for pk in pks} == {"0.3", "1.3", "2.3"}
        assert ids(sharded.walk("full", 4, sort=sort)) == reference(entries, sort)
    assert ids(
        sharded.walk(
            "read", 3, sort="-price", filter={"field": "category", "op": "eq", "value": "a"}
        )
    ) == reference(entries, "-price", lambda e: e["values"]["category"] == "a", "read")


def _put(
    workspace: WorkspaceAccess, name: str, fields: list[dict[str, Any]], **options: Any
) -> dict[str, Any]:
    response = workspace.full.put(
        f"/api/v1/content-types/{name}", json={"name": name, "fields": fields, **options}
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_a_flag_added_to_a_type_with_entries_is_indexed_in_the_background(
    new_workspace: Callable[..., WorkspaceAccess], stack: LocalStack
) -> None:
    workspace = new_workspace()
    catalog = make_catalog(workspace, "thing", 14)
    with_rank = [{**f, "sortable": f["name"] == "rank"} for f in PRODUCT_FIELDS]
    changed = _put(workspace, "thing", with_rank, listShards=2)
    assert changed["listIndex"]["state"] == "building"
    assert changed["listIndex"]["sortable"] == ["title", "price", "category"]  # until ready
    # Meanwhile: lists sort by rank in memory (reading summaries), writes keep both layouts.
    with capture(stack) as captured:
        before = catalog.list(sort="-rank", pageSize=100)
    assert any(q.body.get("ProjectionExpression") == "#s" for q in content_queries(stack, captured))
    written = create(workspace.full, "thing", {"title": "late", "rank": 1000})
    publish(workspace.full, "thing", written["id"])
    stored = Storage(stack).entry_item(workspace.id, written["id"])
    assert stored is not None
    assert any("#f4" in pk or "#=f4:" in pk for pk, _ in stored["listKeys"])
    # The scheduler's minute job indexes the rest, then lists switch over.
    result = stack.tick("Lists")
    assert result["jobs"] >= 1
    assert f"{workspace.id}/thing" in result["finished"]
    ready = workspace.full.get("/api/v1/content-types/thing").json()
    assert ready["listIndex"] == {"shards": 2, "sortable": ["rank"], "state": "ready"}
    entries = catalog.entries()
    with capture(stack) as captured:
        after = catalog.list(sort="-rank", pageSize=100)
    queries = content_queries(stack, captured)
    assert {q.body["ProjectionExpression"] for q in queries} == {"#sk"}
    assert ids(after["items"]) == reference(entries, "-rank")
    assert ids(after["items"]) == [written["id"], *ids(before["items"])]
    by_rank = catalog.list("read", filter={"field": "rank", "op": "eq", "value": 1000})
    assert ids(by_rank["items"]) == [written["id"]]
    assert by_rank["total"] == 1
    # Every entry now records exactly the items of the one layout lists read.
    thing = get_type(workspace.id, "thing")
    assert thing is not None
    assert thing.list_next is None
    for entry in Storage(stack).content_items(workspace.id):
        if entry.get("sk") == "ENTRY" and not entry.get("deleted"):
            keys = {tuple(k) for k in entry["listKeys"]}
            assert all(".2#" in pk for pk, _ in keys)


def test_removing_a_flag_stops_serving_it_and_the_job_clears_its_items(
    new_workspace: Callable[..., WorkspaceAccess], stack: LocalStack
) -> None:
    workspace = new_workspace()
    catalog = make_catalog(workspace, "gadget", 8)
    without_title = [
        {**f, "sortable": bool(f.get("sortable")) and f["name"] != "title"} for f in PRODUCT_FIELDS
    ]
    changed = _put(workspace, "gadget", without_title)
    assert changed["listIndex"]["state"] == "building"
    entries = catalog.entries()
    assert ids(catalog.list(sort="title", pageSize=100)["items"]) == reference(entries, "title")
    stack.tick("Lists")
    ready = workspace.full.get("/api/v1/content-types/gadget").json()
    assert ready["listIndex"]["sortable"] == ["price", "category"]
    title_key = next(f.key for f in get_type(workspace.id, "gadget").fields if f.name == "title")  # type: ignore[union-attr]
    for item in Storage(stack).content_items(workspace.id):
        # An index partition's pk is L#ws#type#locale#visibility#shard.shards#sort[!][#=key:bucket]
        # (an entry's own pk ends in its random id, which may begin with the field key).
        if item["pk"].startswith("L#"):
            assert item["pk"].split("#")[6].rstrip("!") != title_key
        assert f"#={title_key}:" not in item["pk"]
    assert ids(catalog.list(sort="title", pageSize=100)["items"]) == reference(entries, "title")


# ---------------------------------------------------------------------------------------------
# The read budget


def test_the_read_budget_refuses_with_the_field_to_mark_sortable(
    new_workspace: Callable[..., WorkspaceAccess], stack: LocalStack, request: pytest.FixtureRequest
) -> None:
    workspace = new_workspace()
    assert stack.settings is not None
    content_table = stack.settings.tables.content
    # The session stack is shared: its later full-table reads must not wade through these.
    request.addfinalizer(lambda: stack.emulator.unload(content_table, workspace.id))
    define(
        workspace.full,
        "log",
        [{"name": "message", "type": "string"}, {"name": "rank", "type": "integer"}],
    )
    log = get_type(workspace.id, "log")
    assert log is not None
    keys = {f.name: f.key for f in log.fields}
    entries = [
        stored_entry(
            workspace.id,
            log,
            {keys["message"]: f"m{i}", keys["rank"]: i},
            entry_id=str(uuid.UUID(int=i + 1, version=4)),
            stamp=iso_utc(1_700_000_000 + i),
        )
        for i in range(READ_BUDGET + 1)
    ]
    bulk_put(workspace.id, log, entries, emulator=stack.emulator)
    path = "/api/v1/content/log"
    rank_filter = json.dumps({"field": "rank", "op": "gte", "value": 5})
    with capture(stack) as captured:
        refused = workspace.read.get(path, params={"filter": rank_filter})
    error = assert_error(refused, 400, "bad_request")
    assert "`rank`" in error["message"]
    assert "sortable" in error["message"]
    assert f"{READ_BUDGET:,}" in error["message"]
    assert f"{READ_BUDGET + 1:,}" in error["message"]
    assert {"location": "sortable", "problem": "mark `rank` sortable"} in error["details"]
    # Refused before reading a single entry or summary: token, then type and counts.
    assert captured.operations() == ["GetItem", "BatchGetItem"]
    by_sort = assert_error(workspace.read.get(path, params={"sort": "-rank"}), 400)
    assert "`rank`" in by_sort["message"]
    contains = json.dumps({"field": "message", "op": "contains", "value": "9"})
    refused_contains = assert_error(workspace.full.get(path, params={"filter": contains}), 400)
    assert "`contains` on `message`" in refused_contains["message"]
    graphql = post(workspace.read, '{ logs(sort: "-rank") { total } }')
    assert "`rank`" in graphql["errors"][0]["message"]
    assert graphql["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    # What the index serves is not limited by it: the newest page, and a range of createdAt.
    newest = workspace.read.get(path, params={"pageSize": 3}).json()
    assert newest["total"] == READ_BUDGET + 1
    messages = [e["values"]["message"] for e in newest["items"]]
    assert messages == [f"m{READ_BUDGET - i}" for i in range(3)]
    since = json.dumps({"field": "createdAt", "op": "gte", "value": iso_utc(1_700_000_000 + 9000)})
    recent = workspace.read.get(path, params={"filter": since, "sort": "createdAt"}).json()
    assert recent["total"] == READ_BUDGET + 1 - 9000
    assert recent["items"][0]["values"]["message"] == "m9000"
