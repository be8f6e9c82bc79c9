"""Lists whose only filter is one relation `eq` (to-one) or `contains` (to-many) naming one
entry, sorted by createdAt, are served from the target's reverse-link index (docs/content.md,
"What links here", decision D135): the same entries, order, total and cursors as the in-memory
path, in REST and GraphQL, for a full token (latest versions) and a read token (published
versions) while drafts link other entries than their published versions; a stale reverse item
never shows; the requests do not grow with the type.

The in-memory path is asked the same question with `in` (`containsAny`) and one id, which the
reverse-link index does not serve."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from infra.local_stack import LocalStack
from infra.request_recorder import RecordedCall
from tests.support.blog import define_authored_posts, relink
from tests.support.clients import WorkspaceAccess
from tests.support.content import Captured, capture, create, publish
from tests.support.graphql import post as graphql_post
from tests.support.graphql import seed

PAGE = 2
SORTS = ("-createdAt", "createdAt")


@dataclass
class Blog:
    access: WorkspaceAccess
    ids: dict[str, str]

    def clients(self) -> dict[str, httpx.Client]:
        return {"full": self.access.full, "read": self.access.read}


@pytest.fixture
def blog(new_workspace: Callable[..., WorkspaceAccess]) -> Blog:
    """Nine posts by Ada and Grace over three tags: some published, some drafts, some
    published and then re-linked in a draft (author and tags), one trashed."""
    ws = new_workspace()
    ids = define_authored_posts(ws.full)
    plan = [
        ("p1", "ada", ("t1",), "published"),
        ("p2", "ada", ("t1", "t2"), "relinked"),
        ("p3", "grace", ("t2",), "published"),
        ("p4", "ada", ("t3",), "draft"),
        ("p5", "grace", ("t1",), "relinked"),
        ("p6", "ada", ("t1", "t3"), "published"),
        ("p7", "ada", ("t2",), "trashed"),
        ("p8", "ada", ("t1",), "published"),
        ("p9", "ada", ("t1", "t2"), "published"),
    ]
    for title, author, tags, state in plan:
        relations = {"author": {"link": [ids[author]]}, "tags": {"link": [ids[t] for t in tags]}}
        ids[title] = create(ws.full, "post", {"title": title}, relations=relations)["id"]
        if state != "draft":
            publish(ws.full, "post", ids[title])
        if state == "relinked":  # the draft links the other author and swaps t1 for t3
            other = ids["grace" if author == "ada" else "ada"]
            relink(
                ws.full,
                ids[title],
                {"author": {"link": [other]}, "tags": {"link": [ids["t3"]], "unlink": [ids["t1"]]}},
            )
        if state == "trashed":
            trashed = ws.full.delete(f"/api/v1/content/post/{ids[title]}")
            assert trashed.status_code in (200, 204), trashed.text
    return Blog(ws, ids)


def _conditions(ids: dict[str, str]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(served by the reverse-link index, the same question for the in-memory path)."""
    pairs = []
    for author in ("ada", "grace"):
        pairs.append(
            (
                {"field": "author", "op": "eq", "value": ids[author]},
                {"field": "author", "op": "in", "value": [ids[author]]},
            )
        )
    for tag in ("t1", "t2", "t3"):
        pairs.append(
            (
                {"field": "tags", "op": "contains", "value": ids[tag]},
                {"field": "tags", "op": "containsAny", "value": [ids[tag]]},
            )
        )
    return pairs


def _rest(
    client: httpx.Client, condition: dict[str, Any], sort: str, **params: Any
) -> dict[str, Any]:
    query = {"filter": json.dumps(condition), "sort": sort, "pageSize": PAGE, **params}
    response = client.get("/api/v1/content/post", params=query)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _rest_all(client: httpx.Client, condition: dict[str, Any], sort: str) -> tuple[list[str], int]:
    """Every page of the list, walked by cursor: the titles in order, and the total."""
    titles: list[str] = []
    totals: set[int] = set()
    cursor: str | None = None
    for _ in range(20):
        body = _rest(client, condition, sort, **({"cursor": cursor} if cursor else {}))
        titles.extend(item["values"]["title"] for item in body["items"])
        totals.add(body["total"])
        cursor = body["nextCursor"]
        if cursor is None:
            break
    assert len(totals) == 1, totals
    return titles, totals.pop()


def _graphql_all(
    client: httpx.Client, condition: dict[str, Any], sort: str
) -> tuple[list[str], int]:
    titles: list[str] = []
    totals: set[int] = set()
    cursor: str | None = None
    for _ in range(20):
        result = graphql_post(
            client,
            "query ($f: Filter, $s: String, $c: String, $n: Int) "
            "{ posts(filter: $f, sort: $s, cursor: $c, pageSize: $n) "
            "{ total nextCursor items { title } } }",
            {"f": condition, "s": sort, "c": cursor, "n": PAGE},
        )
        assert "errors" not in result, result
        page = result["data"]["posts"]
        titles.extend(item["title"] for item in page["items"])
        totals.add(page["total"])
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert len(totals) == 1, totals
    return titles, totals.pop()


def _reverse_queries(captured: Captured) -> list[RecordedCall]:
    return [
        c
        for c in captured.dynamodb()
        if c.operation == "Query"
        and c.body["ExpressionAttributeValues"][":pk"]["S"].startswith("REF#")
    ]


def _summary_queries(captured: Captured) -> list[RecordedCall]:
    """Queries of the content table other than the reverse-link index (the type's lists)."""
    from content_service.storage import dynamo

    content = dynamo.tables().content
    return [
        c
        for c in captured.on(content)
        if c.operation == "Query" and c not in _reverse_queries(captured)
    ]


def test_served_lists_answer_as_the_in_memory_path_in_both_views_and_protocols(
    blog: Blog, stack: LocalStack
) -> None:
    callers = (("full token", blog.access.full), ("read token", blog.access.read))
    for served, in_memory in _conditions(blog.ids):
        for sort in SORTS:
            for who, client in callers:
                expected = _rest_all(client, in_memory, sort)
                with capture(stack) as captured:
                    assert _rest_all(client, served, sort) == expected, (who, served, sort)
                    assert _graphql_all(client, served, sort) == expected, (who, served, sort)
                assert _reverse_queries(captured), "served by the reverse-link index"
                assert not _summary_queries(captured), "no summary of the type is read"
    # The fixture's drafts do make the two views differ.
    ada = {"field": "author", "op": "eq", "value": blog.ids["ada"]}
    assert _rest_all(blog.access.full, ada, "-createdAt")[0] == ["p9", "p8", "p6", "p5", "p4", "p1"]
    assert _rest_all(blog.access.read, ada, "-createdAt")[0] == ["p9", "p8", "p6", "p2", "p1"]


def test_cursors_page_through_more_than_two_pages_and_match_page_numbers(
    blog: Blog, stack: LocalStack
) -> None:
    condition = {"field": "tags", "op": "contains", "value": blog.ids["t1"]}
    client = blog.access.read  # published: p1, p2, p5, p6, p8, p9 link t1
    walked: list[list[str]] = []
    cursor: str | None = None
    with capture(stack) as captured:
        while True:
            body = _rest(client, condition, "-createdAt", **({"cursor": cursor} if cursor else {}))
            walked.append([item["values"]["title"] for item in body["items"]])
            assert body["total"] == 6
            cursor = body["nextCursor"]
            if cursor is None:
                break
    assert walked == [["p9", "p8"], ["p6", "p5"], ["p2", "p1"]]
    assert len(_reverse_queries(captured)) == 3
    assert not _summary_queries(captured)
    by_number = [
        [
            item["values"]["title"]
            for item in _rest(client, condition, "-createdAt", page=n)["items"]
        ]
        for n in (1, 2, 3)
    ]
    assert by_number == walked


def test_a_stale_reverse_item_never_shows(blog: Blog, stack: LocalStack) -> None:
    """A link removed while its reverse item stayed (a transaction without room for the
    delete), and a reverse item of a source that is gone."""
    from content_service.content.relations import Source
    from content_service.storage import dynamo

    ids, ws = blog.ids, blog.access.id
    condition = {"field": "author", "op": "eq", "value": ids["grace"]}
    before = {who: _rest_all(c, condition, "-createdAt") for who, c in blog.clients().items()}
    assert before["read"] == (["p5", "p3"], 2)
    p1 = blog.access.full.get(f"/api/v1/content/post/{ids['p1']}").json()  # links Ada only
    stale = [
        Source(ws, ids["p1"], "post", p1["createdAt"]),
        Source(ws, "0" * 8 + "-0000-4000-8000-" + "0" * 12, "post", "2030-01-01T00:00:00.000Z"),
    ]
    author_key = _field_key(blog, "author")
    dynamo.client().transact_write_items(
        TransactItems=[
            {
                "Put": {
                    "TableName": dynamo.tables().content,
                    "Item": s.item((author_key, ids["grace"])),
                }
            }
            for s in stale
        ]
    )
    with capture(stack) as captured:
        after = {who: _rest_all(c, condition, "-createdAt") for who, c in blog.clients().items()}
    assert after == before
    assert _reverse_queries(captured)
    assert not _summary_queries(captured)


def _field_key(blog: Blog, name: str) -> str:
    from content_service.content.schema import get_type

    post = get_type(blog.access.id, "post")
    assert post is not None
    field = post.field(name)
    assert field is not None
    return field.key


def test_the_requests_do_not_grow_with_the_type(blog: Blog, stack: LocalStack) -> None:
    """The same requests and bytes after 600 more posts by another author (the type's own
    item, holding its entry count, aside)."""
    from content_service.storage import dynamo

    condition = {"field": "author", "op": "eq", "value": blog.ids["ada"]}

    def observed() -> list[tuple[str, int]]:
        with capture(stack) as captured:
            for client in blog.clients().values():
                _rest(client, condition, "-createdAt")
        return [
            (c.operation, 0 if c.tables == [dynamo.tables().schema] else c.response_bytes)
            for c in captured.dynamodb()
        ]

    small = observed()
    rows = [({"title": f"grace {i}"}, {"author": [blog.ids["grace"]]}) for i in range(600)]
    seed(blog.access.id, "post", rows)
    assert observed() == small
    assert [operation for operation, _ in small] == [
        *("GetItem", "BatchGetItem", "Query", "BatchGetItem", "BatchGetItem"),
        *("GetItem", "BatchGetItem", "Query", "BatchGetItem", "BatchGetItem"),
    ]
