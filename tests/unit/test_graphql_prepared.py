"""`graphql.prepared`: a document that passed is not parsed, measured or validated again on the
same schema, and nothing that could change the answer is taken from the cache: other values of
the variables the cost reads, other limits, another schema, another operation name."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import graphql
import pytest

from content_service.content.schema import ContentType, FieldDef
from content_service.graphql import cost_limits, execution
from content_service.graphql.build import build_schema
from content_service.graphql.errors import RequestError
from content_service.graphql.execution import _ValidationFailed, prepare
from content_service.graphql.prepared import prepared
from content_service.graphql.transport import GraphQLRequest
from content_service.settings import GraphQLLimits

POST = ContentType(
    workspace_id="ws",
    name="post",
    kind="collection",
    localized=True,
    audience_gated=False,
    title_field=None,
    fields=(
        FieldDef("title", "string", key="k_title"),
        FieldDef("tags", "relation", key="k_tags", target="post", cardinality="many-to-many"),
    ),
    revision=1,
    field_seq=2,
    created_at="",
    updated_at="",
)
LIST = (
    "query Q($n: Int, $m: Int) "
    "{ posts(pageSize: $n) { items { title tags(pageSize: $m) { title } } } }"
)


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Counts the pipeline's costly steps."""
    prepared.clear()
    counted = {"measure": 0, "validate": 0}

    def counting(name: str, original: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            counted[name] += 1
            return original(*args, **kwargs)

        return call

    monkeypatch.setattr(execution, "measure", counting("measure", cost_limits.measure))
    monkeypatch.setattr(execution, "validate", counting("validate", graphql.validate))
    yield counted
    prepared.clear()


def _request(n: int, m: int | None = 3, name: str | None = None) -> GraphQLRequest:
    variables: dict[str, Any] = {"n": n}
    if m is not None:
        variables["m"] = m
    return GraphQLRequest(LIST, variables, name)


def test_a_repeated_document_is_measured_and_validated_once(steps: dict[str, int]) -> None:
    built = build_schema("ws", 1, {"post": POST})
    for _ in range(3):
        prepare(built, _request(10), GraphQLLimits())
    assert steps == {"measure": 1, "validate": 1}


def test_other_values_of_the_costed_variables_are_measured_again(steps: dict[str, int]) -> None:
    built = build_schema("ws", 1, {"post": POST})
    prepare(built, _request(10), GraphQLLimits())
    with pytest.raises(RequestError) as refused:
        prepare(built, _request(101), GraphQLLimits())  # pageSize out of REST's bounds
    assert refused.value.code == "BAD_USER_INPUT"
    with pytest.raises(RequestError) as too_complex:
        prepare(built, _request(100, 100), GraphQLLimits())  # 100 + 100 x 100 records
    assert too_complex.value.code == "TOO_COMPLEX"
    prepare(built, _request(10, None), GraphQLLimits())  # an absent variable is another value
    assert steps == {"measure": 4, "validate": 1}
    prepare(built, _request(10), GraphQLLimits())
    assert steps["measure"] == 4


def test_other_limits_another_schema_or_operation_name_are_not_taken_from_the_cache(
    steps: dict[str, int],
) -> None:
    built = build_schema("ws", 1, {"post": POST})
    prepare(built, _request(10), GraphQLLimits())
    with pytest.raises(RequestError) as limited:
        prepare(built, _request(10), GraphQLLimits(max_complexity=20))
    assert limited.value.code == "TOO_COMPLEX"
    with pytest.raises(RequestError) as named:
        prepare(built, _request(10, name="Other"), GraphQLLimits())
    assert named.value.code == "OPERATION_RESOLUTION_FAILURE"
    without_posts = build_schema("ws", 2, {})
    with pytest.raises(_ValidationFailed):
        prepare(without_posts, _request(10), GraphQLLimits())
    with pytest.raises(_ValidationFailed):  # a refusal is not remembered
        prepare(without_posts, _request(10), GraphQLLimits())
    assert steps["validate"] == 3


def test_the_cache_is_bounded() -> None:
    prepared.clear()
    built = build_schema("ws", 1, {"post": POST})
    try:
        for size in range(1, 600):
            query = f"{{ posts(pageSize: {size % 100 + 1}) {{ items {{ title }} }} }}"
            query += " " * (size // 100)  # a different text
            prepare(built, GraphQLRequest(query, None, None), GraphQLLimits())
        assert len(prepared) == 512
    finally:
        prepared.clear()
