"""Properties of the list filter grammar (docs/content.md, "Filter, sort, fields").

A valid filter, generated from the documented rules, parses to a tree that renders back to the
same filter, and the compiled predicate agrees with a reference evaluation written here from the
documentation over generated entries. Any other input, text or JSON, is a `BadRequest` with a
short message naming the filter, never another exception.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from content_service.content.entries import Summary, summary_from
from content_service.content.lists import (
    FilterLeaf,
    FilterNode,
    compile_filter,
    direct_address,
    parse_filter,
)
from content_service.content.schema import ContentType, FieldDef
from content_service.errors import BadRequest
from tests.support.filter_grammar import (
    MAX_DEPTH,
    MAX_LEAVES,
    days,
    filters,
    instants,
    leaves,
    operands,
    reference,
    short_text,
    stored_instant,
)

FIELDS = (
    FieldDef(name="title", type="string", key="f1"),
    FieldDef(name="rank", type="integer", key="f2"),
    FieldDef(name="score", type="float", key="f3"),
    FieldDef(name="hot", type="boolean", key="f4"),
    FieldDef(name="at", type="datetime", key="f5"),
    FieldDef(name="day", type="date", key="f6"),
    FieldDef(name="color", type="enum", key="f7", values=("red", "green", "blue")),
    FieldDef(name="body", type="richtext", key="f8"),
    FieldDef(name="meta", type="json", key="f9"),
)
TYPE = ContentType.defined("w", "item", FIELDS, "title")
OPERANDS = operands(FIELDS)
KINDS = {o.name: o.kind for o in OPERANDS}
MAX_MESSAGE = 300


# --- entries -------------------------------------------------------------------------------


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


@st.composite
def rows(draw: st.DrawFn) -> dict[str, Any]:
    """One entry as the reference sees it: operand name -> Python value (None when unset);
    instants as aware datetimes."""
    entry_id = draw(short_text())
    return {
        "id": entry_id,
        "localeGroupId": draw(_maybe(short_text().filter(bool))) or entry_id,
        "status": draw(st.sampled_from(["draft", "published", "changed"])),
        "createdAt": draw(instants()),
        "updatedAt": draw(instants()),
        "publishedAt": draw(_maybe(instants())),
        "title": draw(_maybe(short_text())),
        "rank": draw(_maybe(st.integers(min_value=-3, max_value=3))),
        "score": draw(_maybe(st.integers(min_value=-6, max_value=6).map(lambda n: n / 2))),
        "hot": draw(_maybe(st.booleans())),
        "at": draw(_maybe(instants())),
        "day": draw(_maybe(days())),
        "color": draw(_maybe(st.sampled_from(["red", "green", "blue"]))),
    }


def _stored(value: Any) -> Any:
    return stored_instant(value) if isinstance(value, datetime) else value


def summary(row: dict[str, Any]) -> Summary:
    """The row as the byType index holds it (compact JSON, read back with `summary_from`)."""
    stored: dict[str, Any] = {
        "i": row["id"],
        "s": row["status"],
        "l": "en",
        "c": _stored(row["createdAt"]),
        "u": _stored(row["updatedAt"]),
        "v": {
            f.key: _stored(row[f.name]) for f in FIELDS if f.name in row and row[f.name] is not None
        },
    }
    if row["localeGroupId"] != row["id"]:
        stored["g"] = row["localeGroupId"]
    if row["publishedAt"] is not None:
        stored["p"] = _stored(row["publishedAt"])
    return summary_from(json.dumps(stored))


# --- the reference ---------------------------------------------------------------------------


def render(node: FilterNode) -> dict[str, Any]:
    if isinstance(node, FilterLeaf):
        return {"field": node.field, "op": node.op, "value": node.value}
    return {node.op: [render(child) for child in node.children]}


def with_defaults(raw: dict[str, Any]) -> dict[str, Any]:
    """The filter with the documented default spelled out (`isNull` means `isNull: true`)."""
    for op in ("and", "or"):
        if op in raw:
            return {op: [with_defaults(child) for child in raw[op]]}
    return {"value": True, **raw}


def check_refusal(error: BadRequest) -> None:
    """A refusal a person can read: 400, names the filter, short whatever the input."""
    assert error.status == 400
    assert error.message.startswith("filter")
    assert len(error.message) <= MAX_MESSAGE, error.message


def parse_and_compile(raw: Any) -> None:
    """Accepts or refuses with a readable BadRequest; any other exception fails the test."""
    try:
        compile_filter(TYPE, parse_filter(raw))
    except BadRequest as error:
        check_refusal(error)


# --- valid filters -------------------------------------------------------------------------


@given(raw=filters(OPERANDS))
def test_a_valid_filter_parses_the_same_as_text_and_object_and_renders_back(
    raw: dict[str, Any],
) -> None:
    node = parse_filter(json.dumps(raw))
    assert node is not None
    assert node == parse_filter(raw)
    assert render(node) == with_defaults(raw)
    assert parse_filter(json.dumps(render(node))) == node


@given(raw=filters(OPERANDS), entries=st.lists(rows(), max_size=8))
def test_a_valid_filter_matches_exactly_what_the_reference_matches(
    raw: dict[str, Any], entries: list[dict[str, Any]]
) -> None:
    predicate = compile_filter(TYPE, parse_filter(json.dumps(raw)))
    for row in entries:
        assert predicate(summary(row)) == reference(raw, row, KINDS), (raw, row)


@given(
    pin=st.sampled_from(["id", "localeGroupId"]),
    value=short_text(),
    others=st.lists(leaves(OPERANDS), max_size=3),
    entries=st.lists(rows(), max_size=8),
)
def test_a_filter_that_pins_a_key_matches_only_entries_with_that_key(
    pin: str, value: str, others: list[dict[str, Any]], entries: list[dict[str, Any]]
) -> None:
    raw = {"and": [*others, {"field": pin, "op": "eq", "value": value}]}
    node = parse_filter(raw)
    field, pinned = direct_address(node) or ("", "")
    assert field in ("id", "localeGroupId")
    predicate = compile_filter(TYPE, node)
    for row in entries:
        if predicate(summary(row)):
            assert row[field] == pinned


@given(size=st.integers(min_value=1, max_value=2 * MAX_LEAVES), leaf=leaves(OPERANDS))
def test_at_most_twenty_conditions(size: int, leaf: dict[str, Any]) -> None:
    raw = json.dumps({"and": [leaf] * size})
    if size <= MAX_LEAVES:
        assert parse_filter(raw) is not None
        return
    try:
        parse_filter(raw)
    except BadRequest as error:
        check_refusal(error)
        return
    raise AssertionError(f"{size} conditions accepted")


@given(depth=st.integers(min_value=1, max_value=2 * MAX_DEPTH), leaf=leaves(OPERANDS))
def test_at_most_four_nested_groups(depth: int, leaf: dict[str, Any]) -> None:
    raw: dict[str, Any] = leaf
    for level in range(depth):
        raw = {("and", "or")[level % 2]: [raw]}
    if depth <= MAX_DEPTH:
        assert parse_filter(json.dumps(raw)) is not None
        return
    try:
        parse_filter(json.dumps(raw))
    except BadRequest as error:
        check_refusal(error)
        return
    raise AssertionError(f"{depth} nested groups accepted")


# --- anything else ---------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
grammar_keys = st.sampled_from(["and", "or", "field", "op", "value"]) | st.text(max_size=12)
# A REST filter may be 8 KB long; a refusal must not echo it all back.
unknown_keys = st.text(max_size=12) | st.text(min_size=MAX_MESSAGE, max_size=4000)
names = st.sampled_from([o.name for o in OPERANDS] + ["body", "meta", "nope", "a b", ""])
ops = st.sampled_from(["eq", "in", "isNull", "lt", "contains", "regex", "EQ", ""]) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(grammar_keys, inner, max_size=4),
    max_leaves=12,
)


@st.composite
def near_misses(draw: st.DrawFn) -> Any:
    """Leaves and groups that look like the grammar, with any part wrong."""
    leaf: dict[str, Any] = {}
    if draw(st.booleans()):
        leaf["field"] = draw(names | json_scalars)
    if draw(st.booleans()):
        leaf["op"] = draw(ops | json_scalars)
    if draw(st.booleans()):
        leaf["value"] = draw(json_values)
    leaf.update(draw(st.dictionaries(grammar_keys, json_values, max_size=2)))
    nodes = st.just(leaf) | filters(OPERANDS)
    return draw(
        st.recursive(
            nodes,
            lambda inner: st.builds(
                lambda op, children: {op: children},
                st.sampled_from(["and", "or"]),
                st.lists(inner, max_size=3),
            ),
            max_leaves=6,
        )
    )


@given(text=st.text(max_size=200) | st.from_regex(r"\A[\[\]{}\":,0-9a-z ]{0,60}\Z"))
def test_any_text_is_a_filter_or_a_readable_bad_request(text: str) -> None:
    parse_and_compile(text)


@given(raw=json_values | near_misses())
def test_any_json_is_a_filter_or_a_readable_bad_request_as_text_and_as_object(raw: Any) -> None:
    parse_and_compile(json.dumps(raw))
    if isinstance(raw, dict):
        parse_and_compile(raw)


@given(
    leaf=leaves(OPERANDS),
    extra=st.dictionaries(unknown_keys, json_scalars, min_size=1, max_size=40),
)
def test_unknown_keys_are_refused_readably_however_many_or_long(
    leaf: dict[str, Any], extra: dict[str, Any]
) -> None:
    raw = {**extra, **leaf}
    assume(set(raw) != set(leaf))
    for form in (raw, json.dumps(raw)):
        try:
            parse_filter(form)
        except BadRequest as error:
            check_refusal(error)
            continue
        raise AssertionError(f"unknown keys accepted: {sorted(extra)}")


@given(
    raw=filters(OPERANDS),
    stored=st.lists(st.dictionaries(st.sampled_from([f.key for f in FIELDS]), json_values)),
)
def test_a_compiled_filter_never_fails_on_stored_values_of_another_type(
    raw: dict[str, Any], stored: list[dict[str, Any]]
) -> None:
    # Values written before a field changed meaning, or by hand: the predicate still answers.
    predicate = compile_filter(TYPE, parse_filter(raw))
    for values in stored:
        matched = predicate(summary_from(json.dumps({"i": "x", "c": "", "u": "", "v": values})))
        assert isinstance(matched, bool)
