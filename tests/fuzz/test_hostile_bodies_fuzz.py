"""Hostile JSON bodies over real HTTP to the local stack (`tests/support/hostile_json.py`): keys
named twice, lone surrogates in keys and strings, nesting from shallow to thousands deep, sizes
around the 1 MiB cap, each sent with a Content-Length or chunked, to the REST write routes and
to GraphQL (as the body and as variables).

Each answer is what the strict reading says: over the cap, a 413; a key twice or a lone
surrogate, a 400 naming where; anything else whatever the route decides, never a 5xx. REST
answers in the contract's error shape; GraphQL always with HTTP 200 and `errors[]`.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.fuzzing import FUZZ, FuzzWorld
from tests.support.hostile_json import MAX_BODY_BYTES, Doc, chunks, documents, padded, sizes

PARSER_DEPTH = 900
"""Below this, json's decoder parses any nesting; above it, it may stop (a 400 either way)."""
VARIABLE_DEPTH = 64
"""GraphQL variables nest at most this deep (`transport.MAX_VARIABLE_DEPTH`)."""


@pytest.fixture(scope="module")
def client(base_url: str, fuzz_world: FuzzWorld) -> httpx.Client:
    return httpx.Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {fuzz_world.token}"},
        timeout=120,
    )


def send(client: httpx.Client, method: str, path: str, body: bytes, chunked: bool) -> Any:
    content: Any = chunks(body) if chunked else body
    return client.request(
        method, path, content=content, headers={"Content-Type": "application/json"}
    )


def rest_routes(world: FuzzWorld) -> list[tuple[str, str]]:
    return [
        ("POST", "/api/v1/content/post"),
        ("PATCH", f"/api/v1/content/post/{world.entry_ids[0]}"),
        ("POST", "/api/v1/content-types"),
    ]


@FUZZ
@given(
    doc=documents,
    wrap=st.sampled_from(["bare", "values", "relations"]),
    size=sizes,
    chunked=st.booleans(),
    route=st.integers(min_value=0, max_value=2),
)
def test_rest_bodies_are_refused_by_the_strict_reading_never_a_5xx(
    client: httpx.Client,
    fuzz_world: FuzzWorld,
    doc: Doc,
    wrap: str,
    size: int,
    chunked: bool,
    route: int,
) -> None:
    if wrap != "bare":
        doc = Doc('{"' + wrap + '":' + doc.text + "}", doc.duplicate, doc.surrogate, doc.depth + 1)
    doc = padded(doc, size)
    body = doc.text.encode()
    method, path = rest_routes(fuzz_world)[route]
    response = send(client, method, path, body, chunked)
    assert response.status_code < 500, response.text
    if response.status_code < 400:
        return  # the route took it: it was well-formed and acceptable
    error = response.json()["error"]
    assert error["status"] == response.status_code
    if len(body) > MAX_BODY_BYTES:
        assert (response.status_code, error["code"]) == (413, "payload_too_large")
    elif doc.refused and doc.depth < PARSER_DEPTH:
        assert (response.status_code, error["code"]) == (400, "bad_request"), error
        (detail,) = error["details"]
        assert detail["location"].startswith("body"), detail
        assert len(error["message"]) < 400
    elif doc.depth >= PARSER_DEPTH:
        assert response.status_code in (400, 422), error


@FUZZ
@given(doc=documents, size=sizes, chunked=st.booleans(), twice=st.booleans())
def test_graphql_bodies_answer_200_and_refuse_by_the_strict_reading(
    client: httpx.Client, doc: Doc, size: int, chunked: bool, twice: bool
) -> None:
    query = json.dumps(
        'query ($v: JSON) { posts(filter: {field: "title", op: eq, value: $v}) { total } }'
    )
    repeated = f',"query":{query}' if twice else ""
    doc = padded(doc, size)
    body = f'{{"query":{query}{repeated},"variables":{{"v":{doc.text}}}}}'.encode()
    response = send(client, "POST", "/api/v1/graphql", body, chunked)
    assert response.status_code == 200, response.text
    result = response.json()
    if not (len(body) > MAX_BODY_BYTES or doc.refused or twice or doc.depth + 2 > VARIABLE_DEPTH):
        assert "data" in result, result  # executed: the filter's own verdict is the service's
        for error in result.get("errors", []):
            assert error["extensions"]["status"] == 400, error
        return
    (error,) = result["errors"]
    assert "data" not in result
    if len(body) > MAX_BODY_BYTES:
        assert error["extensions"] == {"status": 413, "code": "PAYLOAD_TOO_LARGE"}
    else:
        assert error["extensions"]["status"] == 400, error
        assert error["extensions"]["code"] == "BAD_REQUEST", error
