"""Hostile requests over real HTTP to the local stack: each gets a clear 4xx in the contract's
shape (HTTP 200 with `errors[].extensions.status` on the GraphQL route), never a 5xx, a reset
or a half-written record. One test per finding of issue 16, in its order:

1. lone-surrogate keys and strings; 2. chunked GraphQL bodies; 3. large GraphQL bodies;
4. introspection amplification and the event loop; 5. relation page sizes; 6. long URLs and
headers; 7. GraphQL shape details; 8. duplicate JSON keys; 9. content types on GraphQL.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest
from graphql import OperationDefinitionNode, execute, parse, print_ast

from content_service.api.request_limits import MAX_HEADER_BYTES, MAX_URL_BYTES, SERVER_HEAD_BYTES
from content_service.graphql import execution
from content_service.graphql.cache import schemas
from content_service.graphql.introspection_bound import (
    INTROSPECTION_FACTOR,
    answer_size,
    standard_query,
)
from content_service.identity.tokens import authenticate_token
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess, sign_in
from tests.support.content import (
    Storage,
    assert_error,
    capture,
    create,
    define,
    publish,
    shared_workspace,
)
from tests.support.field_types import relation
from tests.support.graphql import PATH, data, only_error, post, service_calls

NOTE_FIELDS = [
    {"name": "text", "type": "string"},
    {"name": "meta", "type": "json"},
    relation("ref", "note", "many-to-many"),
]
JSON = {"Content-Type": "application/json"}
TEN_MB = 10 * 1024 * 1024


@pytest.fixture(scope="module")
def site(base_url: str) -> Iterator[WorkspaceAccess]:
    """Two published `note` entries, one linking the other, and `blank`, a type without
    entries."""
    with shared_workspace(base_url) as access:
        define(access.full, "note", NOTE_FIELDS)
        define(access.full, "blank", [relation("ref", "note", "many-to-many")])
        first = create(access.full, "note", {"text": "first"})
        second = create(
            access.full, "note", {"text": "second"}, relations={"ref": {"link": [first["id"]]}}
        )
        for note in (first, second):
            publish(access.full, "note", note["id"])
        data(access.full, "{ __typename }")
        data(access.read, "{ __typename }")
        yield access


def graphql_raw(client: httpx.Client, body: Any, **headers: str) -> dict[str, Any]:
    """The body of a GraphQL answer, which is HTTP 200 JSON whatever was sent."""
    response = client.post(PATH, content=body, headers={**JSON, **headers})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    result: dict[str, Any] = response.json()
    return result


def first_note(site: WorkspaceAccess) -> dict[str, Any]:
    listed = site.full.get("/api/v1/content/note", params={"sort": "createdAt"}).json()
    note: dict[str, Any] = listed["items"][0]
    return note


# 1. Lone surrogates ---------------------------------------------------------------------------

SURROGATE_BODIES = {
    "values key": (b'{"values": {"\\ud800": 1}}', "body.values.\\ud800"),
    "relations key": (b'{"relations": {"\\ud800": {"link": []}}}', "body.relations.\\ud800"),
    "values string": (b'{"values": {"text": "\\udfff"}}', "body.values.text"),
    "key inside a json value": (b'{"values": {"meta": {"a": [{"\\udc00": 1}]}}}', None),
}


@pytest.mark.parametrize("case", sorted(SURROGATE_BODIES))
def test_1_a_lone_surrogate_anywhere_in_a_rest_body_is_a_400_naming_it(
    site: WorkspaceAccess, storage: Storage, case: str
) -> None:
    body, location = SURROGATE_BODIES[case]
    note = first_note(site)
    with storage.unchanged(site.id):
        for response in (
            site.full.post("/api/v1/content/note", content=body, headers=JSON),
            site.full.patch(f"/api/v1/content/note/{note['id']}", content=body, headers=JSON),
        ):
            error = assert_error(response, 400, "bad_request")
            (detail,) = error["details"]
            assert detail["location"] == (location or "body.values.meta.a[0].\\udc00")
            assert "Unicode" in detail["problem"]


def test_1_a_lone_surrogate_in_a_filter_or_in_graphql_variables_is_a_400_naming_it(
    site: WorkspaceAccess,
) -> None:
    key = site.full.get("/api/v1/content/note", params={"filter": '{"\\ud800": 1}'})
    assert assert_error(key, 400)["details"] == [
        {
            "location": "filter.\\ud800",
            "problem": "a key that is not valid Unicode (a lone surrogate)",
        }
    ]
    value = site.full.get(
        "/api/v1/content/note",
        params={"filter": '{"and": [{"field": "text", "op": "eq", "value": "\\udbff"}]}'},
    )
    assert assert_error(value, 400)["details"][0]["location"] == "filter.and[0].value"
    document = "mutation ($m: JSON) { createNote(input: {values: {meta: $m}}) { id } }"
    body = b'{"query": "%s", "variables": {"m": {"\\ud800": true}}}' % document.encode()
    with service_calls() as calls:
        result = graphql_raw(site.full, body)
    error = only_error(result, "BAD_REQUEST", 400)
    assert error["extensions"]["details"][0]["location"] == "body.variables.m.\\ud800"
    assert calls.calls == []


# 2 and 3. Large GraphQL bodies, chunked or not -------------------------------------------------


def _chunks(total: int, piece: int = 64 * 1024) -> Iterator[bytes]:
    yield b'{"query": "{ __typename }", "variables": {"v": "'
    for _ in range(total // piece):
        yield b"x" * piece
    yield b'"}}'


def test_2_a_chunked_10_mb_body_is_a_413_in_each_routes_shape(site: WorkspaceAccess) -> None:
    with service_calls() as calls:
        result = graphql_raw(site.full, _chunks(TEN_MB))
    only_error(result, "PAYLOAD_TOO_LARGE", 413)
    assert "data" not in result
    assert calls.calls == []
    rest = site.full.post("/api/v1/content/note", content=_chunks(TEN_MB), headers=JSON)
    assert_error(rest, 413, "payload_too_large")


def test_3_a_body_over_1_mib_with_a_content_length_is_a_413_in_each_routes_shape(
    site: WorkspaceAccess,
) -> None:
    body = b"".join(_chunks(1024 * 1024 + 1))
    result = graphql_raw(site.full, body)
    only_error(result, "PAYLOAD_TOO_LARGE", 413)
    assert "data" not in result
    rest = site.full.post("/api/v1/content/note", content=body, headers=JSON)
    assert_error(rest, 413, "payload_too_large")
    # The same rule lets a body just under the cap through, however it is sent.
    under = json.dumps({"query": "{ __typename }", "variables": {"v": "x" * 1_000_000}})
    assert graphql_raw(site.full, under.encode()) == {
        "data": {"__typename": "Query"},
        "extensions": {"cost": {"requested": 0, "limit": 1000}},
    }
    assert graphql_raw(site.full, iter([under.encode()])) == {
        "data": {"__typename": "Query"},
        "extensions": {"cost": {"requested": 0, "limit": 1000}},
    }


# 4. Introspection: its own bound, and no request holds the event loop --------------------------


def _amplified(copies: int) -> str:
    """`copies` aliased deep `__schema` selections in one document (the report's attack)."""
    deep = "types { name kind fields { name type { name kind ofType { name } } } }"
    return "{ " + " ".join(f"s{i}: __schema {{ {deep} }}" for i in range(copies)) + " }"


def _standard_copies(copies: int) -> str:
    """graphql-core's full introspection query with its `__schema` selection `copies` times."""
    operation, *fragments = standard_query().definitions
    assert isinstance(operation, OperationDefinitionNode)
    (schema_field,) = operation.selection_set.selections
    aliased = " ".join(f"c{i}: {print_ast(schema_field)}" for i in range(copies))
    return "{ " + aliased + " } " + " ".join(print_ast(f) for f in fragments)


def test_4_an_amplified_introspection_is_refused_before_execution(
    site: WorkspaceAccess, stack: LocalStack
) -> None:
    assert stack.settings is not None
    document = _amplified(142)
    assert len(document) <= 16384  # within the length limit, and the selection count
    with service_calls() as calls, capture(stack) as captured:
        result = post(site.read, document)
    error = only_error(result, "INTROSPECTION_TOO_LARGE", 400)
    assert f"{INTROSPECTION_FACTOR} times the standard introspection" in error["message"]
    assert "data" not in result
    assert calls.calls == []
    assert captured.on(stack.settings.tables.content) == []


def test_4_the_standard_introspection_fits_three_times_and_not_four(
    site: WorkspaceAccess,
) -> None:
    """The bound is INTROSPECTION_FACTOR (3) times what the standard introspection answers on
    the caller's schema: the standard query itself and up to three copies of it run (what
    GraphiQL, Apollo or `gql` send is less), a fourth copy is refused before execution."""
    once = data(site.read, _standard_copies(1))
    assert once["c0"]["queryType"]["name"] == "Query"
    thrice = data(site.read, _standard_copies(3))
    assert thrice["c2"] == thrice["c0"] == once["c0"]
    only_error(post(site.read, _standard_copies(4)), "INTROSPECTION_TOO_LARGE", 400)
    # And the figures behind it, on the schema the read token was served.
    built = schemas.schema_for(authenticate_token(site.read_token), site.id, 60)
    assert not built.writable
    standard = answer_size(parse(_standard_copies(1)), built.schema, {}, None)
    assert built.introspection_limit == INTROSPECTION_FACTOR * standard


def test_4_a_request_held_in_execution_does_not_hold_the_server(
    site: WorkspaceAccess, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one GraphQL request is stuck inside graphql-core's execution, the server answers
    others: the pipeline runs on a worker thread, not on the server's event loop."""
    entered, release = threading.Event(), threading.Event()
    real_execute = execute

    def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        release.wait(60)
        return real_execute(*args, **kwargs)

    monkeypatch.setattr(execution, "execute", held)
    headers = {"Authorization": f"Bearer {site.read_token}"}
    with (
        httpx.Client(base_url=base_url, headers=headers, timeout=60) as slow,
        httpx.Client(base_url=base_url, headers=headers, timeout=20) as other,
        ThreadPoolExecutor(1) as pool,
    ):
        pending = pool.submit(post, slow, "{ notes { total } }")
        try:
            assert entered.wait(30)
            assert other.get("/healthz").json() == {"status": "ok"}
            assert other.get("/api/v1/content/note").status_code == 200
            assert not pending.done()
        finally:
            release.set()
        assert pending.result(60) == {
            "data": {"notes": {"total": 2}},
            "extensions": {"cost": {"requested": 25, "limit": 1000}},
        }


# 5. Relation page sizes ------------------------------------------------------------------------


@pytest.mark.parametrize("page_size", [-1, 0, 101])
def test_5_relation_page_sizes_have_rests_bounds_even_with_no_rows(
    site: WorkspaceAccess, page_size: int
) -> None:
    note = first_note(site)
    rest = site.full.get(
        f"/api/v1/content/note/{note['id']}/relations/ref", params={"pageSize": page_size}
    )
    assert_error(rest, 400, "bad_request")
    for document in (
        "{ blanks { items { ref(pageSize: %d) { id } } } }",  # no row reaches the field
        "{ notes { items { ref(pageSize: %d) { id } } } }",
        "query ($n: Int) { notes { items { ref(pageSize: $n) { id } } } }",
    ):
        variables = {"n": page_size} if "$n" in document else None
        text = document if variables else document % page_size
        with service_calls() as calls:
            result = post(site.read, text, variables)
        error = only_error(result, "BAD_USER_INPUT", 400)
        assert error["message"] == "pageSize must be from 1 to 100"
        assert "data" not in result
        assert calls.calls == []


# 6. Long URLs and headers -----------------------------------------------------------------------


def _send(base_url: str, target: str, headers: dict[str, str], body: bytes = b"") -> Any:
    """One request with http.client (httpx refuses to send URLs this long): status, content type
    and JSON body; a reset would raise here."""
    address = urlsplit(base_url)
    assert address.hostname is not None
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
    try:
        method = "POST" if body else "GET"
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body or None)
        response = connection.getresponse()
        return response.status, response.getheader("content-type"), json.loads(response.read())
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("length", "answered_by"),
    [(100_000, "app"), (4_000_000, "server")],
)
def test_6_an_over_long_url_is_a_414_in_the_contracts_shape(
    site: WorkspaceAccess, base_url: str, length: int, answered_by: str
) -> None:
    token = {"Authorization": f"Bearer {site.full_token}"}
    limit = MAX_URL_BYTES if answered_by == "app" else SERVER_HEAD_BYTES
    target = "/api/v1/content/note?filter=" + quote('{"x": "' + "y" * length + '"}')
    status, content_type, body = _send(base_url, target, token)
    assert (status, content_type) == (414, "application/json")
    assert body["error"]["code"] == "uri_too_long"
    assert str(limit) in body["error"]["message"]
    graphql = _send(
        base_url, f"{PATH}?x={'y' * length}", {**token, **JSON}, b'{"query": "{ __typename }"}'
    )
    assert graphql[:2] == (200, "application/json")
    assert graphql[2]["errors"][0]["extensions"] == {"status": 414, "code": "URI_TOO_LONG"}


def test_6_a_url_within_the_limit_reaches_the_route(site: WorkspaceAccess, base_url: str) -> None:
    """A valid filter percent-encoded past 16 KiB (uvicorn's default head limit) is answered by
    the route itself."""
    values = [f"{i}" + "\u00e9" * 40 for i in range(80)]
    text = json.dumps({"field": "text", "op": "in", "value": values}, ensure_ascii=False)
    assert len(text) <= 8192
    target = "/api/v1/content/note?filter=" + quote(text)
    assert 16 * 1024 < len(target) <= MAX_URL_BYTES
    status, _, body = _send(base_url, target, {"Authorization": f"Bearer {site.full_token}"})
    assert (status, body["items"], body["total"]) == (200, [], 0)


@pytest.mark.parametrize("size", [MAX_HEADER_BYTES + 1_000, SERVER_HEAD_BYTES + 100_000])
def test_6_over_long_headers_are_a_431_in_the_contracts_shape(
    site: WorkspaceAccess, base_url: str, size: int
) -> None:
    headers = {f"X-Pad-{i}": "p" * 1000 for i in range(size // 1000)}
    headers["Authorization"] = f"Bearer {site.full_token}"
    status, content_type, body = _send(base_url, "/api/v1/me", headers)
    assert (status, content_type) == (431, "application/json")
    assert body["error"]["code"] == "headers_too_large"


def test_6_a_malformed_request_gets_the_contracts_shape(base_url: str) -> None:
    address = urlsplit(base_url)
    for request in (
        b"NOT HTTP AT ALL\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
        b"POST " + PATH.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: many\r\n\r\n",
    ):
        with socket.create_connection((address.hostname, address.port), timeout=30) as raw:
            raw.sendall(request)
            answer = b""
            while chunk := raw.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert b"content-type: application/json" in head.lower(), answer
        if request.startswith(b"POST"):
            assert head.startswith(b"HTTP/1.1 200")
            assert json.loads(body)["errors"][0]["extensions"]["status"] == 400
        else:
            assert head.startswith(b"HTTP/1.1 400")
            assert json.loads(body)["error"]["code"] == "bad_request"


# 7. GraphQL shape details ----------------------------------------------------------------------


def test_7_a_failed_delete_leaves_a_sibling_mutations_result(
    site: WorkspaceAccess, storage: Storage
) -> None:
    document = (
        'mutation { made: createNote(input: {values: {text: "kept"}}) { id text } '
        'gone: deleteNote(id: "00000000-0000-4000-8000-000000000000") }'
    )
    result = post(site.full, document)
    made = result["data"]["made"]
    assert made["text"] == "kept"
    assert result["data"]["gone"] is None
    (error,) = result["errors"]
    assert error["path"] == ["gone"]
    assert error["extensions"] == {"status": 404, "code": "NOT_FOUND"}
    assert storage.entry_item(site.id, made["id"]) is not None


def test_7_a_syntax_error_carries_its_location(site: WorkspaceAccess) -> None:
    result = post(site.read, "{\n  notes {\n    items { text }\n  ")
    error = only_error(result, "GRAPHQL_PARSE_FAILED", 400)
    assert error["locations"] == [{"line": 4, "column": 3}]


def test_7_a_read_tokens_schema_has_no_mutation_type(site: WorkspaceAccess) -> None:
    assert "type Mutation" not in site.read.get(PATH).text
    assert "type Mutation" in site.full.get(PATH).text
    introspected = data(site.read, "{ __schema { mutationType { name } } }")
    assert introspected == {"__schema": {"mutationType": None}}
    with service_calls() as calls:
        result = post(site.read, 'mutation { createNote(input: {values: {text: "x"}}) { id } }')
    only_error(result, "FORBIDDEN", 403)
    assert "data" not in result
    assert calls.calls == []


# 8. Duplicate keys -----------------------------------------------------------------------------


def test_8_a_key_named_twice_is_a_400_wherever_it_is(
    site: WorkspaceAccess, storage: Storage
) -> None:
    note = first_note(site)
    twice = b'{"values": {"text": "a", "text": "b"}}'
    with storage.unchanged(site.id):
        for response in (
            site.full.post("/api/v1/content/note", content=twice, headers=JSON),
            site.full.patch(f"/api/v1/content/note/{note['id']}", content=twice, headers=JSON),
            site.full.post(
                "/api/v1/content-types",
                content=b'{"name": "a", "name": "b", "fields": []}',
                headers=JSON,
            ),
        ):
            error = assert_error(response, 400, "bad_request")
            assert "appears twice" in error["details"][0]["problem"]
        assert_error(
            site.full.get(
                "/api/v1/content/note",
                params={"filter": '{"field": "text", "op": "eq", "op": "ne", "value": "a"}'},
            ),
            400,
        )
        for body in (
            b'{"query": "{ __typename }", "query": "mutation { deleteNote(id: \\"x\\") }"}',
            b'{"query": "query ($v: JSON) { __typename }", "variables": {"v": 1, "v": 2}}',
        ):
            only_error(graphql_raw(site.full, body), "BAD_REQUEST", 400)


# 9. Content types on GraphQL -------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin-1",
        "application/graphql",
        None,
    ],
)
def test_9_graphql_takes_application_json_only(
    site: WorkspaceAccess, storage: Storage, content_type: str | None
) -> None:
    body = b'{"query": "mutation { createNote(input: {values: {text: \\"no\\"}}) { id } }"}'
    headers = {"Content-Type": content_type} if content_type else {}
    with storage.unchanged(site.id), service_calls() as calls:
        response = site.full.post(PATH, content=body, headers=headers)
    assert response.status_code == 200
    only_error(response.json(), "UNSUPPORTED_MEDIA_TYPE", 415)
    assert calls.calls == []


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8"])
def test_9_application_json_is_executed(site: WorkspaceAccess, content_type: str) -> None:
    result = graphql_raw(
        site.read, b'{"query": "{ notes { total } }"}', **{"Content-Type": content_type}
    )
    assert result == {
        "data": {"notes": {"total": 2}},
        "extensions": {"cost": {"requested": 25, "limit": 1000}},
    }


def test_9_the_origin_guard_answers_the_graphql_route_in_its_shape(
    base_url: str, credentials: dict[str, Any]
) -> None:
    """A cookie-carrying write from a foreign origin is refused, as on every route; on the
    GraphQL route the 403 comes as HTTP 200 with `errors[]`."""
    with httpx.Client(base_url=base_url, headers={"Origin": base_url}, timeout=30) as client:
        sign_in(client, credentials["admin"]["email"], credentials["admin"]["password"])
        client.headers["Origin"] = "https://evil.example"
        result = graphql_raw(client, b'{"query": "{ __typename }"}')
    error = only_error(result, "FORBIDDEN", 403)
    assert "foreign origin" in error["message"]
