"""Schemathesis against `/api/v1/openapi.json`, over real HTTP to the local stack's uvicorn.

Every documented operation is called with generated (valid and invalid) input and the full token
of a seeded workspace. Path parameters name that workspace's real types, entries and fields half
the time, and half the lists ask with a valid filter, sort and fields, so requests reach the
service code rather than stopping at a 404 or a 400. A second pass signs in as the administrator
for the routes a token may not use (tokens, and the webhook reads: webhook writes would resolve
and store generated URLs), a third sends no credentials at all. Each response must not be a 5xx,
must have a documented status code and content type, and must match the documented schema.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from content_service.api.auth import SESSION_COOKIE
from tests.support.filter_grammar import filter_texts
from tests.support.fuzzing import (
    FUZZ,
    POST_FIELDS,
    FuzzWorld,
    filter_operands,
    schemathesis_phases,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
LIST = "GET /api/v1/content/{content_type}"
POST_OPERANDS = filter_operands(POST_FIELDS)
VALUE_FIELDS = [f["name"] for f in POST_FIELDS if f["type"] != "relation"]
SORTABLE = [o.name for o in POST_OPERANDS if o.name not in ("status", "localeGroupId")]
sort_keys = st.builds(
    lambda minus, name: minus + name, st.sampled_from(["", "-"]), st.sampled_from(SORTABLE)
)
valid_list_queries = st.fixed_dictionaries(
    {"filter": filter_texts(POST_OPERANDS)},
    optional={
        "sort": st.lists(sort_keys, min_size=1, max_size=5).map(",".join),
        "fields": st.lists(st.sampled_from(VALUE_FIELDS), max_size=4).map(",".join),
        "page": st.integers(min_value=1, max_value=3),
        "pageSize": st.integers(min_value=1, max_value=100),
    },
)


def load(base_url: str, headers: dict[str, str]) -> Any:
    schema = schemathesis.openapi.from_url(f"{base_url}/api/v1/openapi.json", timeout=30)
    schema.config.update(base_url=base_url, headers=headers)
    schema.config.phases.update(phases=schemathesis_phases())
    return schema


@pytest.fixture
def openapi(base_url: str, fuzz_world: FuzzWorld) -> Any:
    schema = load(base_url, {"Authorization": f"Bearer {fuzz_world.token}"})
    real = {
        "content_type": st.sampled_from(fuzz_world.types),
        "name": st.sampled_from(fuzz_world.types),
        "entry_id": st.sampled_from(fuzz_world.entry_ids),
        "field": st.sampled_from(fuzz_world.fields),
    }

    @schema.hook("flatmap_path_parameters")  # type: ignore[untyped-decorator]  # schemathesis is untyped
    def half_real(_: Any, path_parameters: dict[str, Any] | None) -> Any:
        return st.fixed_dictionaries(
            {
                name: real[name] | st.just(value) if name in real else st.just(value)
                for name, value in (path_parameters or {}).items()
            }
        )

    @schema.hook("flatmap_query")  # type: ignore[untyped-decorator]  # schemathesis is untyped
    def half_valid_lists(context: Any, query: dict[str, Any] | None) -> Any:
        if context.operation is None or context.operation.label != LIST:
            return st.just(query)
        return st.just(query) | valid_list_queries

    return schema


@pytest.fixture
def admin_openapi(base_url: str, admin: httpx.Client) -> Any:
    session = admin.cookies[SESSION_COOKIE]
    return load(base_url, {"Cookie": f"{SESSION_COOKIE}={session}", "Origin": base_url})


@pytest.fixture
def anonymous_openapi(base_url: str) -> Any:
    return load(base_url, {})


def admin_only(ctx: Any) -> bool:
    path, method = str(ctx.operation.path), str(ctx.operation.method).upper()
    return path.startswith("/api/v1/tokens") or (
        path.startswith("/api/webhook") and method == "GET"
    )


@schemathesis.pytest.from_fixture("openapi").parametrize()
@FUZZ
def test_with_a_token_no_server_error_and_every_response_matches_its_schema(case: Any) -> None:
    case.call_and_validate(checks=CHECKS)


@schemathesis.pytest.from_fixture("admin_openapi").include(admin_only).parametrize()
@FUZZ
def test_as_admin_no_server_error_and_every_response_matches_its_schema(case: Any) -> None:
    case.call_and_validate(checks=CHECKS)


@schemathesis.pytest.from_fixture("anonymous_openapi").parametrize()
@FUZZ
def test_without_credentials_every_refusal_is_documented(case: Any) -> None:
    case.call_and_validate(checks=CHECKS)
