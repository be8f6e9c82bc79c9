"""The filter grammar through the REST list route, over real HTTP to the local stack.

Valid generated filters answer 200 with exactly the entries the reference evaluation
(`tests/support/filter_grammar.py`) picks from the seeded ones, read back through the index
summaries; anything else answers 400 in the error shape with a readable message, never a 5xx:
among it, hostile JSON (`tests/support/hostile_json.py`: keys named twice, lone surrogates,
deep nesting).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.content import create, define, publish, shared_workspace
from tests.support.filter_grammar import Operand, filters, reference, row_of
from tests.support.fuzzing import FUZZ, filter_operands
from tests.support.hostile_json import documents as hostile_documents

FIELDS: list[dict[str, Any]] = [
    {"name": "title", "type": "string"},
    {"name": "rank", "type": "integer"},
    {"name": "score", "type": "float"},
    {"name": "hot", "type": "boolean"},
    {"name": "at", "type": "datetime"},
    {"name": "day", "type": "date"},
    {"name": "color", "type": "enum", "values": ["red", "green", "blue"]},
    {"name": "body", "type": "richtext"},
]
OPERANDS = filter_operands(FIELDS)
KINDS = {o.name: o.kind for o in OPERANDS}
# Values from the generators' small domains, unset ones included, so filters meet them.
ROWS: list[dict[str, Any]] = [
    {"title": "a", "rank": 0, "score": 0.5, "hot": True, "at": "2024-01-01T00:00:00Z"},
    {"title": "ab", "rank": -1, "score": -1.0, "hot": False, "day": "2024-01-02"},
    {"title": "B\u00e9", "rank": 3, "color": "red", "at": "2024-01-02T12:00:00+02:00"},
    {"title": "", "score": 2.5, "day": "2024-01-01", "color": "blue"},
    {"rank": 1, "hot": True, "at": "2024-01-03T23:59:59.999Z", "color": "green"},
    {"title": "ba", "rank": 2, "score": 0, "day": "2024-01-07", "body": "<p>x</p>"},
]


@dataclass(frozen=True)
class World:
    client: httpx.Client
    rows: dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def world(base_url: str) -> Iterator[World]:
    with shared_workspace(base_url) as access:
        define(access.full, "item", FIELDS)
        entries = [create(access.full, "item", values) for values in ROWS]
        entries[0] = publish(access.full, "item", entries[0]["id"])
        entries[2] = publish(access.full, "item", entries[2]["id"])
        yield World(access.full, {e["id"]: row_of(e, OPERANDS) for e in entries})


def listed(world: World, raw_filter: str) -> httpx.Response:
    return world.client.get("/api/v1/content/item", params={"filter": raw_filter, "pageSize": 100})


@FUZZ
@given(raw=filters(OPERANDS))
def test_a_valid_filter_lists_what_the_reference_picks(world: World, raw: dict[str, Any]) -> None:
    response = listed(world, json.dumps(raw))
    assert response.status_code == 200, response.text
    body = response.json()
    expected = {i for i, row in world.rows.items() if reference(raw, row, KINDS)}
    assert {e["id"] for e in body["items"]} == expected
    assert body["total"] == len(expected)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["and", "or", "field", "op", "value"]) | st.text(max_size=8),
            inner,
            max_size=3,
        )
    ),
    max_leaves=10,
)


@st.composite
def wrong_leaves(draw: st.DrawFn, choices: tuple[Operand, ...]) -> dict[str, Any]:
    """A condition on a real field with an operator or a value it does not take."""
    operand = draw(st.sampled_from(choices))
    return {
        "field": operand.name,
        "op": draw(st.sampled_from(["eq", "lt", "in", "contains", "isNull", "like"])),
        "value": draw(json_values),
    }


@FUZZ
@given(
    text=st.text(max_size=100)
    | json_values.map(json.dumps)
    | wrong_leaves(OPERANDS).map(json.dumps)
    | st.builds(lambda leaf: json.dumps({"and": [leaf]}), wrong_leaves(OPERANDS))
    | hostile_documents.map(lambda doc: doc.text).filter(lambda text: len(text) <= 8192)
)
def test_any_other_filter_is_a_readable_400(world: World, text: str) -> None:
    response = listed(world, text)
    if response.status_code == 200:
        return  # it happened to be a valid filter
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["status"] == 400
    assert error["code"] == "bad_request"
    assert error["message"].startswith("filter"), error
    assert len(error["message"]) <= 300, error
