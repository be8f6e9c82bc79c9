"""A list's plan: the counts read with its type, and whether the list index serves the page
(one sort key the index holds, a filter of `eq`, ranges and `isNull` it can answer) or the
entries are sorted and filtered in memory (`listing.py` tells the whole path).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from content_service.content.entries import STATUSES
from content_service.content.lists.filters import (
    SYSTEM_FILTER_FIELDS,
    FilterLeaf,
    FilterNode,
    leaf_value,
)
from content_service.content.lists.list_keys import (
    AFTER_IDS,
    COUNT_SK,
    STATUS_KEY,
    SYSTEM_SORT_KEYS,
    TERM,
    Visibility,
    bucket,
    count_pks,
    token,
)
from content_service.content.lists.query import DEFAULT_SORT
from content_service.content.requests import ListRequest, SortKey
from content_service.content.schema import ContentType
from content_service.content.store import store
from content_service.identity.principal import TokenCaller
from content_service.storage import dynamo

# Root `eq` conditions whose counts are read with the type, in case they are served.
_EQ_GUESSES = 3
_RANGE_OPS = frozenset({"eq", "lt", "lte", "gt", "gte"})

# A count: (visibility, (field name, bucket) for an `eq` partition or None).
Want = tuple[Visibility, tuple[str, str] | None]


def root_leaves(node: FilterNode | None) -> list[FilterLeaf] | None:
    """The conditions of a filter that is one leaf or an `and` of leaves (nested `and`s
    flattened); None when an `or` is anywhere in it."""
    if node is None:
        return []
    if isinstance(node, FilterLeaf):
        return [node]
    if node.op == "or":
        return None
    leaves: list[FilterLeaf] = []
    for child in node.children:
        found = root_leaves(child)
        if found is None:
            return None
        leaves.extend(found)
    return leaves


def family(request: ListRequest) -> Visibility:
    """The index view a list reads: `A` (latest versions) or `P` (published versions)."""
    return "P" if request.view == "published" else "A"


def wants(request: ListRequest) -> list[Want]:
    view = family(request)
    wants: list[Want] = [(view, None)]
    leaves = root_leaves(request.filter) or []
    guesses = [
        leaf
        for leaf in leaves
        if leaf.op == "eq"
        and leaf.field not in SYSTEM_FILTER_FIELDS
        and "." not in leaf.field
        and isinstance(leaf.value, str | int | float | bool)
    ]
    for leaf in guesses[:_EQ_GUESSES]:
        wants.append((view, (leaf.field, bucket(leaf.value))))
    if view == "A":
        wants.extend(
            (view, ("status", leaf.value))
            for leaf in leaves
            if leaf.field == "status" and leaf.op == "eq" and leaf.value in STATUSES
        )
    return list(dict.fromkeys(wants))


def count_keys(request: ListRequest, wants: Sequence[Want]) -> dict[str, Want]:
    keys: dict[str, Want] = {}
    for want in wants:
        for pk in count_pks(
            request.workspace_id, request.content_type, request.locale, want[0], want[1]
        ):
            keys[pk] = want
    return keys


def sum_counts(keys: Mapping[str, Want], items: Sequence[Mapping[str, Any]]) -> dict[Want, int]:
    sums: dict[Want, int] = dict.fromkeys(keys.values(), 0)
    for item in items:
        want = keys.get(str(item.get("pk", "")))
        if want is not None:
            sums[want] += int(item.get("n", 0))
    return sums


@dataclass
class Counts:
    """Count sums by want; a want not read with the type is read when first asked for."""

    request: ListRequest
    sums: dict[Want, int]

    def total(self, wants: Sequence[Want]) -> int:
        missing = [w for w in wants if w not in self.sums]
        if missing:
            keys = count_keys(self.request, missing)
            found = store().get_many("schema", [dynamo.key(pk, COUNT_SK) for pk in keys])
            self.sums.update(sum_counts(keys, found))
        return sum(self.sums[w] for w in wants)


@dataclass
class Scope:
    """What the conditions of a served list add up to."""

    visibilities: set[Visibility]
    lower: str | None = None
    upper: str | None = None
    values: bool = True
    nulls: bool = True
    eq: tuple[str, str, str] | None = None
    """(field key, field name, bucket) of the `eq` on another sortable field."""
    reasons: list[str] = field(default_factory=list)
    mark: list[str] = field(default_factory=list)
    """Fields that, marked sortable, would let the index serve the list."""

    def bound(self, lower: str | None, upper: str | None) -> None:
        self.nulls = False
        if lower is not None and (self.lower is None or lower > self.lower):
            self.lower = lower
        if upper is not None and (self.upper is None or upper < self.upper):
            self.upper = upper

    @property
    def empty(self) -> bool:
        if not self.visibilities or not (self.values or self.nulls):
            return True
        return self.lower is not None and self.upper is not None and self.lower > self.upper


@dataclass(frozen=True)
class Sort:
    name: str
    """Partition sort name: `@c`, `@u`, `@p` or a field key."""
    kind: str
    field: str
    descending: bool


@dataclass(frozen=True)
class Served:
    sort: Sort
    scope: Scope
    families: tuple[tuple[Visibility, tuple[str, str] | None], ...]


def _sort_of(
    content_type: ContentType, keys: tuple[SortKey, ...], scope: Scope
) -> tuple[Sort, bool]:
    """The first sort key, and whether the index can serve the sort (reasons if not)."""
    servable = True
    if len(keys) > 1:
        scope.reasons.append("sort: more than one key is sorted in memory")
        servable = False
    key = keys[0]
    if key.field in SYSTEM_SORT_KEYS:
        name = SYSTEM_SORT_KEYS[key.field]
        return Sort(name, "timestamp", key.field, key.descending), servable
    definition = content_type.field(key.field)
    if definition is None or not definition.is_scalar:  # `id`: ties are broken by it anyway
        scope.reasons.append(f"sort: `{key.field}` is sorted in memory")
        return Sort(key.field, "id", key.field, key.descending), False
    if not content_type.list_ready(definition):
        building = " (its index is still being built)" if definition.sortable else ""
        scope.reasons.append(f"sort: `{key.field}` is not sortable{building}")
        scope.mark.append(key.field)
        servable = False
    return Sort(definition.key, definition.type, key.field, key.descending), servable


def _bound_leaf(content_type: ContentType, sort: Sort, leaf: FilterLeaf, scope: Scope) -> None:
    """A condition on the sort key: a key range, or one of its two phases."""
    if leaf.op == "isNull":
        if leaf.value:
            scope.values = False
        else:
            scope.nulls = False
        return
    if leaf.op not in _RANGE_OPS:
        scope.reasons.append(f"filter: `{leaf.op}` on `{leaf.field}`")
        return
    value, exact = token(sort.kind, leaf_value(content_type, leaf))
    if not exact:
        scope.reasons.append(f"filter: the value for `{leaf.field}` is longer than keys hold")
        return
    last = value + TERM + AFTER_IDS
    bounds = {
        "eq": (value, last),
        "gt": (last, None),
        "gte": (value, None),
        "lt": (None, value),
        "lte": (None, last),
    }
    scope.bound(*bounds[leaf.op])


def _status_leaf(leaf: FilterLeaf, scope: Scope) -> None:
    """`eq` on the status: in the delivery view everything is published; in the preview, the
    status's `eq` partitions."""
    if leaf.op != "eq":
        scope.reasons.append(f"filter: `{leaf.op}` on `status`")
        return
    if scope.visibilities == {"P"}:
        if leaf.value != "published":
            scope.visibilities = set()
        return
    if scope.eq is not None and scope.eq[1] != "status":
        scope.reasons.append(f"filter: `eq` on `status` beside `eq` on `{scope.eq[1]}`")
        return
    if scope.eq is not None and scope.eq[2] != leaf.value:
        scope.visibilities = set()  # two different states: nothing matches
    scope.eq = (STATUS_KEY, "status", str(leaf.value))


def _eq_leaf(content_type: ContentType, leaf: FilterLeaf, scope: Scope) -> None:
    """`eq` on a field other than the sort key: served by its `eq` partitions if sortable."""
    definition = content_type.field(leaf.field)
    if definition is not None and definition.is_relation:
        scope.reasons.append(f"filter: `eq` on relation `{leaf.field}` is evaluated in memory")
        return
    if definition is None or not content_type.list_ready(definition):
        building = (
            " (its index is still being built)"
            if definition is not None and definition.sortable
            else ""
        )
        scope.reasons.append(f"filter: `eq` on `{leaf.field}`, which is not sortable{building}")
        scope.mark.append(leaf.field)
        return
    if scope.eq is not None and scope.eq[1] != leaf.field:
        scope.reasons.append(
            f"filter: `eq` on `{leaf.field}` beside `eq` on `{scope.eq[1]}` (one is served)"
        )
        return
    value = bucket(leaf_value(content_type, leaf))
    if scope.eq is not None and scope.eq[2] != value:
        scope.visibilities = set()  # two different values: nothing matches
    scope.eq = (definition.key, definition.name, value)


def _leaf(content_type: ContentType, sort: Sort, leaf: FilterLeaf, scope: Scope) -> None:
    if leaf.field == sort.field:
        _bound_leaf(content_type, sort, leaf, scope)
    elif leaf.field == "status":
        _status_leaf(leaf, scope)
    elif leaf.op == "eq" and leaf.field not in SYSTEM_FILTER_FIELDS:
        _eq_leaf(content_type, leaf, scope)
    else:
        definition = content_type.field(leaf.field)
        scope.reasons.append(
            f"filter: `{leaf.op}` on `{leaf.field}` while sorting by `{sort.field}`"
        )
        if definition is not None and definition.is_scalar and leaf.op in _RANGE_OPS:
            scope.mark.append(leaf.field)


def _families(scope: Scope) -> tuple[tuple[Visibility, tuple[str, str] | None], ...]:
    eq = (scope.eq[0], scope.eq[2]) if scope.eq is not None else None
    return tuple((v, eq) for v in sorted(scope.visibilities))


def plan(content_type: ContentType, request: ListRequest) -> Served | Scope:
    """How the list is read: `Served` by the index, or the `Scope` whose reasons say why it
    is sorted and filtered in memory."""
    scope = Scope(visibilities={family(request)})
    if content_type.audience_gated and isinstance(request.caller, TokenCaller):
        scope.reasons.append("the type is audience-gated: a token's entries are picked in memory")
    sort, servable = _sort_of(content_type, request.sort or DEFAULT_SORT, scope)
    leaves = root_leaves(request.filter)
    if leaves is None:
        scope.reasons.append("filter: `or` is evaluated in memory")
    for leaf in leaves or ():  # every reason, and every field worth marking, is named
        _leaf(content_type, sort, leaf, scope)
    if not servable or leaves is None or scope.reasons:
        return scope
    return Served(sort=sort, scope=scope, families=_families(scope))
