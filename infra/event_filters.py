"""Lambda event filtering (`FilterCriteria`) for the local pollers.

Lambda drops records that match none of the filters before it batches them, so the handler
never sees them; the fan-out relies on that to receive only INSERTs. The pattern language is
EventBridge's; this covers exact values and the `prefix`, `suffix`, `anything-but`, `exists`,
`equals-ignore-case` and `numeric` operators.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Mapping
from typing import Any

from infra.template_model import TemplateError

RecordFilter = Callable[[Mapping[str, Any]], bool]
_MISSING = object()
_NUMERIC: dict[str, Callable[[float, float], bool]] = {
    "=": operator.eq,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def compile_filter_criteria(criteria: Mapping[str, Any] | None) -> RecordFilter:
    """A predicate that is true when a record matches any filter (or there are none)."""
    filters = (criteria or {}).get("Filters") or []
    patterns = []
    for entry in filters:
        raw = entry.get("Pattern", "{}")
        pattern = json.loads(raw) if isinstance(raw, str) else raw
        if not isinstance(pattern, dict):
            raise TemplateError(f"a filter pattern must be a JSON object, not {raw!r}")
        patterns.append(pattern)
    if not patterns:
        return lambda record: True
    return lambda record: any(matches(p, record) for p in patterns)


def matches(pattern: Mapping[str, Any], event: Any) -> bool:
    if not isinstance(event, Mapping):
        return False
    for key, expected in pattern.items():
        actual = event.get(key, _MISSING)
        if isinstance(expected, Mapping):
            if actual is _MISSING or not matches(expected, actual):
                return False
        elif isinstance(expected, list):
            if not any(_matches_value(rule, actual) for rule in expected):
                return False
        else:
            raise TemplateError(f"filter value for {key!r} must be a list or an object")
    return True


def _matches_value(rule: Any, actual: Any) -> bool:
    if isinstance(actual, list) and not isinstance(rule, Mapping):
        return any(_matches_value(rule, item) for item in actual)
    if not isinstance(rule, Mapping):
        return actual is not _MISSING and actual == rule
    ((name, argument),) = rule.items()
    if name == "exists":
        return (actual is not _MISSING) == bool(argument)
    if actual is _MISSING:
        return False
    if name == "prefix":
        return isinstance(actual, str) and actual.startswith(argument)
    if name == "suffix":
        return isinstance(actual, str) and actual.endswith(argument)
    if name == "equals-ignore-case":
        return isinstance(actual, str) and actual.lower() == str(argument).lower()
    if name == "anything-but":
        excluded = argument if isinstance(argument, list) else [argument]
        return actual not in excluded
    if name == "numeric":
        return _numeric(argument, actual)
    raise TemplateError(f"filter operator {name!r} is not supported by the local stack")


def _numeric(conditions: list[Any], actual: Any) -> bool:
    try:
        number = float(actual)
    except (TypeError, ValueError):
        return False
    pairs = zip(conditions[::2], conditions[1::2], strict=True)
    return all(_NUMERIC[op](number, float(bound)) for op, bound in pairs)
