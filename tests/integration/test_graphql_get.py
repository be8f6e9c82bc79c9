"""GraphQL over GET: queries with the same limits and answers as POST, mutations refused with
405 and `Allow: POST`, the `application/graphql-response+json` media type when asked (still
HTTP 200), the SDL when no query is given, and `extensions.cost` on every answer that ran,
equal to what the cost limiter counts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from graphql import parse

from content_service import runtime
from content_service.graphql.cache import schemas
from content_service.graphql.cost_limits import measure
from content_service.identity.tokens import authenticate_token
from tests.support.clients import ClientFactory, WorkspaceAccess
from tests.support.content import create, define, publish, shared_workspace
from tests.support.graphql import PATH, only_error, post

LIST = "query Posts($n: Int) { posts(pageSize: $n) { total items { title } } }"
NESTED = "{ posts(pageSize: 4) { items { title tags(pageSize: 3) { name } } } }"


@pytest.fixture(scope="module")
def site(base_url: str) -> Iterator[WorkspaceAccess]:
    with shared_workspace(base_url) as workspace:
        define(workspace.full, "tag", [{"name": "name", "type": "string"}])
        define(
            workspace.full,
            "post",
            [
                {"name": "title", "type": "string"},
                {
                    "name": "tags",
                    "type": "relation",
                    "target": "tag",
                    "cardinality": "many-to-many",
                },
            ],
        )
        for title in ("One", "Two"):
            publish(workspace.full, "post", create(workspace.full, "post", {"title": title})["id"])
        yield workspace


def get(client: httpx.Client, query: str, **params: Any) -> httpx.Response:
    encoded = {k: json.dumps(v) if isinstance(v, dict) else v for k, v in params.items()}
    return client.get(PATH, params={"query": query, **encoded})


def cost_of(token: str, workspace_id: str, query: str, variables: dict[str, Any] | None) -> int:
    """What the cost limiter counts for this document on this token's schema."""
    settings = runtime.settings().graphql
    built = schemas.schema_for(
        authenticate_token(token), workspace_id, settings.schema_cache_ttl_seconds
    )
    return measure(parse(query), built.cost_model, settings, variables).complexity


def test_a_query_over_get_answers_as_over_post(site: WorkspaceAccess) -> None:
    variables = {"n": 1}
    answer = get(site.read, LIST, variables=variables, operationName="Posts")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/json"
    posted = post(site.read, LIST, variables, "Posts")
    assert answer.json() == posted
    assert posted["data"]["posts"]["total"] == 2
    assert len(posted["data"]["posts"]["items"]) == 1


def test_get_keeps_post_s_limits_and_refusals(site: WorkspaceAccess) -> None:
    many = "{ " + " ".join(f"a{i}: __typename" for i in range(501)) + " }"
    only_error(get(site.read, many).json(), "TOO_MANY_FIELDS", 400)
    too_complex = "{ posts(pageSize: 100) { items { tags(pageSize: 100) { name } } } }"
    only_error(get(site.read, too_complex).json(), "TOO_COMPLEX", 400)
    only_error(get(site.read, "{ posts(pageSize: 0) { total } }").json(), "BAD_USER_INPUT", 400)
    only_error(get(site.read, "{ posts {").json(), "GRAPHQL_PARSE_FAILED", 400)
    only_error(get(site.read, "{ nope }").json(), "GRAPHQL_VALIDATION_FAILED", 400)
    bad_variables = site.read.get(PATH, params={"query": LIST, "variables": "{"})
    only_error(bad_variables.json(), "BAD_REQUEST", 400)
    twice = site.read.get(PATH, params=[("query", LIST), ("query", LIST)])
    only_error(twice.json(), "BAD_REQUEST", 400)


def test_a_mutation_over_get_is_405_with_allow_post_and_writes_nothing(
    site: WorkspaceAccess,
) -> None:
    mutation = 'mutation { createPost(input: {values: {title: "Sneaky"}}) { id } }'
    for client in (site.full, site.read):
        refused = get(client, mutation)
        assert refused.status_code == 405, refused.text
        assert refused.headers["allow"] == "POST"
        assert refused.headers["cache-control"] == "no-store"
        only_error(refused.json(), "METHOD_NOT_ALLOWED", 405)
    titles = post(site.full, "{ posts { items { title } } }")["data"]["posts"]["items"]
    assert {t["title"] for t in titles} == {"One", "Two"}
    # Named by operationName among a query? One operation per request still: the mutation is
    # what would run, so it is refused the same way.
    named = get(site.full, 'mutation M { deletePost(id: "x") }', operationName="M")
    assert named.status_code == 405


def test_graphql_response_json_when_accept_asks_for_it_still_http_200(
    site: WorkspaceAccess,
) -> None:
    accept = {"Accept": "application/graphql-response+json, application/json;q=0.9"}
    for response in (
        site.read.get(PATH, params={"query": LIST}, headers=accept),
        site.read.get(PATH, params={"query": "{ nope }"}, headers=accept),
        site.read.post(PATH, json={"query": LIST}, headers=accept),
        site.read.post(PATH, json={"query": "{ nope"}, headers=accept),
    ):
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/graphql-response+json"
        assert "data" in response.json() or "errors" in response.json()
    plain = site.read.get(PATH, params={"query": LIST}, headers={"Accept": "application/json"})
    assert plain.headers["content-type"] == "application/json"


def test_without_a_query_get_still_answers_the_sdl(
    site: WorkspaceAccess, make_client: ClientFactory
) -> None:
    for params in ({}, {"version": "published"}):
        sdl = site.read.get(PATH, params=params)
        assert sdl.status_code == 200
        assert sdl.headers["content-type"].startswith("text/plain")
        assert "type Post " in sdl.text
    assert make_client().get(PATH).status_code == 401
    anonymous = make_client().get(PATH, params={"query": LIST})
    assert anonymous.status_code == 200
    only_error(anonymous.json(), "UNAUTHENTICATED", 401)


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        (LIST, {"n": 7}),
        (LIST, None),
        (NESTED, None),
        ('{ post(id: "00000000-0000-4000-8000-000000000000") { title } }', None),
        ("{ __typename }", None),
    ],
)
def test_every_answer_that_ran_reports_the_cost_the_limiter_counted(
    site: WorkspaceAccess, query: str, variables: dict[str, Any] | None
) -> None:
    expected = {
        "requested": cost_of(site.read_token, site.id, query, variables),
        "limit": runtime.settings().graphql.max_complexity,
    }
    over_post = post(site.read, query, variables)
    over_get = get(site.read, query, **({"variables": variables} if variables else {})).json()
    for answer in (over_post, over_get):
        assert "data" in answer
        assert answer["extensions"] == {"cost": expected}, answer
    assert expected["requested"] == {
        LIST: 7 if variables else 25,
        NESTED: 4 + 4 * 3,
    }.get(query, expected["requested"])
    refused = post(site.read, "{ posts(pageSize: 100) { items { tags(pageSize: 100) { id } } } }")
    assert "extensions" not in refused  # refused before it ran
