"""`content_service.strict_json` against generated hostile JSON (`tests/support/hostile_json.py`):
it refuses exactly the documents with a key named twice or a lone surrogate, names where, and
otherwise reads what `json` reads."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from content_service.strict_json import JsonRefused, loads
from tests.support.hostile_json import Doc, documents

PARSER_DEPTH = 900


@settings(max_examples=300, derandomize=True, database=None)
@given(doc=documents)
def test_refuses_exactly_what_the_oracle_refuses(doc: Doc) -> None:
    refused: JsonRefused | None = None
    try:
        value = loads(doc.text.encode())
    except JsonRefused as caught:
        refused = caught
    if refused is None:
        assert not doc.refused
        assert value == json.loads(doc.text)
    elif refused.problem == "nested too deeply":
        assert doc.depth >= PARSER_DEPTH
    else:
        assert doc.refused, refused
        assert refused.location is not None
        assert refused.location.startswith("body")
        assert len(str(refused)) < 400
        assert ("twice" in refused.problem) or ("Unicode" in refused.problem)


@pytest.mark.parametrize(
    ("text", "problem", "location"),
    [
        ('{"a": 1, "a": 2}', "the key 'a' appears twice", "body"),
        ('{"x": [{"b": 1}, {"b": 1, "b": 2}]}', "the key 'b' appears twice", "body.x[1]"),
        ('{"\\ud800": 1}', "a key that is not valid Unicode (a lone surrogate)", "body.\\ud800"),
        ('{"a": {"b": "x\\udfffy"}}', "not valid Unicode (a lone surrogate)", "body.a.b"),
        ('["ok", "\\udc00"]', "not valid Unicode (a lone surrogate)", "body[1]"),
        ('"\\ud83d"', "not valid Unicode (a lone surrogate)", "body"),
    ],
)
def test_names_the_problem_and_where(text: str, problem: str, location: str) -> None:
    with pytest.raises(JsonRefused) as refused:
        loads(text)
    assert (refused.value.problem, refused.value.location) == (problem, location)
    assert refused.value.details() == [{"location": location, "problem": problem}]


def test_what_json_allows_and_this_keeps() -> None:
    assert loads('{"pair": "\\ud83d\\ude00", "escaped": "\\\\ud800"}') == {
        "pair": "\U0001f600",
        "escaped": "\\ud800",
    }
    assert loads(b'\xef\xbb\xbf{"bom": 1}') == {"bom": 1}
    assert loads('{"a": {"b": 1}, "c": {"b": 2}}') == {"a": {"b": 1}, "c": {"b": 2}}


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b"{", "not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_malformed_text_has_no_location(raw: bytes, problem: str) -> None:
    with pytest.raises(JsonRefused) as refused:
        loads(raw)
    assert (refused.value.problem, refused.value.location) == (problem, None)


def test_a_location_deep_down_is_cut_for_the_message() -> None:
    text = '{"k": ' * 500 + '"\\ud800"' + "}" * 500
    with pytest.raises(JsonRefused) as refused:
        loads(text)
    location = refused.value.location
    assert location is not None
    assert len(location) <= 120
    assert location.startswith("body.k.k")
    assert location.endswith("k.k")
