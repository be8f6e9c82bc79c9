"""The list filter grammar (docs/content.md, "Filter, sort, fields") for property tests:
strategies for valid filters, and a reference evaluation of a filter over one entry.

Both are written here from the documentation, independently of `content.lists.filters`, so the tests
compare the service against them: which operators apply to which field kinds, which values each
kind takes, what each operator means (`ne` and `nin` match null, the others do not). Value
domains are deliberately small (a few letters, small numbers, a few days) so generated filters
and generated entries actually meet.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from content_service.content.schema import FieldDef

MAX_DEPTH = 4
MAX_LEAVES = 20
SCALAR_TYPES = ("string", "integer", "float", "boolean", "datetime", "date", "enum")
SYSTEM_KINDS = {
    "id": "id",
    "localeGroupId": "id",
    "status": "status",
    "createdAt": "timestamp",
    "updatedAt": "timestamp",
    "publishedAt": "timestamp",
}
ORDERED = frozenset({"string", "integer", "float", "datetime", "date", "id", "timestamp"})
TEXTUAL = frozenset({"string", "id"})
ANY_KIND_OPS = ("eq", "ne", "in", "nin", "isNull")
ALPHABET = "abAB\u00e9"
BASE = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Operand:
    """A filterable name: a scalar field (kind = its type) or a system field."""

    name: str
    kind: str
    enum_values: tuple[str, ...] = ()


def operands(fields: Iterable[FieldDef]) -> tuple[Operand, ...]:
    scalar = [Operand(f.name, f.type, f.values) for f in fields if f.type in SCALAR_TYPES]
    return (*scalar, *(Operand(name, kind) for name, kind in SYSTEM_KINDS.items()))


def ops_for(kind: str) -> tuple[str, ...]:
    ops = list(ANY_KIND_OPS)
    if kind in ORDERED:
        ops += ["lt", "lte", "gt", "gte"]
    if kind in TEXTUAL:
        ops += ["contains", "startsWith"]
    return tuple(ops)


def short_text() -> st.SearchStrategy[str]:
    return st.text(alphabet=ALPHABET, max_size=4)


def instants() -> st.SearchStrategy[datetime]:
    """UTC instants over a few days, in whole milliseconds (what storage keeps)."""
    return st.integers(min_value=0, max_value=3 * 86_400_000).map(
        lambda ms: BASE + timedelta(milliseconds=ms)
    ) | st.sampled_from([BASE, BASE + timedelta(days=1), BASE + timedelta(hours=36)])


def stored_instant(moment: datetime) -> str:
    """The storage form: UTC, milliseconds, `Z` (docs/content.md, Values)."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def offsets() -> st.SearchStrategy[timezone]:
    return st.integers(min_value=-14 * 4, max_value=14 * 4).map(
        lambda quarters: timezone(timedelta(minutes=15 * quarters))
    )


def days() -> st.SearchStrategy[str]:
    return st.integers(min_value=0, max_value=6).map(
        lambda n: (BASE + timedelta(days=n)).date().isoformat()
    )


def filter_values(operand: Operand) -> st.SearchStrategy[Any]:
    """Values the filter accepts for this operand (any spelling the grammar allows)."""
    kind = operand.kind
    if kind in ("string", "id"):
        return short_text()
    if kind == "status":
        return st.sampled_from(["draft", "published", "changed"])
    if kind == "integer":
        return st.integers(min_value=-3, max_value=3) | st.integers(
            min_value=-(2**63), max_value=2**63 - 1
        )
    if kind == "float":
        return st.integers(min_value=-6, max_value=6).map(lambda n: n / 2) | st.integers(
            min_value=-3, max_value=3
        )
    if kind == "boolean":
        return st.booleans()
    if kind in ("datetime", "timestamp"):
        # Any timezone spelling of the instant, sometimes with sub-millisecond digits.
        return st.builds(
            lambda moment, zone, micros: (
                (moment + timedelta(microseconds=micros)).astimezone(zone).isoformat()
            ),
            instants(),
            offsets(),
            st.sampled_from([0, 0, 1, 999]),
        )
    if kind == "date":
        return days()
    if kind == "enum":
        return st.sampled_from(operand.enum_values)
    raise AssertionError(f"no values for {kind}")


@st.composite
def leaves(draw: st.DrawFn, choices: Sequence[Operand]) -> dict[str, Any]:
    operand = draw(st.sampled_from(choices))
    op = draw(st.sampled_from(ops_for(operand.kind)))
    leaf: dict[str, Any] = {"field": operand.name, "op": op}
    if op == "isNull":
        if draw(st.booleans()):
            leaf["value"] = draw(st.booleans())
    elif op in ("in", "nin"):
        leaf["value"] = draw(st.lists(filter_values(operand), min_size=1, max_size=4))
    else:
        leaf["value"] = draw(filter_values(operand))
    return leaf


def filters(choices: Sequence[Operand], depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """Valid filters: at most MAX_DEPTH nested groups of at most two children, so never more
    than 2**MAX_DEPTH = 16 conditions (the limit is 20)."""
    if depth >= MAX_DEPTH:
        return leaves(choices)
    groups = st.builds(
        lambda op, children: {op: children},
        st.sampled_from(["and", "or"]),
        st.lists(filters(choices, depth + 1), min_size=1, max_size=2),
    )
    return leaves(choices) | groups


def filter_texts(choices: Sequence[Operand]) -> st.SearchStrategy[str]:
    return filters(choices).map(json.dumps)


def _canonical(kind: str, value: Any) -> Any:
    """A filter value in the form of the entry values it is compared with."""
    if kind in ("datetime", "timestamp"):
        return instant(value)
    if kind == "float":
        return float(value)
    return value


def instant(text: str) -> datetime:
    """An ISO 8601 date-time as an aware UTC instant, cut to whole milliseconds."""
    moment = datetime.fromisoformat(text).astimezone(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def reference(raw: dict[str, Any], row: dict[str, Any], kinds: dict[str, str]) -> bool:
    """Whether the entry `row` (operand name -> value, None when unset, instants as datetimes)
    matches the filter `raw`; `kinds` maps operand names to kinds."""
    if "and" in raw:
        return all(reference(child, row, kinds) for child in raw["and"])
    if "or" in raw:
        return any(reference(child, row, kinds) for child in raw["or"])
    kind, op = kinds[raw["field"]], raw["op"]
    actual = row[raw["field"]]
    if op == "isNull":
        return (actual is None) is raw.get("value", True)
    if op in ("in", "nin"):
        members = [_canonical(kind, v) for v in raw["value"]]
        if op == "in":
            return actual is not None and actual in members
        return actual is None or actual not in members
    value = _canonical(kind, raw["value"])
    if op == "ne":
        return actual is None or actual != value
    if actual is None:
        return False
    comparisons: dict[str, Callable[[], bool]] = {
        "eq": lambda: bool(actual == value),
        "lt": lambda: bool(actual < value),
        "lte": lambda: bool(actual <= value),
        "gt": lambda: bool(actual > value),
        "gte": lambda: bool(actual >= value),
        "contains": lambda: value in actual,
        "startsWith": lambda: bool(actual.startswith(value)),
    }
    return comparisons[op]()


def row_of(entry: dict[str, Any], choices: Sequence[Operand]) -> dict[str, Any]:
    """An entry of the REST API as `reference` takes it."""
    row: dict[str, Any] = {}
    for operand in choices:
        value = (
            entry[operand.name]
            if operand.name in SYSTEM_KINDS
            else entry["values"].get(operand.name)
        )
        if value is not None and operand.kind in ("datetime", "timestamp"):
            value = instant(value)
        row[operand.name] = value
    return row
