"""Schemathesis against the GraphQL endpoint (`/api/v1/graphql`), over real HTTP to the local
stack's uvicorn.

The schema is the seeded workspace's, introspected with its full token; every query and
mutation field is called with generated arguments and selections, an `id` argument naming one
of the seeded entries half the time. GraphQL answers HTTP 200 with `{data?, errors?,
extensions?}` and puts the status REST would have answered in each error's
`extensions.status`, so "no server error"
means no 5xx status and no error whose `extensions.status` is 5xx (schemathesis' own
`not_a_server_error` counts any resolver error, a 404 included, as a server error). Every
answer must be a well-formed GraphQL response that keeps the schema's non-null promises.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import schemathesis
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.support.fuzzing import FUZZ, FuzzWorld, schemathesis_phases

ID_ARGUMENT = re.compile(r'\bid: (?:"(?:[^"\\]|\\.)*"|[-+0-9.eE]+)')


def no_server_error(ctx: Any, response: Any, case: Any) -> None:
    assert response.status_code < 500, f"HTTP {response.status_code}"
    body = json.loads(response.content)
    errors = body.get("errors") if isinstance(body, dict) else None
    for error in errors or []:
        extensions = error.get("extensions") or {}
        assert extensions.get("status", 500) < 500, error
        assert extensions.get("code") != "INTERNAL_SERVER_ERROR", error


def well_formed_answer(ctx: Any, response: Any, case: Any) -> None:
    """`{data?, errors?, extensions?}` as JSON; every error with a message, a status and a
    code; `extensions.cost` within its limit."""
    assert response.status_code == 200, f"HTTP {response.status_code}"
    assert response.headers["content-type"][0].startswith("application/json")
    body = json.loads(response.content)
    assert isinstance(body, dict), body
    assert body, "neither data nor errors"
    assert set(body) <= {"data", "errors", "extensions"}, body
    if "extensions" in body:  # an answer that ran: its cost
        cost = body["extensions"]["cost"]
        assert "data" in body, body
        assert isinstance(cost["requested"], int), cost
        assert 0 <= cost["requested"] <= cost["limit"], cost
    if "errors" in body:
        assert isinstance(body["errors"], list), body
        assert body["errors"], "an empty errors list"
    for error in body.get("errors", []):
        assert isinstance(error["message"], str), error
        assert error["message"], error
        assert isinstance(error["extensions"]["status"], int), error
        assert isinstance(error["extensions"]["code"], str), error


# `response_schema_conformance` asks the operation's own schema, here GraphQL's: a JSON object,
# and no null where the schema promises a value.
CHECKS = [no_server_error, well_formed_answer, response_schema_conformance]


@pytest.fixture
def graphql(base_url: str, fuzz_world: FuzzWorld) -> Any:
    headers = {"Authorization": f"Bearer {fuzz_world.token}"}
    schema = schemathesis.graphql.from_url(f"{base_url}/api/v1/graphql", headers=headers)
    schema.config.update(headers=headers)
    schema.config.phases.update(phases=schemathesis_phases())

    @schema.hook("flatmap_case")
    def real_ids(_: Any, case: Any) -> Any:
        # Half the time the first `id` argument names a seeded entry, else what was generated.
        if not isinstance(case.body, str) or not ID_ARGUMENT.search(case.body):
            return st.just(case)

        def naming(entry_id: str | None) -> Any:
            if entry_id is not None:
                case.body = ID_ARGUMENT.sub(f'id: "{entry_id}"', case.body, count=1)
            return case

        return (st.none() | st.sampled_from(fuzz_world.entry_ids)).map(naming)

    return schema


@schemathesis.pytest.from_fixture("graphql").parametrize()
@FUZZ
def test_no_server_error_and_every_answer_is_well_formed(case: Any) -> None:
    case.call_and_validate(checks=CHECKS)
