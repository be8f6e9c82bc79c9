"""Filters on relation fields, evaluated over the links a summary carries (`r`).

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

from collections.abc import Callable, Mapping
from typing import Any

from content_service.content.entries import Summary
from content_service.content.requests import MAX_IN_VALUES, FilterGroup, FilterLeaf, is_entry_id
from content_service.content.schema import FieldDef
from content_service.errors import BadRequest

Predicate = Callable[[Summary], bool]
LinksTest = Callable[[Mapping[str, Any]], bool]

TO_ONE_OPS = ("eq", "ne", "in", "nin", "isNull")
TO_MANY_OPS = ("contains", "containsAny", "containsAll", "isNull")
_LISTS = frozenset({"in", "nin", "containsAny", "containsAll"})


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
