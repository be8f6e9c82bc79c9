"""Pure content rules: derived names, value normalisation, the filter grammar, sorting."""

from __future__ import annotations

import contextlib
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from content_service.content import values
from content_service.content.entries import Summary
from content_service.content.lists import (
    FilterGroup,
    FilterLeaf,
    compile_filter,
    direct_address,
    parse_filter,
    sort_summaries,
)
from content_service.content.requests import parse_sort
from content_service.content.schema import (
    ContentType,
    FieldDef,
    graphql_collision,
    graphql_names,
    plural,
)
from content_service.errors import BadRequest


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("blog_post", ("BlogPost", "blogPost", "blogPosts")),
        ("author", ("Author", "author", "authors")),
        ("category", ("Category", "category", "categories")),
        ("day", ("Day", "day", "days")),
        ("box", ("Box", "box", "boxes")),
        ("bus", ("Bus", "bus", "buses")),
        ("quiz", ("Quiz", "quiz", "quizes")),
        ("church", ("Church", "church", "churches")),
        ("dish", ("Dish", "dish", "dishes")),
        ("site_settings", ("SiteSettings", "siteSettings", "siteSettingses")),
        ("a1_b2", ("A1B2", "a1B2", "a1B2s")),
    ],
)
def test_graphql_names(name: str, expected: tuple[str, str, str]) -> None:
    names = graphql_names(name)
    assert (names.type_name, names.single_field, names.list_field) == expected


def test_plural_keeps_vowel_y() -> None:
    assert plural("key") == "keys"
    assert plural("y") == "ys"


@pytest.mark.parametrize(
    ("name", "others", "collides"),
    [
        ("posts", ["post"], "post"),
        ("post", ["posts"], "posts"),
        ("categories", ["category"], "category"),
        ("blog_post", ["blogpost"], None),
        ("post", ["post"], None),
        ("a_b", ["ab"], None),
    ],
)
def test_graphql_collisions(name: str, others: list[str], collides: str | None) -> None:
    assert graphql_collision(name, others) == collides


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-01-01T00:00:00Z", "2024-01-01T00:00:00.000Z"),
        ("2024-01-01T00:00:00z", "2024-01-01T00:00:00.000Z"),
        ("2024-01-01T02:00:00+02:00", "2024-01-01T00:00:00.000Z"),
        ("2024-01-01T00:00:00.999999-00:30", "2024-01-01T00:30:00.999Z"),
        ("2024-01-01 00:00:00+00:00", "2024-01-01T00:00:00.000Z"),
    ],
)
def test_datetimes_normalise_to_utc_milliseconds(raw: str, expected: str) -> None:
    assert values.normalise_datetime(raw) == expected


@pytest.mark.parametrize(
    "raw", ["2024-01-01", "2024-01-01T00:00:00", "0001-01-01T00:00:00+01:00", 5, "x" * 65, ""]
)
def test_invalid_datetimes(raw: Any) -> None:
    with pytest.raises(values.InvalidValue):
        values.normalise_datetime(raw)


@given(st.datetimes(timezones=st.timezones()))
def test_normalised_datetimes_sort_like_the_instants(moment: Any) -> None:
    try:
        text = values.normalise_datetime(moment.isoformat())
    except values.InvalidValue:
        return  # out of range once converted to UTC
    assert len(text) == 24
    assert values.normalise_datetime(text) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_storable_floats_round_trip_through_decimal(number: float) -> None:
    field = FieldDef(name="f", type="float", key="f1")
    try:
        stored = values.to_storage(field, number)
    except values.InvalidValue:
        assert number != 0
        assert not 1e-130 <= abs(number) < 9.9999999999999999e125
        return
    assert values.from_storage(field, Decimal(repr(stored))) == number


def _type() -> ContentType:
    fields = (
        FieldDef(name="title", type="string", key="f1"),
        FieldDef(name="rank", type="integer", key="f2"),
        FieldDef(name="score", type="float", key="f3"),
        FieldDef(name="body", type="richtext", key="f4"),
    )
    return ContentType.defined("w", "item", fields, "title")


def _summary(entry_id: str, **stored: Any) -> Summary:
    return Summary(
        id=entry_id,
        status="published",
        deleted=False,
        locale="en",
        locale_group_id=entry_id,
        created_at="2024-01-01T00:00:00.000Z",
        updated_at="2024-01-01T00:00:00.000Z",
        published_at=None,
        audiences=frozenset(),
        values=stored,
    )


def test_sort_puts_nulls_last_both_ways_and_breaks_ties_by_id() -> None:
    rows = [
        _summary("c", f2=Decimal(1)),
        _summary("a"),
        _summary("b", f2=Decimal(1)),
        _summary("d", f2=Decimal(2)),
    ]
    ascending = sort_summaries(_type(), rows, parse_sort("rank"))
    assert [r.id for r in ascending] == ["b", "c", "d", "a"]
    descending = sort_summaries(_type(), rows, parse_sort("-rank"))
    assert [r.id for r in descending] == ["d", "b", "c", "a"]


def test_float_filters_compare_decimal_storage_exactly() -> None:
    predicate = compile_filter(
        _type(), parse_filter('{"field": "score", "op": "eq", "value": 1.1}')
    )
    assert predicate(_summary("a", f3=Decimal("1.1")))
    assert not predicate(_summary("a", f3=Decimal("1.2")))


def test_parse_filter_builds_the_tree() -> None:
    parsed = parse_filter(
        {
            "or": [
                {"field": "title", "op": "eq", "value": "x"},
                {"and": [{"field": "rank", "op": "isNull"}]},
            ]
        }
    )
    assert parsed == FilterGroup(
        op="or",
        children=(
            FilterLeaf("title", "eq", "x"),
            FilterGroup(op="and", children=(FilterLeaf("rank", "isNull", True),)),
        ),
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"field": "id", "op": "eq", "value": "x"}', ("id", "x")),
        (
            '{"and": [{"field": "rank", "op": "gt", "value": 1}, '
            '{"field": "localeGroupId", "op": "eq", "value": "g"}]}',
            ("localeGroupId", "g"),
        ),
        ('{"or": [{"field": "id", "op": "eq", "value": "x"}]}', None),
        ('{"field": "id", "op": "ne", "value": "x"}', None),
        ('{"and": [{"and": [{"field": "id", "op": "eq", "value": "x"}]}]}', None),
    ],
)
def test_direct_address_only_for_a_root_eq_on_a_key(raw: str, expected: Any) -> None:
    assert direct_address(parse_filter(raw)) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "{",
        "5",
        '{"field": "t"}',
        '{"field": "t", "op": "regex", "value": "."}',
        '{"and": [{"field": "t", "op": "eq", "value": 1}], "extra": 1}',
        '{"field": "t", "op": "eq", "value": 1, "x": 2}',
        '{"field": "t t", "op": "eq", "value": 1}',
    ],
)
def test_malformed_filters_are_bad_requests(raw: str) -> None:
    with pytest.raises(BadRequest):
        parse_filter(raw)


@pytest.mark.parametrize(
    "raw",
    [
        '{"field": "body", "op": "eq", "value": "x"}',
        '{"field": "rank", "op": "contains", "value": "1"}',
        '{"field": "rank", "op": "in", "value": [1, "2"]}',
        '{"field": "title", "op": "eq", "value": {"a": 1}}',
        '{"field": "title", "op": "in", "value": []}',
    ],
)
def test_type_checked_filters_are_bad_requests(raw: str) -> None:
    with pytest.raises(BadRequest):
        compile_filter(_type(), parse_filter(raw))


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
        max_leaves=10,
    )
)
def test_any_json_filter_is_accepted_or_a_bad_request(raw: Any) -> None:
    with contextlib.suppress(BadRequest):
        compile_filter(_type(), parse_filter(raw if isinstance(raw, dict) else {"and": [raw]}))
