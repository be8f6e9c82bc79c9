"""GraphQL cost limits (docs/graphql.md, "Cost limits"), counted in one cheap pass over the
syntax tree.

The pass runs after parsing and before graphql-core's validation, because validation itself is
costly on hostile documents (its overlapping-fields rule compares duplicate fields pairwise;
docs/benchmarks.md). It follows fragments as if inlined, so a fragment spread N times counts N
times; it refuses fragment cycles itself, and stops as soon as any figure passes its limit, so the
work it does is bounded by the limits, not by the document. Introspection subtrees (`__schema`,
`__type`) count nothing, so GraphiQL keeps working; `check_introspection` bounds them on their own
instead (nested type lists and their size), since an exempt subtree must not become the way around
the limits.

The same pass refuses a `page` or `pageSize` outside REST's bounds (1 to 100 for `pageSize`) on
a list or a to-many relation, with REST's message: every such field, not only those a row
reaches.

Counting rules (docs/graphql.md, "Cost limits"):
- depth: a root field is at depth 1; each nested selection adds 1;
- fields: every field selection, aliases, `items`, `total` and `__typename` included;
- complexity: each field that returns records adds the product of the multipliers on its path,
  itself included; a list field or a to-many relation multiplies by its `pageSize` (default
  25), everything else that returns records (a single entry, a single type, a to-one relation,
  a list filtered by `id` or `localeGroupId` with `eq`) by 1; scalars and the list envelope's
  `items` and `total` add nothing;
- a list's filter condition on a linked entry's field (`author.city`) adds the 100 targets its
  lookup may list, times the multipliers above the list.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    get_named_type,
    value_from_ast_untyped,
)

from content_service.content.lists import MAX_FILTER_DEPTH
from content_service.content.relations import MAX_LINKED_MATCHES
from content_service.content.requests import DEFAULT_PAGE_SIZE, check_page
from content_service.errors import BadRequest
from content_service.settings import GraphQLLimits

INTROSPECTION_ROOTS = frozenset({"__schema", "__type"})
# graphql-js's MaxIntrospectionDepthRule: these lists nest at most twice in any real client's
# introspection (GraphiQL's nests `fields` once); deeper nesting only multiplies the work.
INTROSPECTION_LISTS = frozenset({"fields", "interfaces", "possibleTypes", "inputFields"})
MAX_INTROSPECTION_LISTS = 3
MAX_INTROSPECTION_FIELDS = 2000
ONE_RECORD_FIELDS = frozenset({"id", "localeGroupId"})


class FieldKind(enum.Enum):
    SCALAR = "scalar"
    ENVELOPE_ITEMS = "items"
    LIST = "list"
    TO_MANY = "to_many"
    ONE = "one"


@dataclass(frozen=True)
class Cost:
    depth: int
    fields: int
    complexity: int


class CostLimitExceeded(Exception):
    """A document refused before execution; `code` is the stable error code for clients."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class CostModel:
    """Which fields return records, derived from the executable schema.

    Entry types are the object types named in `entry_types`; a list envelope is an object
    type whose `items` field returns a list of an entry type. A field returning an envelope
    is a list field; a field returning a list of entries elsewhere is a to-many relation; a
    field returning one entry is a single entry, a single type or a to-one relation.
    """

    def __init__(self, schema: GraphQLSchema, entry_types: Iterable[str]) -> None:
        self.schema = schema
        self.entry_types = frozenset(entry_types)
        self.envelopes = frozenset(
            name
            for name, graphql_type in schema.type_map.items()
            if isinstance(graphql_type, GraphQLObjectType)
            and "items" in graphql_type.fields
            and self._is_entry_list(graphql_type.fields["items"].type)
        )
        self._kinds: dict[tuple[str, str], tuple[FieldKind, str | None]] = {}

    def _is_entry_list(self, graphql_type: Any) -> bool:
        while isinstance(graphql_type, GraphQLNonNull):
            graphql_type = graphql_type.of_type
        return (
            isinstance(graphql_type, GraphQLList)
            and get_named_type(graphql_type).name in self.entry_types
        )

    def root_type(self, operation: OperationType) -> str | None:
        root = self.schema.get_root_type(operation)
        return root.name if root is not None else None

    def field(self, parent: str | None, name: str) -> tuple[FieldKind, str | None]:
        """The field's kind and the name of the type its selections apply to."""
        if parent is None:
            return FieldKind.SCALAR, None
        key = (parent, name)
        if key not in self._kinds:
            self._kinds[key] = self._classify(parent, name)
        return self._kinds[key]

    def _classify(self, parent: str, name: str) -> tuple[FieldKind, str | None]:
        parent_type = self.schema.type_map.get(parent)
        fields = getattr(parent_type, "fields", None)
        if not fields or name not in fields:
            return FieldKind.SCALAR, None
        field_type = fields[name].type
        named = get_named_type(field_type).name
        if named in self.envelopes:
            return FieldKind.LIST, named
        if named in self.entry_types:
            if not self._is_entry_list(field_type):
                return FieldKind.ONE, named
            if parent in self.envelopes and name == "items":
                return FieldKind.ENVELOPE_ITEMS, named
            return FieldKind.TO_MANY, named
        return FieldKind.SCALAR, named


def check_length(query: str, limits: GraphQLLimits) -> None:
    if len(query) > limits.max_query_length:
        raise CostLimitExceeded(
            "QUERY_TOO_LONG",
            f"the document is {len(query)} characters long; the limit is {limits.max_query_length}",
        )


def single_operation(document: DocumentNode) -> OperationDefinitionNode:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(operations) != 1:
        raise CostLimitExceeded(
            "TOO_MANY_OPERATIONS",
            f"a request carries exactly one operation; this document has {len(operations)}",
        )
    return operations[0]


def measure(
    document: DocumentNode,
    model: CostModel,
    limits: GraphQLLimits,
    variables: Mapping[str, Any] | None = None,
) -> Cost:
    """Counts the document's single operation, refusing as soon as a limit is passed."""
    operation = single_operation(document)
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    counter = _Counter(model, limits, fragments, variables or {})
    counter.walk(operation.selection_set, model.root_type(operation.operation), 1, 1, ())
    return Cost(counter.depth, counter.fields, counter.complexity)


class _Counter:
    def __init__(
        self,
        model: CostModel,
        limits: GraphQLLimits,
        fragments: Mapping[str, FragmentDefinitionNode],
        variables: Mapping[str, Any],
    ) -> None:
        self.model = model
        self.limits = limits
        self.fragments = fragments
        self.variables = variables
        self.depth = 0
        self.fields = 0
        self.complexity = 0

    def walk(
        self,
        selection_set: SelectionSetNode,
        parent: str | None,
        level: int,
        multiplier: int,
        fragment_path: tuple[str, ...],
    ) -> None:
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                self._field(selection, parent, level, multiplier, fragment_path)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                target = condition.name.value if condition is not None else parent
                self.walk(selection.selection_set, target, level, multiplier, fragment_path)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                if name in fragment_path:
                    raise CostLimitExceeded(
                        "FRAGMENT_CYCLE", f"fragment {name!r} spreads itself (a cycle)"
                    )
                fragment = self.fragments.get(name)
                if fragment is None:
                    continue
                self.walk(
                    fragment.selection_set,
                    fragment.type_condition.name.value,
                    level,
                    multiplier,
                    (*fragment_path, name),
                )

    def _field(
        self,
        node: FieldNode,
        parent: str | None,
        level: int,
        multiplier: int,
        fragment_path: tuple[str, ...],
    ) -> None:
        if node.name.value in INTROSPECTION_ROOTS:
            return
        self.fields += 1
        if self.fields > self.limits.max_fields:
            raise CostLimitExceeded(
                "TOO_MANY_FIELDS",
                f"the document selects more than {self.limits.max_fields} fields",
            )
        if level > self.depth:
            self.depth = level
            if level > self.limits.max_depth:
                raise CostLimitExceeded(
                    "TOO_DEEP",
                    f"the document nests deeper than {self.limits.max_depth} levels",
                )
        kind, child_type = self.model.field(parent, node.name.value)
        lookups = 0
        if kind == FieldKind.LIST:
            linked = _linked_conditions(self._argument(node, "filter"), 0)
            lookups = multiplier * MAX_LINKED_MATCHES * linked
        if kind in (FieldKind.LIST, FieldKind.TO_MANY):
            self._check_page(node)
            multiplier *= self._page_size(node) if not self._addresses_one(node) else 1
        if kind in (FieldKind.LIST, FieldKind.TO_MANY, FieldKind.ONE):
            self.complexity += multiplier + lookups
            if self.complexity > self.limits.max_complexity:
                raise CostLimitExceeded(
                    "TOO_COMPLEX",
                    f"the document may read more than {self.limits.max_complexity} records "
                    "(page sizes multiplied down each path)",
                )
        if node.selection_set is not None:
            self.walk(node.selection_set, child_type, level + 1, multiplier, fragment_path)

    def _argument(self, node: FieldNode, name: str) -> Any:
        for argument in node.arguments:
            if argument.name.value == name:
                return value_from_ast_untyped(argument.value, dict(self.variables))
        return None

    def _check_page(self, node: FieldNode) -> None:
        """REST's bounds of `page` and `pageSize`, refused before execution, so a list or a
        relation answers the same 400 whether or not any row would reach its resolver. A value
        of another type is left to validation and coercion."""
        page, page_size = self._argument(node, "page"), self._argument(node, "pageSize")
        try:
            check_page(
                page if _is_int(page) else 1, page_size if _is_int(page_size) else DEFAULT_PAGE_SIZE
            )
        except BadRequest as refused:
            raise CostLimitExceeded("BAD_USER_INPUT", refused.message) from None

    def _page_size(self, node: FieldNode) -> int:
        value = self._argument(node, "pageSize")
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        return DEFAULT_PAGE_SIZE

    def _addresses_one(self, node: FieldNode) -> bool:
        if any(self._argument(node, name) is not None for name in ONE_RECORD_FIELDS):
            return True
        return _filter_addresses_one(self._argument(node, "filter"))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _filter_addresses_one(condition: Any) -> bool:
    """True when the filter can match at most one record: an `eq` on `id` or `localeGroupId`,
    alone or as one term of an `and`."""
    if not isinstance(condition, Mapping):
        return False
    if condition.get("field") in ONE_RECORD_FIELDS and condition.get("op") == "eq":
        return True
    terms = condition.get("and")
    return isinstance(terms, list) and any(_filter_addresses_one(term) for term in terms)


def _linked_conditions(condition: Any, depth: int) -> int:
    """How many conditions of the filter name a linked entry's field (`author.city`): each
    first lists up to `MAX_LINKED_MATCHES` targets (`content.relations.linked_field_filters`).
    Deeper than the grammar allows is not counted: the filter's parsing refuses it."""
    if depth > MAX_FILTER_DEPTH:
        return 0
    if isinstance(condition, list):
        return sum(_linked_conditions(term, depth) for term in condition)
    if not isinstance(condition, Mapping):
        return 0
    field = condition.get("field")
    own = 1 if isinstance(field, str) and "." in field else 0
    nested = (_linked_conditions(condition.get(op), depth + 1) for op in ("and", "or"))
    return own + sum(nested)


def check_introspection(
    document: DocumentNode,
    max_fields: int = MAX_INTROSPECTION_FIELDS,
    max_lists: int = MAX_INTROSPECTION_LISTS,
) -> None:
    """Bounds the introspection subtrees `measure` exempts: at most `max_fields` selections in
    all of them (fragments expanded, so a spread N times counts N times) and fewer than
    `max_lists` nested `fields`/`interfaces`/`possibleTypes`/`inputFields`. GraphiQL's
    introspection query uses a tenth of the first and one level of the second. Fragment cycles
    are left to `measure` (which refuses them); here a spread already on the path is skipped.
    """
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    counted = 0
    # An explicit stack: (selection set, nested lists so far, inside introspection, fragments).
    stack: list[tuple[SelectionSetNode, int, bool, tuple[str, ...]]] = [
        (d.selection_set, 0, False, ())
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode)
    ]
    while stack:
        selection_set, lists, inside, path = stack.pop()
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                name = selection.name.value
                now_inside = inside or name in INTROSPECTION_ROOTS
                nested = lists
                if now_inside:
                    counted += 1
                    if counted > max_fields:
                        raise CostLimitExceeded(
                            "INTROSPECTION_TOO_LARGE",
                            f"the introspection selects more than {max_fields} fields",
                        )
                    if name in INTROSPECTION_LISTS:
                        nested += 1
                        if nested >= max_lists:
                            raise CostLimitExceeded(
                                "INTROSPECTION_TOO_DEEP",
                                f"introspection nests {', '.join(sorted(INTROSPECTION_LISTS))} "
                                f"{max_lists} or more levels deep",
                            )
                if selection.selection_set is not None:
                    stack.append((selection.selection_set, nested, now_inside, path))
            elif isinstance(selection, InlineFragmentNode):
                stack.append((selection.selection_set, lists, inside, path))
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                fragment = fragments.get(name)
                if fragment is not None and name not in path:
                    stack.append((fragment.selection_set, lists, inside, (*path, name)))
