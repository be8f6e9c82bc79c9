"""Cost limits (docs/graphql.md, "Cost limits") and hostile requests through real HTTP: each limit
accepts a document at it and refuses one just over it; every hostile request answers HTTP 200 with
errors, never a 500, and runs no resolver (no service call, no request to the content table)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from graphql import get_introspection_query

from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.content import capture, create, define, publish, shared_workspace
from tests.support.field_types import relation
from tests.support.graphql import (
    PATH,
    data,
    errors,
    nested_parents,
    only_error,
    post,
    service_calls,
)
from tests.support.settings import settings_changed


@pytest.fixture(scope="module")
def tree(base_url: str) -> Iterator[WorkspaceAccess]:
    """`node` entries with a to-one `parent` and a to-many `children`."""
    with shared_workspace(base_url) as access:
        define(
            access.full,
            "node",
            [
                {"name": "name", "type": "string"},
                relation("parent", "node", "many-to-one"),
                relation("children", "node", "many-to-many"),
            ],
        )
        root = publish(access.full, "node", create(access.full, "node", {"name": "root"})["id"])
        child = create(
            access.full, "node", {"name": "child"}, relations={"parent": {"link": [root["id"]]}}
        )
        publish(access.full, "node", child["id"])
        data(access.full, "{ __typename }")  # build and cache the schema up front
        yield access


def aliases(count: int) -> str:
    """`count` + 2 fields: nodes, items and `count` aliased names."""
    names = " ".join(f"a{i}: name" for i in range(count))
    return "{ nodes(pageSize: 1) { items { " + names + " } } }"


AT_AND_OVER = {
    "depth": (nested_parents(8), nested_parents(9), "TOO_DEEP"),
    "fields": (aliases(498), aliases(499), "TOO_MANY_FIELDS"),
    # 40 + 40 x 24 = 1000 records; one more single entry makes 1001.
    "complexity": (
        "{ nodes(pageSize: 40) { items { children(pageSize: 24) { name } } } }",
        "{ nodes(pageSize: 40) { items { children(pageSize: 24) { name } } } "
        'one: node(id: "00000000-0000-4000-8000-000000000000") { name } }',
        "TOO_COMPLEX",
    ),
    "length": (
        "{ __typename }" + " " * (16384 - len("{ __typename }")),
        "{ __typename }" + " " * (16385 - len("{ __typename }")),
        "QUERY_TOO_LONG",
    ),
    "operations": (
        "query One { __typename }",
        "query One { __typename } query Two { __typename }",
        "TOO_MANY_OPERATIONS",
    ),
}


@pytest.mark.parametrize("limit", sorted(AT_AND_OVER))
def test_each_limit_accepts_a_document_at_it_and_refuses_one_just_over(
    tree: WorkspaceAccess, stack: LocalStack, limit: str
) -> None:
    assert stack.settings is not None
    at, over, code = AT_AND_OVER[limit]
    accepted = post(tree.full, at)
    assert "data" in accepted, accepted
    assert all(e["extensions"]["code"] == "NOT_FOUND" for e in accepted.get("errors", []))
    with service_calls() as calls, capture(stack) as captured:
        refused = post(tree.full, over, operation_name="One" if limit == "operations" else None)
    only_error(refused, code, 400)
    assert "data" not in refused
    assert calls.calls == []
    assert captured.on(stack.settings.tables.content) == []


def test_limits_follow_the_settings(tree: WorkspaceAccess) -> None:
    import dataclasses

    with settings_changed(
        lambda s: dataclasses.replace(s, graphql=dataclasses.replace(s.graphql, max_depth=3))
    ):
        assert data(tree.full, "{ nodes { items { name } } }")
        only_error(post(tree.full, "{ nodes { items { parent { name } } } }"), "TOO_DEEP", 400)
    assert data(tree.full, "{ nodes { items { parent { name } } } }")


def test_introspection_is_exempt_so_graphiql_works(tree: WorkspaceAccess) -> None:
    result = data(tree.full, get_introspection_query(descriptions=True))
    assert result["__schema"]["queryType"]["name"] == "Query"
    # Beside introspection, the rest of the document still counts.
    only_error(
        post(tree.full, "{ __schema { queryType { name } } " + nested_parents(9)[1:]),
        "TOO_DEEP",
        400,
    )


def _fragment_bomb() -> str:
    fragments = [
        f"fragment F{i} on Node {{ " + " ".join(f"...F{i + 1}" for _ in range(10)) + " }"
        for i in range(6)
    ]
    fragments.append("fragment F6 on Node { name }")
    return "{ nodes { items { ...F0 } } } " + " ".join(fragments)


HOSTILE_DOCUMENTS: dict[str, tuple[str, dict[str, Any] | None, str]] = {
    "deep nesting": (nested_parents(60), None, "TOO_DEEP"),
    "braces too deep to parse": ("{a" * 4000 + "}" * 4000, None, "GRAPHQL_PARSE_FAILED"),
    "list literal too deep to parse": (
        "{ nodes(filter: {value: " + "[" * 5000 + "]" * 5000 + "}) { total } }",
        None,
        "GRAPHQL_PARSE_FAILED",
    ),
    "alias bomb": (aliases(1200), None, "TOO_MANY_FIELDS"),
    "duplicate field bomb": (
        "{ nodes { items { " + "name " * 3000 + "} } }",
        None,
        "TOO_MANY_FIELDS",
    ),
    "alias bomb beyond the length": (aliases(3000), None, "QUERY_TOO_LONG"),
    "fragment cycle": (
        "{ nodes { items { ...A } } } fragment A on Node { name ...B } "
        "fragment B on Node { parent { ...A } }",
        None,
        "FRAGMENT_CYCLE",
    ),
    "self-spreading fragment": (
        "{ nodes { items { ...A } } } fragment A on Node { ...A }",
        None,
        "FRAGMENT_CYCLE",
    ),
    "fragment bomb": (_fragment_bomb(), None, "TOO_MANY_FIELDS"),
    "introspection bomb": (
        "{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }",
        None,
        "INTROSPECTION_TOO_DEEP",
    ),
    "introspection alias bomb": (
        "{ __schema { " + "types { name } " * 1010 + "} }",
        None,
        "INTROSPECTION_TOO_LARGE",
    ),
    "two operations": (
        "query A { __typename } query B { __typename }",
        None,
        "TOO_MANY_OPERATIONS",
    ),
    "anonymous and named": ("{ __typename } query B { __typename }", None, "TOO_MANY_OPERATIONS"),
    "syntax error": ("{ nodes { items { name }", None, "GRAPHQL_PARSE_FAILED"),
    "empty document": ("", None, "GRAPHQL_PARSE_FAILED"),
    "only a fragment": ("fragment A on Node { name }", None, "TOO_MANY_OPERATIONS"),
    "subscription": ("subscription { nodes { total } }", None, "GRAPHQL_VALIDATION_FAILED"),
    "unknown argument": ("{ nodes(first: 3) { total } }", None, "GRAPHQL_VALIDATION_FAILED"),
    "wrong variable type": (
        "query ($n: Int) { nodes(pageSize: $n) { total } }",
        {"n": "ten"},
        "BAD_USER_INPUT",
    ),
    "missing required variable": (
        "query ($id: ID!) { node(id: $id) { name } }",
        {},
        "BAD_USER_INPUT",
    ),
    "variable of an undeclared type": (
        "query ($f: Nope) { nodes { total } }",
        {"f": 1},
        "GRAPHQL_VALIDATION_FAILED",
    ),
    "object for a scalar variable": (
        "query ($n: Int) { nodes(pageSize: $n) { total } }",
        {"n": {"a": 1}},
        "BAD_USER_INPUT",
    ),
    "filter with an unknown key": (
        "query ($f: Filter) { nodes(filter: $f) { total } }",
        {"f": {"field": "name", "op": "eq", "value": "x", "extra": 1}},
        "BAD_USER_INPUT",
    ),
    "filter with an unknown operator": (
        "query ($f: Filter) { nodes(filter: $f) { total } }",
        {"f": {"field": "name", "op": "regex", "value": "x"}},
        "BAD_USER_INPUT",
    ),
    "huge variables": (
        "query ($v: JSON) { __typename }",
        {"v": [0] * 150_000},
        "BAD_REQUEST",
    ),
    "deeply nested variables": (
        "query ($v: JSON) { __typename }",
        {"v": json.loads("[" * 200 + "]" * 200)},
        "BAD_REQUEST",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_DOCUMENTS))
def test_hostile_documents_answer_200_with_errors_and_run_no_resolver(
    tree: WorkspaceAccess, stack: LocalStack, case: str
) -> None:
    assert stack.settings is not None
    query, variables, code = HOSTILE_DOCUMENTS[case]
    with service_calls() as calls, capture(stack) as captured:
        result = post(tree.full, query, variables)
    found = errors(result)
    assert {e["extensions"]["code"] for e in found} == {code}, found
    assert {e["extensions"]["status"] for e in found} == {400}
    assert "data" not in result
    assert calls.calls == []
    assert captured.on(stack.settings.tables.content) == []


def _raw(client: httpx.Client, body: bytes | Iterator[bytes], **headers: str) -> dict[str, Any]:
    response = client.post(
        PATH, content=body, headers={"Content-Type": "application/json", **headers}
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{",
        b"not json",
        b"[]",
        b"null",
        b'"{ __typename }"',
        b"{}",
        b'{"query": null}',
        b'{"query": 1}',
        b'{"query": "{ __typename }", "variables": [1]}',
        b'{"query": "{ __typename }", "variables": "{}"}',
        b'{"query": "{ __typename }", "variables": 5}',
        b'{"query": "{ __typename }", "operationName": 5}',
        b"\xff\xfe\x00",
        b"[" * 20_000 + b"]" * 20_000,
    ],
)
def test_malformed_bodies_answer_200_with_an_error(tree: WorkspaceAccess, body: bytes) -> None:
    with service_calls() as calls:
        result = _raw(tree.full, body)
    only_error(result, "BAD_REQUEST", 400)
    assert calls.calls == []


def test_unknown_operation_name_runs_nothing(tree: WorkspaceAccess) -> None:
    with service_calls() as calls:
        result = post(tree.full, "query Known { nodes { total } }", operation_name="Other")
        anonymous = post(tree.full, "{ nodes { total } }", operation_name="Other")
    only_error(result, "OPERATION_RESOLUTION_FAILURE", 400)
    only_error(anonymous, "OPERATION_RESOLUTION_FAILURE", 400)
    assert calls.calls == []
    named = post(tree.full, "query Known { nodes { total } }", operation_name="Known")
    assert named == {
        "data": {"nodes": {"total": 2}},
        "extensions": {"cost": {"requested": 25, "limit": 1000}},
    }


def test_a_body_over_the_cap_answers_200_with_a_413_error_and_runs_nothing(
    tree: WorkspaceAccess,
) -> None:
    """The 1 MiB body cap of every route, in GraphQL's shape: HTTP 200, `extensions.status`
    413, whether the body declares its length or comes chunked."""
    body = json.dumps({"query": "{ __typename }", "variables": {"v": "x" * (1024 * 1024)}})

    def chunked() -> Iterator[bytes]:
        yield body.encode()

    with service_calls() as calls:
        declared = _raw(tree.full, body.encode())
        streamed = _raw(tree.full, chunked())
    for result in (declared, streamed):
        only_error(result, "PAYLOAD_TOO_LARGE", 413)
        assert "data" not in result
    assert calls.calls == []
