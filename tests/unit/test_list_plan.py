"""The list plan and the list read that executes it, against the in-memory content store.

docs/content.md, "Lists": a list whose sort is one key the index holds, filtered with `eq`,
ranges and `isNull` on it (and `eq` on one other sortable field or on `status`) is served by
the index, a page and one more read per partition and merged; anything else is filtered and
sorted in memory within READ_BUDGET entries, else refused with a 400 naming the field to mark
sortable. Entries with equal values are ordered by id, nulls last, and following
`nextCursor` visits every entry once. (The moto-backed suites in tests/integration cover the
same rules through the API.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from content_service.content import store as content_store
from content_service.content.lists import (
    COUNT_SK,
    READ_BUDGET,
    Scope,
    Served,
    bucket,
    count_pks,
    list_entries,
    plan,
)
from content_service.content.requests import ListRequest
from content_service.content.schema import get_type
from content_service.errors import BadRequest
from content_service.identity.principal import Caller
from tests.support.content_model import (
    EDITOR,
    WORKSPACE,
    content_type,
    entry,
    entry_id,
    field,
    published,
    token,
)
from tests.support.content_store import InMemoryContentStore

BOOK = content_type(
    "book",
    field("title", "string", "f1"),
    field("rank", "integer", "f2", sortable=True),
    field("genre", "enum", "f3", sortable=True, values=("a", "b")),
    field("notes", "text", "f4"),
    shards=2,
)
# (entry number, rank, genre): ranks repeat so that ties are broken by id.
ROWS = [(1, 3, "a"), (2, 1, "b"), (3, 2, "a"), (4, 3, "b"), (5, None, "a"), (6, 2, "b")]


def _book(n: int, rank: int | None, genre: str, status: Any = "draft") -> Any:
    values: dict[str, Any] = {"title": f"book {n}", "genre": genre}
    if rank is not None:
        values["rank"] = rank
    return entry(BOOK, n, values, status=status)


@pytest.fixture(params=[1, 2], ids=["one shard", "two shards"])
def books(request: pytest.FixtureRequest) -> Iterator[InMemoryContentStore]:
    """The books, in an index of one shard (equal values in one partition) or two (merged)."""
    sharded = replace(
        BOOK, list_shards=request.param, list_layout=replace(BOOK.list_layout, shards=request.param)
    )
    fake = InMemoryContentStore()
    fake.add_type(sharded)
    for n, rank, genre in ROWS:
        fake.add_entry(sharded, _book(n, rank, genre))
    with content_store.using(fake):
        yield fake


def _request(caller: Caller = EDITOR, **options: Any) -> ListRequest:
    return ListRequest.parse(caller, WORKSPACE, "book", **options)


def _walk(**options: Any) -> tuple[list[str], list[int]]:
    """Every id a list shows, following nextCursor from the first page; and each page's total."""
    ids: list[str] = []
    totals: list[int] = []
    cursor = None
    while True:
        page = list_entries(_request(cursor=cursor, **options))
        ids.extend(item.id for item in page.items)
        totals.append(page.total)
        cursor = page.next_cursor
        if cursor is None:
            return ids, totals


def _ids(*numbers: int) -> list[str]:
    return [entry_id(n) for n in numbers]


def test_one_sortable_key_is_served_by_the_index() -> None:
    chosen = plan(BOOK, _request(sort="rank", filter={"field": "genre", "op": "eq", "value": "a"}))
    assert isinstance(chosen, Served)
    assert chosen.sort.name == "f2"
    assert chosen.scope.eq == ("f3", "genre", bucket("a"))


def test_an_or_or_an_unsortable_field_is_planned_in_memory_with_its_reasons() -> None:
    chosen = plan(
        BOOK,
        _request(
            sort="title",
            filter={
                "or": [
                    {"field": "rank", "op": "eq", "value": 1},
                    {"field": "rank", "op": "eq", "value": 2},
                ]
            },
        ),
    )
    assert isinstance(chosen, Scope)
    assert chosen.reasons == [
        "sort: `title` is not sortable",
        "filter: `or` is evaluated in memory",
    ]
    assert chosen.mark == ["title"]


def test_an_index_page_orders_values_ties_by_id_and_nulls_last(
    books: InMemoryContentStore,
) -> None:
    ids, totals = _walk(sort="rank", page_size=2)
    assert ids == _ids(2, 3, 6, 1, 4, 5)
    assert totals == [6, 6, 6]
    assert "summaries" not in books.calls
    assert "index_keys" in books.calls


@pytest.mark.parametrize("page_size", [1, 3, 10])
def test_descending_keeps_ties_by_id_ascending_across_page_boundaries(
    books: InMemoryContentStore, page_size: int
) -> None:
    """Pages of 1 and 3 end inside a run of equal values (read again ascending); a page of
    10 reads every value in one descending Query (each run turned round)."""
    ids, _ = _walk(sort="-rank", page_size=page_size)
    assert ids == _ids(1, 4, 3, 6, 2, 5)
    assert "index_keys_descending" in books.calls
    assert "summaries" not in books.calls


def test_page_numbers_and_cursors_agree(books: InMemoryContentStore) -> None:
    second = list_entries(_request(sort="rank", page=2, page_size=2))
    assert [item.id for item in second.items] == _ids(6, 1)
    assert second.total == 6


def test_eq_on_another_sortable_field_reads_its_partition(books: InMemoryContentStore) -> None:
    ids, totals = _walk(
        sort="-createdAt", filter={"field": "genre", "op": "eq", "value": "b"}, page_size=2
    )
    assert ids == _ids(6, 4, 2)
    assert totals == [3, 3]


def test_a_range_is_served_and_its_total_counted(books: InMemoryContentStore) -> None:
    ids, totals = _walk(sort="rank", filter={"field": "rank", "op": "gte", "value": 2}, page_size=2)
    assert ids == _ids(3, 6, 1, 4)
    assert totals == [4, 4]
    assert "index_count" in books.calls


def test_an_in_memory_list_sorts_and_pages_like_the_index(books: InMemoryContentStore) -> None:
    ids, totals = _walk(
        sort="rank",
        filter={
            "or": [
                {"field": "genre", "op": "eq", "value": "a"},
                {"field": "rank", "op": "eq", "value": 1},
            ]
        },
        page_size=2,
    )
    assert ids == _ids(2, 3, 1, 5)
    assert totals == [4, 4]
    assert "summaries" in books.calls
    assert "index_keys" not in books.calls


def test_the_delivery_view_lists_published_versions_only(
    books: InMemoryContentStore,
) -> None:
    live = _book(7, 5, "a", status="published")
    stored_type = get_type(WORKSPACE, "book")
    assert stored_type is not None
    books.add_entry(stored_type, live, published(live))
    page = list_entries(_request(token(access="read"), sort="rank"))
    assert [item.id for item in page.items] == _ids(7)
    assert page.total == 1


def test_over_the_read_budget_an_in_memory_list_is_refused_before_reading(
    books: InMemoryContentStore,
) -> None:
    shards = count_pks(WORKSPACE, "book", "en", "A")
    books.put("schema", {"pk": shards[0], "sk": COUNT_SK, "n": READ_BUDGET + 1})
    with pytest.raises(BadRequest) as refused:
        list_entries(_request(sort="title"))
    assert "over the read budget of 10,000 per request" in refused.value.message
    assert "Mark `title` sortable on content type `book`" in refused.value.message
    assert "summaries" not in books.calls
