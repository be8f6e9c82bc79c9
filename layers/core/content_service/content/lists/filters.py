"""The filter grammar, in one place: parsing a filter, the operators each field takes, and
compiling it to a predicate over `Summary` objects (what the list index and the byType
summaries hold), so filtering never needs an entry's full item.

`{"and"|"or": [node, ...]}` or `{"field", "op", "value"}`, at most MAX_FILTER_DEPTH levels,
MAX_FILTER_LEAVES conditions and MAX_FILTER_BYTES characters. Every refusal is a `BadRequest`
(400) naming what is wrong: an unknown field, an operator the field's type does not take, a
value of the wrong type. `requests` parses with it; `query`, the list plan and the lists
compile with it.

Relation fields are filtered over the links a summary carries (`r`).

A to-one relation (one-to-one, many-to-one) is filtered like an id: `eq`, `ne`, `in`, `nin`,
`isNull`. A to-many relation (one-to-many, many-to-many) by membership: `contains` (links this
id), `containsAny`, `containsAll` (lists of ids, bounded like `in`) and `isNull` (links
nothing). Every value is an entry id; anything else is a 400 that names the field and what it
takes. As with scalars, `ne` and `nin` match an entry that links nothing.

A caller not granted a relation's target type reads the relation as linking nothing (a view
leaves it out, GraphQL's object type too), so a condition on it is decided as for an entry
that links nothing: `isNull` true matches every entry, `eq` none. Anything else would let
the filter show which entries link what that caller may not see.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from content_service import strict_json
from content_service.content import values as value_rules
from content_service.content.entries import STATUSES, Summary, is_entry_id
from content_service.content.schema import ContentType, FieldDef
from content_service.errors import BadRequest

Getter = Callable[[Summary], Any]
Predicate = Callable[[Summary], bool]

LinksTest = Callable[[Mapping[str, Any]], bool]

MAX_FILTER_DEPTH = 4
MAX_FILTER_LEAVES = 20
MAX_FILTER_BYTES = 8 * 1024
MAX_IN_VALUES = 100
# The operators' table: every operator, which a relation field takes by cardinality, which
# take a list; a scalar field takes them by kind (ordered, textual) in `_leaf`.
FILTER_OPS = (
    "eq",
    "ne",
    "lt",
    "lte",
    "gt",
    "gte",
    "in",
    "nin",
    "contains",
    "containsAny",
    "containsAll",
    "startsWith",
    "isNull",
)
TO_ONE_OPS = ("eq", "ne", "in", "nin", "isNull")
TO_MANY_OPS = ("contains", "containsAny", "containsAll", "isNull")
_LISTS = frozenset({"in", "nin", "containsAny", "containsAll"})
SYSTEM_FILTER_FIELDS = ("id", "localeGroupId", "status", "createdAt", "updatedAt", "publishedAt")
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

# A filter's field: a field name, or a relation field and one of its target's fields.
_FILTER_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63})?$")


@dataclass(frozen=True)
class FilterLeaf:
    field: str
    op: str
    value: Any


@dataclass(frozen=True)
class FilterGroup:
    op: Literal["and", "or"]
    children: tuple[FilterNode, ...]


FilterNode = FilterLeaf | FilterGroup


# A refusal quotes only this much of the caller's input, so its message stays readable.
_QUOTED_LENGTH = 34
_QUOTED_KEYS = 3


def _quoted(text: str) -> str:
    quoted = repr(text)
    return quoted if len(quoted) <= _QUOTED_LENGTH else quoted[: _QUOTED_LENGTH - 3] + "..."


def _parse_node(raw: Any, depth: int, leaves: list[int], where: str) -> FilterNode:
    if not isinstance(raw, Mapping):
        raise BadRequest(f"filter: {where} must be an object")
    keys = set(raw)
    if keys in ({"and"}, {"or"}):
        (op,) = keys
        if depth >= MAX_FILTER_DEPTH:
            raise BadRequest(f"filter: nesting deeper than {MAX_FILTER_DEPTH} levels")
        children = raw[op]
        if not isinstance(children, list) or not children:
            raise BadRequest(f"filter: {where}.{op} must be a non-empty list")
        return FilterGroup(
            op="and" if op == "and" else "or",
            children=tuple(
                _parse_node(child, depth + 1, leaves, f"{where}.{op}[{i}]")
                for i, child in enumerate(children)
            ),
        )
    if "field" in keys or "op" in keys:
        extra = keys - {"field", "op", "value"}
        if extra:
            named = sorted(map(str, extra))
            listed = ", ".join(_quoted(key) for key in named[:_QUOTED_KEYS])
            more = f" and {len(named) - _QUOTED_KEYS} more" if len(named) > _QUOTED_KEYS else ""
            raise BadRequest(f"filter: {where} has unknown keys {listed}{more}")
        name, op = raw.get("field"), raw.get("op")
        if not isinstance(name, str) or not _FILTER_FIELD.match(name):
            raise BadRequest(
                f"filter: {where}.field must name a field, or a relation field and a field "
                "of its target (`author.city`, one level deep)"
            )
        if op not in FILTER_OPS:
            shown = _quoted(op if isinstance(op, str) else "?")
            raise BadRequest(
                f"filter: unknown operator {shown} at {where}; use one of {', '.join(FILTER_OPS)}"
            )
        if "value" not in raw and op != "isNull":
            raise BadRequest(f"filter: {where} needs a value for {op}")
        leaves[0] += 1
        if leaves[0] > MAX_FILTER_LEAVES:
            raise BadRequest(f"filter: more than {MAX_FILTER_LEAVES} conditions")
        return FilterLeaf(field=name, op=op, value=raw.get("value", True))
    raise BadRequest(
        f"filter: {where} must be {{'and': [...]}}, {{'or': [...]}} or "
        "{'field': ..., 'op': ..., 'value': ...}"
    )


def parse_filter(raw: str | Mapping[str, Any] | None) -> FilterNode | None:
    """The filter grammar: `{"and"|"or": [node, ...]}` or `{"field", "op", "value"}`."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        if len(raw) > MAX_FILTER_BYTES:
            raise BadRequest(f"filter: longer than {MAX_FILTER_BYTES} characters")
        try:
            parsed = strict_json.loads(raw, where="filter")
        except strict_json.JsonRefused as refused:
            raise BadRequest(f"filter: {refused}", details=refused.details()) from None
    else:
        parsed = raw
    return _parse_node(parsed, 0, [0], "filter")


def filter_json(node: FilterNode | None) -> Any:
    """The filter as JSON-ready lists: what names a filtered list in its cursors' digest."""
    if node is None:
        return None
    if isinstance(node, FilterLeaf):
        return [node.field, node.op, node.value]
    return [node.op, [filter_json(child) for child in node.children]]


@dataclass(frozen=True)
class Operand:
    """A field or system attribute a filter or a sort names: its kind and how a summary reads it."""

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


def field_operand(
    content_type: ContentType, name: str, allowed_system: Iterable[str], what: str
) -> Operand:
    """`name` as a filter (`what` = "filter") or a sort ("sort") reads it; the sort shares it."""
    if name in allowed_system:
        return Operand(name, _SYSTEM_KINDS[name], _system_getter(name))
    definition = content_type.field(name)
    if definition is None:
        raise BadRequest(f"{what}: content type {content_type.name!r} has no field {name!r}")
    if not definition.is_scalar:
        raise BadRequest(
            f"{what}: field {name!r} is {definition.type}; only string, integer, float, "
            "boolean, datetime, date and enum fields can be used"
            + (" (and, in a filter, relation fields)" if what == "filter" else "")
        )
    return Operand(name, definition.type, _value_getter(definition), definition)


def _check_value(operand: Operand, value: Any) -> Any:
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
    operand = field_operand(content_type, leaf.field, SYSTEM_FILTER_FIELDS, "filter")
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
    operand = field_operand(content_type, leaf.field, SYSTEM_FILTER_FIELDS, "filter")
    return _check_value(operand, leaf.value)


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


def relation_predicate(definition: FieldDef, leaf: FilterLeaf) -> Predicate:
    """The compiled condition of `leaf` on relation field `definition`."""
    test = _links_test(definition, leaf)
    return lambda s: test(s.links)


def unfollowed(definition: FieldDef, leaf: FilterLeaf) -> FilterGroup:
    """`leaf` on a relation whose target type the caller is not granted, checked like any
    other, then decided as for no links: an empty `and` (always true) or `or` (never)."""
    return FilterGroup("and" if _links_test(definition, leaf)({}) else "or", ())


def _links_test(definition: FieldDef, leaf: FilterLeaf) -> LinksTest:
    ops = TO_ONE_OPS if definition.to_one else TO_MANY_OPS
    shape = "to-one" if definition.to_one else "to-many"
    takes = (
        f"{leaf.field!r} is a {shape} relation ({definition.cardinality}); "
        f"it takes {', '.join(ops)}"
    )
    if leaf.op not in ops:
        raise BadRequest(f"filter: {takes}, not {leaf.op}")
    try:
        return _test(definition, leaf)
    except BadRequest as refused:
        raise BadRequest(f"{refused.message} ({takes})") from None


def _test(definition: FieldDef, leaf: FilterLeaf) -> LinksTest:
    key = definition.key
    if leaf.op == "isNull":
        if not isinstance(leaf.value, bool):
            raise BadRequest("filter: isNull takes true or false")
        wanted = leaf.value
        return lambda links: (not links.get(key)) == wanted
    ids = _ids(leaf)
    if definition.to_one:
        return _to_one(key, leaf.op, ids)
    return _to_many(key, leaf.op, ids)


def _ids(leaf: FilterLeaf) -> frozenset[str]:
    """The leaf's entry ids: one for eq, ne and contains, a bounded list for the others."""
    where = f"filter: {leaf.op} on {leaf.field!r}"
    if isinstance(leaf.value, tuple):  # resolved by linked_field_filters; may be empty
        return frozenset(leaf.value)
    if leaf.op not in _LISTS:
        if not is_entry_id(leaf.value):
            raise BadRequest(f"{where} takes an entry id")
        return frozenset({leaf.value})
    value = leaf.value
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_IN_VALUES:
        raise BadRequest(f"{where} takes a list of 1 to {MAX_IN_VALUES} entry ids")
    if not all(is_entry_id(v) for v in value):
        raise BadRequest(f"{where} takes entry ids only")
    return frozenset(value)


def _one(stored: Any) -> str | None:
    """A to-one link as the summary holds it (a list if the field once held several)."""
    if isinstance(stored, list):
        return str(stored[0]) if stored else None
    return stored if isinstance(stored, str) else None


def _many(stored: Any) -> frozenset[str]:
    if isinstance(stored, list):
        return frozenset(str(v) for v in stored)
    return frozenset({stored}) if isinstance(stored, str) else frozenset()


def _to_one(key: str, op: str, ids: frozenset[str]) -> LinksTest:
    if op in ("eq", "in"):
        return lambda links: _one(links.get(key)) in ids
    return lambda links: _one(links.get(key)) not in ids


def _to_many(key: str, op: str, ids: frozenset[str]) -> LinksTest:
    if op == "containsAll":
        return lambda links: ids <= _many(links.get(key))
    return lambda links: not ids.isdisjoint(_many(links.get(key)))
