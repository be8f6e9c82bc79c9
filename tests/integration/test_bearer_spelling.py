"""Only `Authorization: Bearer <token>` is accepted, spelled exactly so (docs/api.md,
"Authentication"): the edge keys its WAF rate rule and its cache on the raw header, so every
other spelling of a valid token is a 401 on REST and GraphQL alike, never a second bucket.
(Whitespace around the value cannot cross HTTP/1.1 here; test_api_handler_events sends it as
API Gateway passes it.)"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.clients import ClientFactory
from tests.support.graphql import PATH, only_error

QUERY = "{ __typename }"
SPELLINGS = [
    "bearer {token}",
    "BEARER {token}",
    "BeArEr {token}",
    "Bearer  {token}",
    "Bearer\t{token}",
    "Bearer {token} x",
    "Bearer {token},Bearer {token}",
    "Token {token}",
]


def _client(make_client: ClientFactory, template: str, token: str) -> httpx.Client:
    return make_client(Authorization=template.format(token=token))


@pytest.fixture
def token(credentials: dict[str, Any]) -> str:
    read: str = credentials["tokens"]["read"]
    return read


def test_the_exact_form_is_accepted(make_client: ClientFactory, token: str) -> None:
    client = _client(make_client, "Bearer {token}", token)
    assert client.get("/api/v1/me").status_code == 200
    assert client.post(PATH, json={"query": QUERY}).json()["data"] == {"__typename": "Query"}
    assert client.get(PATH, params={"query": QUERY}).json()["data"] == {"__typename": "Query"}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_any_other_spelling_of_a_valid_token_is_401(
    make_client: ClientFactory, token: str, spelling: str
) -> None:
    client = _client(make_client, spelling, token)
    rest = client.get("/api/v1/me")
    assert rest.status_code == 401, rest.text
    error = rest.json()["error"]
    assert (error["status"], error["code"]) == (401, "unauthorized")
    assert "Bearer <token>" in error["message"]
    assert token not in rest.text
    posted = client.post(PATH, json={"query": QUERY})
    assert posted.status_code == 200
    assert "Bearer <token>" in only_error(posted.json(), "UNAUTHENTICATED", 401)["message"]
    got = client.get(PATH, params={"query": QUERY})
    assert got.status_code == 200
    only_error(got.json(), "UNAUTHENTICATED", 401)
    assert "s-maxage" not in got.headers.get("cache-control", "")
