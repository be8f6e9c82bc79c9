"""List index keys compare like the values they encode (content/lists/list_keys.py), as DynamoDB
compares sort keys: by their UTF-8 bytes. Properties over generated values of every kind."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from content_service.content.lists import (
    AFTER_IDS,
    TERM,
    bucket,
    count_shard_of,
    index_sk,
    shard_of,
    split_sk,
    token,
)
from tests.support.fuzzing import FUZZ

IDS = st.uuids(version=4).map(str)
TEXT = st.text(max_size=40)
FLOATS = st.floats(allow_nan=False, allow_infinity=False).filter(
    lambda f: f == 0 or 1e-130 <= abs(f) < 9.9e125
)
INTEGERS = st.integers(min_value=-(2**63), max_value=2**63 - 1)
DATES = st.dates().map(lambda d: d.isoformat())
VALUES: dict[str, Any] = {
    "string": TEXT,
    "integer": INTEGERS,
    "float": FLOATS,
    "boolean": st.booleans(),
    "date": DATES,
}


def utf8(text: str) -> bytes:
    return text.encode("utf-8")


def _compare(a: Any, b: Any) -> int:
    return int(a > b) - int(a < b)


@FUZZ
@given(kind=st.sampled_from(sorted(VALUES)), data=st.data())
def test_tokens_order_like_their_values(kind: str, data: st.DataObject) -> None:
    a, b = data.draw(VALUES[kind]), data.draw(VALUES[kind])
    ta, tb = token(kind, a)[0], token(kind, b)[0]
    assert _compare(utf8(ta), utf8(tb)) == _compare(a, b)
    assert (ta == tb) == (a == b)


@FUZZ
@given(a=TEXT, b=TEXT, id_a=IDS, id_b=IDS)
def test_sort_keys_order_by_value_then_id(a: str, b: str, id_a: str, id_b: str) -> None:
    ka, kb = index_sk(token("string", a)[0], id_a), index_sk(token("string", b)[0], id_b)
    assert _compare(utf8(ka), utf8(kb)) == _compare((a, id_a), (b, id_b))
    assert split_sk(ka, null=False) == (token("string", a)[0], id_a)


@FUZZ
@given(value=TEXT, other=TEXT, entry_id=IDS)
def test_range_bounds_split_keys_where_the_list_index_says(
    value: str, other: str, entry_id: str
) -> None:
    """`token` < every key of that value < `token\\x01~` < every key of a greater value."""
    t, key = token("string", value)[0], utf8(index_sk(token("string", other)[0], entry_id))
    if other == value:
        assert utf8(t) < key < utf8(t + TERM + AFTER_IDS)
    elif other < value:
        assert key < utf8(t)
    else:
        assert key > utf8(t + TERM + AFTER_IDS)


def test_control_characters_sort_before_text_and_strings_before_their_extensions() -> None:
    values = ["", "\x00", "\x01", "\x02", "\x03", "a", "a\x00", "a\x01b", "ab", "b"]
    tokens = [token("string", v)[0] for v in values]
    assert [utf8(t) for t in tokens] == sorted(utf8(t) for t in tokens)
    assert all("\x00" not in t and TERM not in t for t in tokens)


def test_long_strings_are_cut_and_say_so() -> None:
    cut, exact = token("string", "é" * 600)
    assert not exact
    assert len(utf8(cut)) <= 900
    assert token("string", "x" * 256) == ("x" * 256, True)


def test_negative_zero_is_zero_and_floats_order_across_signs() -> None:
    assert token("float", -0.0) == token("float", 0.0)
    ordered = [-1e125, -2.5, -1e-130, 0.0, 1e-130, 2.5, 1e125]
    assert [token("float", v)[0] for v in ordered] == sorted(token("float", v)[0] for v in ordered)


def test_buckets_name_a_value_the_same_whatever_its_number_type() -> None:
    assert bucket(3) == bucket(3.0) == bucket(Decimal("3")) == bucket(Decimal("3.0")) == "n3"
    assert bucket(2.5) == bucket(Decimal("2.5"))
    assert bucket(True) == "b1"
    assert bucket(1) != bucket(True)
    assert bucket("3") != bucket(3)


def test_shards_are_fixed_per_entry_and_in_range() -> None:
    ids = [str(uuid.uuid4()) for _ in range(200)]
    for entry_id in ids:
        assert shard_of(entry_id, 1) == 0
        assert 0 <= shard_of(entry_id, 8) < 8
        assert shard_of(entry_id, 8) == shard_of(entry_id, 8)
        assert 0 <= count_shard_of(entry_id) < 4
    assert len({shard_of(i, 8) for i in ids}) == 8
    assert len({count_shard_of(i) for i in ids}) == 4
