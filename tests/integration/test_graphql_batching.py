"""Batching observed at the storage boundary: nested relation reads of one execution tick are
one BatchGetItem per relation level, whatever the number of rows."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.content import capture, define, shared_workspace
from tests.support.field_types import relation
from tests.support.graphql import data, seed, service_calls

ROWS = 50


@pytest.fixture(scope="module")
def blog(base_url: str) -> Iterator[WorkspaceAccess]:
    """5 authors, 12 tags and 50 posts, each with an author, three tags and two related posts."""
    with shared_workspace(base_url) as access:
        define(access.full, "author", [{"name": "name", "type": "string"}])
        define(access.full, "tag", [{"name": "name", "type": "string"}])
        define(
            access.full,
            "post",
            [
                {"name": "title", "type": "string"},
                {"name": "body", "type": "richtext"},
                relation("author", "author", "many-to-one"),
                relation("tags", "tag", "many-to-many"),
                relation("related", "post", "many-to-many"),
            ],
        )
        authors = seed(access.id, "author", [({"name": f"author {i}"}, {}) for i in range(5)])
        tags = seed(access.id, "tag", [({"name": f"tag {i}"}, {}) for i in range(12)])
        older = seed(
            access.id, "post", [({"title": f"old {i}"}, {"author": [authors[i]]}) for i in range(2)]
        )
        seed(
            access.id,
            "post",
            [
                (
                    {"title": f"post {i}", "body": "<p>long</p>" * 100},
                    {
                        "author": [authors[i % 5]],
                        "tags": [tags[i % 12], tags[(i + 5) % 12], tags[(i + 7) % 12]],
                        "related": older,
                    },
                )
                for i in range(ROWS)
            ],
            start=time.time() + 60,  # newer than `older`: the default sort puts them first
        )
        yield access


LIST = (
    "query ($n: Int) { posts(pageSize: $n) { total items { title author { name } "
    "tags(pageSize: 3) { name } } } }"
)
TWO_LEVELS = (
    "query ($n: Int) { posts(pageSize: $n) { items { title "
    "related(pageSize: 2) { title author { name } } } } }"
)


def _observe(blog: WorkspaceAccess, stack: LocalStack, query: str, rows: int) -> tuple[Any, Any]:
    with service_calls() as calls, capture(stack) as captured:
        result = data(blog.full, query, {"n": rows})
    assert len(result["posts"]["items"]) == rows
    return captured, calls


def test_a_list_with_two_relations_costs_one_read_per_relation_level(
    blog: WorkspaceAccess, stack: LocalStack
) -> None:
    assert stack.settings is not None
    content = stack.settings.tables.content
    data(blog.full, "{ __typename }")  # the schema is cached; what follows is the read alone
    observed: dict[int, list[str]] = {}
    for rows in (10, ROWS):
        captured, calls = _observe(blog, stack, LIST, rows)
        on_content = captured.on(content)
        # One Query of the index for the list, one BatchGetItem for the page, and one
        # BatchGetItem per relation (author, tags): never one per row.
        assert sorted(c.operation for c in on_content) == ["BatchGetItem"] * 3 + ["Query"], rows
        page, *targets = [c for c in on_content if c.operation == "BatchGetItem"]
        assert len(page.body["RequestItems"][content]["Keys"]) == rows
        sizes = sorted(len(c.body["RequestItems"][content]["Keys"]) for c in targets)
        assert sizes[0] <= 5  # the authors, each asked once
        assert sizes[1] <= 12  # the tags, each asked once
        assert calls.reads.count("list_entries") == 1
        assert calls.reads.count("load_entries_by_ids") == 2
        observed[rows] = sorted(c.operation for c in captured.dynamodb())
    assert observed[10] == observed[ROWS]  # independent of the number of rows, on every table


def test_each_nested_level_is_one_more_batched_read(
    blog: WorkspaceAccess, stack: LocalStack
) -> None:
    assert stack.settings is not None
    content = stack.settings.tables.content
    data(blog.full, "{ __typename }")
    observed: dict[int, list[str]] = {}
    for rows in (10, ROWS):
        captured, calls = _observe(blog, stack, TWO_LEVELS, rows)
        operations = sorted(c.operation for c in captured.on(content))
        # list Query + page, then related (level 2), then their authors (level 3).
        assert operations == ["BatchGetItem"] * 3 + ["Query"], rows
        assert calls.reads.count("load_entries_by_ids") == 2
        observed[rows] = operations
    assert observed[10] == observed[ROWS]


def test_the_graphql_list_reads_no_more_than_rest_expand(
    blog: WorkspaceAccess, stack: LocalStack
) -> None:
    """REST's expand reads both relations in one BatchGetItem; GraphQL's loaders are per target
    type, so one more: both constant in the number of rows."""
    assert stack.settings is not None
    content = stack.settings.tables.content
    data(blog.full, "{ __typename }")
    with capture(stack) as rest:
        response = blog.full.get(
            "/api/v1/content/post",
            params={"pageSize": ROWS, "expand": "author,tags", "fields": "title"},
        )
    assert response.status_code == 200
    captured, _ = _observe(blog, stack, LIST, ROWS)
    assert len(captured.on(content)) == len(rest.on(content)) + 1
    assert b"<p>long</p>" not in b"".join(c.raw_response for c in captured.on(content))
