"""Lists against one content type: the filter, the sort and the field selection, compiled.

Everything here works on `Summary` objects (what the byType index holds), so filtering and
sorting never need an entry's full item. Problems are `BadRequest` (400) with a readable
message: an unknown field, an operator the field's type does not support, a value of the wrong
type.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from content_service.content import values as value_rules
from content_service.content.entries import STATUSES, Summary
from content_service.content.relations import relation_predicate
from content_service.content.requests import (
    MAX_IN_VALUES,
    FilterGroup,
    FilterLeaf,
    FilterNode,
    SortKey,
)
from content_service.content.schema import ENTRY_SYSTEM_FIELDS, ContentType, FieldDef
from content_service.errors import BadRequest
from content_service.identity.principal import Caller

Getter = Callable[[Summary], Any]
Predicate = Callable[[Summary], bool]

SYSTEM_FILTER_FIELDS = ("id", "localeGroupId", "status", "createdAt", "updatedAt", "publishedAt")
SYSTEM_SORT_FIELDS = ("id", "createdAt", "updatedAt", "publishedAt")
SYSTEM_FIELD_NAMES = frozenset(ENTRY_SYSTEM_FIELDS)
DEFAULT_SORT = (SortKey("createdAt", descending=True),)
_ORDERED = frozenset({"string", "integer", "float", "datetime", "date", "id", "timestamp"})
_TEXTUAL = frozenset({"string", "id"})
_SYSTEM_KINDS = {
    "id": "id",
    "localeGroupId": "id",
    "status": "status",
    "createdAt": "timestamp",
    "updatedAt": "timestamp",
    "publishedAt": "timestamp",
}


@dataclass(frozen=True)
class _Operand:
    name: str
    kind: str
    getter: Getter
    definition: FieldDef | None = None


def _value_getter(definition: FieldDef) -> Getter:
    key = definition.key
    if definition.type == "integer":
        return lambda s: _number(s.values.get(key), int)
    if definition.type == "float":
        return lambda s: _number(s.values.get(key), float)
    return lambda s: s.values.get(key)


def _number(value: Any, kind: type[int] | type[float]) -> Any:
    """A stored number as the field's type; None (matching no comparison) for anything else,
    including a non-finite float that a summary decoded by a lenient reader could hold."""
    if isinstance(value, Decimal | int | float) and not isinstance(value, bool):
        return kind(value) if math.isfinite(value) else None
    return None


def _system_getter(name: str) -> Getter:
    return lambda s: s.system(name)


def _operand(
    content_type: ContentType, name: str, allowed_system: Iterable[str], what: str
) -> _Operand:
    if name in allowed_system:
        return _Operand(name, _SYSTEM_KINDS[name], _system_getter(name))
    definition = content_type.field(name)
    if definition is None:
        raise BadRequest(f"{what}: content type {content_type.name!r} has no field {name!r}")
    if not definition.is_scalar:
        raise BadRequest(
            f"{what}: field {name!r} is {definition.type}; only string, integer, float, "
            "boolean, datetime, date and enum fields can be used"
            + (" (and, in a filter, relation fields)" if what == "filter" else "")
        )
    return _Operand(name, definition.type, _value_getter(definition), definition)


def _check_value(operand: _Operand, value: Any) -> Any:
    """The filter value normalised to what the summary holds for this field."""
    where = f"filter: value for {operand.name!r}"
    if value is None:
        raise BadRequest(f"{where} must not be null (use the isNull operator)")
    try:
        if operand.kind in ("id", "string"):
            return value_rules.check_string(value, value_rules.STRING_MAX)
        if operand.kind == "status":
            if value not in STATUSES:
                raise value_rules.InvalidValue("must be 'draft', 'published' or 'changed'")
            return value
        if operand.kind in ("timestamp", "datetime"):
            return value_rules.normalise_datetime(value)
        if operand.kind == "date":
            return value_rules.normalise_date(value)
        if operand.kind == "integer":
            return value_rules.check_integer(value)
        if operand.kind == "float":
            return value_rules.check_float(value)
        if operand.kind == "boolean":
            if not isinstance(value, bool):
                raise value_rules.InvalidValue("must be true or false")
            return value
        if operand.kind == "enum" and operand.definition is not None:
            return value_rules.to_storage(operand.definition, value)
    except value_rules.InvalidValue as error:
        raise BadRequest(f"{where} {error}") from None
    raise BadRequest(f"{where} cannot be compared")


def _safe(test: Callable[[Any], bool], getter: Getter) -> Predicate:
    def predicate(summary: Summary) -> bool:
        try:
            return test(getter(summary))
        except TypeError:
            return False

    return predicate


def _leaf(content_type: ContentType, leaf: FilterLeaf) -> Predicate:
    definition = content_type.field(leaf.field)
    if definition is not None and definition.is_relation:
        return relation_predicate(definition, leaf)
    if leaf.op in ("containsAny", "containsAll"):
        raise BadRequest(
            f"filter: {leaf.op} applies to to-many relation fields, not {leaf.field!r}"
        )
    operand = _operand(content_type, leaf.field, SYSTEM_FILTER_FIELDS, "filter")
    op, get = leaf.op, operand.getter
    if op == "isNull":
        if not isinstance(leaf.value, bool):
            raise BadRequest("filter: isNull takes true or false")
        wanted = leaf.value
        return lambda s: (get(s) is None) == wanted
    if op in ("in", "nin"):
        if not isinstance(leaf.value, list) or not 1 <= len(leaf.value) <= MAX_IN_VALUES:
            raise BadRequest(f"filter: {op} takes a list of 1 to {MAX_IN_VALUES} values")
        members = [_check_value(operand, v) for v in leaf.value]
        if op == "in":
            return _safe(lambda v: v is not None and v in members, get)
        return _safe(lambda v: v is None or v not in members, get)
    if op in ("lt", "lte", "gt", "gte") and operand.kind not in _ORDERED:
        raise BadRequest(f"filter: {op} does not apply to {operand.kind} field {operand.name!r}")
    if op in ("contains", "startsWith") and operand.kind not in _TEXTUAL:
        raise BadRequest(f"filter: {op} applies to string fields, not {operand.name!r}")
    if isinstance(leaf.value, list | dict):
        raise BadRequest(f"filter: {op} takes a single value")
    value = _check_value(operand, leaf.value)
    tests: dict[str, Callable[[Any], bool]] = {
        "eq": lambda v: v is not None and v == value,
        "ne": lambda v: v is None or v != value,
        "lt": lambda v: v is not None and v < value,
        "lte": lambda v: v is not None and v <= value,
        "gt": lambda v: v is not None and v > value,
        "gte": lambda v: v is not None and v >= value,
        "contains": lambda v: isinstance(v, str) and value in v,
        "startsWith": lambda v: isinstance(v, str) and v.startswith(value),
    }
    return _safe(tests[op], get)


def leaf_value(content_type: ContentType, leaf: FilterLeaf) -> Any:
    """The single value of a compiled leaf (eq, lt, lte, gt, gte), normalised as stored."""
    operand = _operand(content_type, leaf.field, SYSTEM_FILTER_FIELDS, "filter")
    return _check_value(operand, leaf.value)


def sort_operand(content_type: ContentType, key: SortKey) -> tuple[str, Getter]:
    """The kind of a sort key's values (`timestamp`, `id`, a field type) and their getter."""
    operand = _operand(content_type, key.field, SYSTEM_SORT_FIELDS, "sort")
    return operand.kind, operand.getter


def compile_filter(content_type: ContentType, node: FilterNode | None) -> Predicate:
    if node is None:
        return lambda _: True
    if isinstance(node, FilterLeaf):
        return _leaf(content_type, node)
    children = [compile_filter(content_type, child) for child in node.children]
    if node.op == "and":
        return lambda s: all(child(s) for child in children)
    return lambda s: any(child(s) for child in children)


def direct_address(node: FilterNode | None) -> tuple[str, str] | None:
    """`("id"|"localeGroupId", value)` when the filter pins one record by key, else None.

    That is a root `eq` on id or localeGroupId, or such a leaf directly inside a root `and`
    (the other conditions then apply to that one record).
    """
    if node is None:
        return None
    candidates = [node] if isinstance(node, FilterLeaf) else []
    if isinstance(node, FilterGroup) and node.op == "and":
        candidates = [c for c in node.children if isinstance(c, FilterLeaf)]
    for leaf in candidates:
        if (
            leaf.field in ("id", "localeGroupId")
            and leaf.op == "eq"
            and isinstance(leaf.value, str)
        ):
            return leaf.field, leaf.value
    return None


def sort_summaries(
    content_type: ContentType, summaries: list[Summary], keys: tuple[SortKey, ...]
) -> list[Summary]:
    """Sorted by `keys` (default `-createdAt`), nulls last either way, `id` breaking ties."""
    operands = [
        (_operand(content_type, k.field, SYSTEM_SORT_FIELDS, "sort"), k.descending)
        for k in (keys or DEFAULT_SORT)
    ]
    ordered = sorted(summaries, key=lambda s: s.id)
    for operand, descending in reversed(operands):
        get = operand.getter

        def sort_key(summary: Summary, get: Getter = get, descending: bool = descending) -> Any:
            value = get(summary)
            if descending:
                return (value is not None, value if value is not None else 0)
            return (value is None, value if value is not None else 0)

        try:
            ordered.sort(key=sort_key, reverse=descending)
        except TypeError:  # a stored value of an unexpected type: keep the order so far
            continue
    return ordered


def check_sort(content_type: ContentType, keys: tuple[SortKey, ...]) -> None:
    for key in keys:
        _operand(content_type, key.field, SYSTEM_SORT_FIELDS, "sort")


@dataclass(frozen=True)
class Selection:
    """Which value fields to read and return, which links to read, which relations to expand.

    With no `fields` every value and every link is read; with `fields`, only those values and
    the links of the expanded (and `links`-named) relation fields: the ProjectionExpression
    names nothing else, so an unselected rich-text attribute is never read.
    """

    value_fields: tuple[FieldDef, ...]
    all_values: bool
    expand: tuple[FieldDef, ...]
    link_fields: tuple[FieldDef, ...]

    @property
    def value_keys(self) -> tuple[str, ...] | None:
        return None if self.all_values else tuple(f.key for f in self.value_fields)

    @property
    def link_keys(self) -> tuple[str, ...] | None:
        return None if self.all_values else tuple(f.key for f in self.link_fields)


def _relation(caller: Caller, content_type: ContentType, name: str, what: str) -> FieldDef:
    definition = content_type.field(name)
    if (
        definition is None
        or not definition.is_relation
        or not caller.grants(definition.target or "")
    ):
        raise BadRequest(
            f"{what}: content type {content_type.name!r} has no relation field {name!r}"
        )
    return definition


def select(
    caller: Caller,
    content_type: ContentType,
    fields: tuple[str, ...] | None,
    expand: tuple[str, ...] = (),
    links: tuple[str, ...] = (),
) -> Selection:
    """Validates `fields` (value fields; system names are accepted and ignored), `expand` and
    `links` (relation fields whose target ids to read without expanding them)."""
    if fields is None:
        chosen = content_type.value_fields
    else:
        picked: list[FieldDef] = []
        for name in fields:
            if name in SYSTEM_FIELD_NAMES:
                continue
            definition = content_type.field(name)
            if definition is None:
                raise BadRequest(
                    f"fields: content type {content_type.name!r} has no field {name!r}"
                )
            if definition.is_relation:
                raise BadRequest(f"fields: {name!r} is a relation; use expand")
            picked.append(definition)
        chosen = tuple(picked)
    expanded = tuple(_relation(caller, content_type, name, "expand") for name in expand)
    linked = tuple(_relation(caller, content_type, name, "links") for name in links)
    if fields is None:
        link_fields = tuple(
            f for f in content_type.relation_fields if caller.grants(f.target or "")
        )
    else:
        link_fields = tuple(dict.fromkeys((*expanded, *linked)))
    return Selection(
        value_fields=chosen, all_values=fields is None, expand=expanded, link_fields=link_fields
    )
