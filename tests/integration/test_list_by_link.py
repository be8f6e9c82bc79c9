"""Lists filtered by one linked entry ("posts by this author") are read from the reverse-link
items (docs/content.md, "Relation filters"; D135): the same answer as the in-memory path (an
`in` of the one id), in both views and protocols, with cursors, and the same requests however
many other entries the type holds."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from infra.local_stack import LocalStack
from tests.conftest import WorkspaceAccess
from tests.support.content import capture, create, define, publish
from tests.support.graphql import post as graphql_post


@pytest.fixture
def ws(new_workspace: Callable[..., WorkspaceAccess]) -> WorkspaceAccess:
    workspace = new_workspace()
    define(workspace.full, "author", [{"name": "name", "type": "string"}])
    define(
        workspace.full,
        "post",
        [
            {"name": "title", "type": "string"},
            {
                "name": "author",
                "type": "relation",
                "target": "author",
                "cardinality": "many-to-one",
            },
            {"name": "tags", "type": "relation", "target": "author", "cardinality": "many-to-many"},
        ],
        titleField="title",
    )
    return workspace


def _author(ws: WorkspaceAccess, name: str) -> str:
    made = create(ws.full, "author", {"name": name})["id"]
    publish(ws.full, "author", made)
    return str(made)


def _posts(ws: WorkspaceAccess, author: str, other: str, count: int) -> None:
    """`count` posts by `author`: published ones, drafts, and published ones whose draft now
    links `other` instead (so the two views disagree)."""
    for n in range(count):
        links = {"author": {"link": [author]}, "tags": {"link": [author, other]}}
        post = create(ws.full, "post", {"title": f"p{n}"}, relations=links)["id"]
        if n % 3 != 2:
            publish(ws.full, "post", post)
        if n % 3 == 1:
            moved = {"relations": {"author": {"link": [other]}, "tags": {"unlink": [author]}}}
            assert ws.full.patch(f"/api/v1/content/post/{post}", json=moved).status_code == 200


def _pages(client: httpx.Client, condition: dict[str, Any], **params: Any) -> list[list[str]]:
    pages: list[list[str]] = []
    query: dict[str, Any] = {"filter": json.dumps(condition), "pageSize": 3, **params}
    while True:
        answer = client.get("/api/v1/content/post", params=query)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        pages.append([item["values"]["title"] for item in body["items"]])
        if not body["nextCursor"]:
            return pages
        query["cursor"] = body["nextCursor"]


@pytest.mark.parametrize("sort", [None, "createdAt"])
def test_the_index_path_answers_what_the_in_memory_path_does(
    ws: WorkspaceAccess, sort: str | None
) -> None:
    ada, bob = _author(ws, "Ada"), _author(ws, "Bob")
    _posts(ws, ada, bob, 8)
    extra = {"sort": sort} if sort else {}
    for client in (ws.full, ws.read):
        for served, in_memory in (
            ({"field": "author", "op": "eq", "value": ada}, "in"),
            ({"field": "tags", "op": "contains", "value": ada}, "containsAny"),
        ):
            same = {"field": served["field"], "op": in_memory, "value": [ada]}
            pages = _pages(client, served, **extra)
            assert pages == _pages(client, same, **extra)
            assert sum(map(len, pages)) > 3  # more than one page, followed by cursor
            total = client.get(
                "/api/v1/content/post", params={"filter": json.dumps(served), **extra}
            ).json()["total"]
            assert total == sum(map(len, pages))


def test_graphql_lists_by_link_agree_with_rest(ws: WorkspaceAccess) -> None:
    ada, bob = _author(ws, "Ada"), _author(ws, "Bob")
    _posts(ws, ada, bob, 5)
    condition = {"field": "author", "op": "eq", "value": ada}
    query = "query($f: Filter) { posts(filter: $f, pageSize: 10) { total items { title } } }"
    for client in (ws.full, ws.read):
        rest = _pages(client, condition, pageSize=10)[0]
        answer = graphql_post(client, query, {"f": condition})
        assert "errors" not in answer, answer
        assert [i["title"] for i in answer["data"]["posts"]["items"]] == rest
        assert answer["data"]["posts"]["total"] == len(rest)


def test_the_requests_do_not_grow_with_the_type(ws: WorkspaceAccess, stack: LocalStack) -> None:
    ada, bob = _author(ws, "Ada"), _author(ws, "Bob")
    _posts(ws, ada, bob, 4)
    condition = json.dumps({"field": "author", "op": "eq", "value": ada})

    def operations() -> list[tuple[str, bool]]:
        with capture(stack) as captured:
            assert (
                ws.read.get("/api/v1/content/post", params={"filter": condition}).status_code == 200
            )
        return [(c.operation, "REF#" in json.dumps(c.body)) for c in captured.dynamodb()]

    before = operations()
    assert ("Query", True) in before  # the target's reverse-link items
    for n in range(30):
        publish(ws.full, "post", create(ws.full, "post", {"title": f"other {n}"},
                                        relations={"author": {"link": [bob]}})["id"])  # fmt: skip
    assert operations() == before
