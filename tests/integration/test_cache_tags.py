"""Cache tags (`Surrogate-Key`) on cacheable answers, through real HTTP (docs/api.md, "Cache
tags"): the purge that follows a visible change of an entry names `change_tags(...)`, so an
answer must carry one of those tags exactly when the change can alter it: it shows the entry, it
looked for it and found it invisible, or it lists the entry's type."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from content_service.content.cache_tags import (
    HEADER,
    change_tags,
    list_tag,
    workspace_tag,
)
from tests.support.clients import WorkspaceAccess
from tests.support.content import create, define, publish
from tests.support.field_types import relation
from tests.support.graphql import PATH

NewWorkspace = Callable[..., WorkspaceAccess]


def tags(response: httpx.Response) -> set[str]:
    assert response.status_code == 200, response.text
    assert "errors" not in response.json(), response.text
    return set(response.headers[HEADER].split(" "))


def purges(workspace: WorkspaceAccess, kind: str, entry: dict[str, Any]) -> set[str]:
    return set(change_tags(workspace.id, kind, entry["id"]))


@pytest.fixture
def blog(new_workspace: NewWorkspace) -> tuple[WorkspaceAccess, dict[str, dict[str, Any]]]:
    """Published authors ann and bob (bob lives in Oslo), a draft author cy, posts p1 (by ann)
    and p2 (by cy, the draft), and a published page."""
    workspace = new_workspace()
    full = workspace.full
    define(full, "author", [{"name": "name", "type": "string"}, {"name": "city", "type": "string"}])
    define(
        full,
        "post",
        [
            {"name": "title", "type": "string"},
            relation("author", "author", "many-to-one"),
        ],
    )
    define(full, "page", [{"name": "title", "type": "string"}])
    made: dict[str, dict[str, Any]] = {}
    for name, city in (("ann", "Rome"), ("bob", "Oslo"), ("cy", "Oslo")):
        made[name] = create(full, "author", {"name": name, "city": city})
    for name in ("ann", "bob"):
        publish(full, "author", made[name]["id"])
    for title, author in (("p1", "ann"), ("p2", "cy")):
        relations = {"author": {"link": [made[author]["id"]]}}
        made[title] = create(full, "post", {"title": title}, relations=relations)
        publish(full, "post", made[title]["id"])
    made["home"] = create(full, "page", {"title": "home"})
    publish(full, "page", made["home"]["id"])
    return workspace, made


def test_an_entry_read_is_tagged_with_what_it_shows_and_nothing_else(
    blog: tuple[WorkspaceAccess, dict[str, dict[str, Any]]],
) -> None:
    workspace, made = blog
    got = tags(workspace.read.get(f"/api/v1/content/post/{made['p1']['id']}?expand=author"))
    assert purges(workspace, "post", made["p1"]) & got
    assert purges(workspace, "author", made["ann"]) & got
    assert workspace_tag(workspace.id) in got
    for other, kind in (("p2", "post"), ("bob", "author"), ("home", "page")):
        assert not purges(workspace, kind, made[other]) & got, other
    assert len([t for t in got if t.startswith("k:")]) == 1


def test_an_invisible_target_is_tagged_so_its_publish_purges_the_answer(
    blog: tuple[WorkspaceAccess, dict[str, dict[str, Any]]],
) -> None:
    workspace, made = blog
    answer = workspace.read.get(f"/api/v1/content/post/{made['p2']['id']}?expand=author")
    assert answer.json()["relations"]["author"] == []
    assert purges(workspace, "author", made["cy"]) & tags(answer)


def test_a_list_carries_its_type_and_its_expansions_not_other_types(
    blog: tuple[WorkspaceAccess, dict[str, dict[str, Any]]],
) -> None:
    workspace, made = blog
    got = tags(workspace.read.get("/api/v1/content/post?expand=author"))
    assert list_tag(workspace.id, "post") in got
    assert purges(workspace, "author", made["ann"]) & got
    assert not purges(workspace, "page", made["home"]) & got
    assert not purges(workspace, "author", made["bob"]) & got


def test_a_list_filtered_through_a_linked_field_lists_the_linked_type(
    blog: tuple[WorkspaceAccess, dict[str, dict[str, Any]]],
) -> None:
    """Bob moving to Oslo's neighbour changes which posts match: the author list tag says so."""
    workspace, _ = blog
    condition = {"field": "author.city", "op": "eq", "value": "Oslo"}
    got = tags(workspace.read.get("/api/v1/content/post", params={"filter": json.dumps(condition)}))
    assert {list_tag(workspace.id, "post"), list_tag(workspace.id, "author")} <= got


def test_what_links_here_lists_the_linking_types(
    blog: tuple[WorkspaceAccess, dict[str, dict[str, Any]]],
) -> None:
    workspace, made = blog
    got = tags(workspace.read.get(f"/api/v1/content/author/{made['ann']['id']}/links"))
    assert list_tag(workspace.id, "post") in got
    assert purges(workspace, "author", made["ann"]) & got
    assert not purges(workspace, "page", made["home"]) & got


def test_graphql_get_answers_carry_the_tags_of_what_they_resolved(
    blog: tuple[WorkspaceAccess, dict[str, dict[str, Any]]],
) -> None:
    workspace, made = blog
    query = "{ posts { items { title author { name } } } }"
    got = tags(workspace.read.get(PATH, params={"query": query}))
    assert list_tag(workspace.id, "post") in got
    assert purges(workspace, "author", made["ann"]) & got
    assert purges(workspace, "author", made["cy"]) & got
    assert not purges(workspace, "page", made["home"]) & got
    one = "query ($id: ID!) { page(id: $id) { title } }"
    variables = json.dumps({"id": made["home"]["id"]})
    got = tags(workspace.read.get(PATH, params={"query": one, "variables": variables}))
    assert purges(workspace, "page", made["home"]) & got
    assert not purges(workspace, "post", made["p1"]) & got


def test_each_token_s_answers_carry_its_own_token_tag(
    blog: tuple[WorkspaceAccess, dict[str, dict[str, Any]]],
) -> None:
    workspace, made = blog
    path = f"/api/v1/content/page/{made['home']['id']}"
    first = {t for t in tags(workspace.read.get(path)) if t.startswith("k:")}
    full = {t for t in tags(workspace.full.get(path)) if t.startswith("k:")}
    assert len(first) == len(full) == 1
    assert first != full
