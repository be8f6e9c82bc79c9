"""The answer-size bound of introspection, which the cost limits exempt (D40).

`cost_limits.check_introspection` bounds the document (selections, nested type lists), but a
bounded document can still ask for the same large subtree many times over: 142 aliased copies
of a deep `__schema` selection (14 KB) answered 2.75 MB, 41 times the standard introspection,
in 2 to 3 s. So before execution the introspection subtrees are counted against the schema
itself: `answer_size` walks the document as graphql-core would resolve it (each `__schema`,
each `types` element, each field of each type...) and counts the values the answer would hold,
stopping as soon as the count passes the limit, so the work is bounded by the limit, not by the
document.

The limit is INTROSPECTION_FACTOR times the answer of the standard introspection query on the
same schema (graphql-core's `get_introspection_query` with every option on, which asks for at
least what GraphiQL, Apollo or `gql` ask), counted once per built schema, when a first
document introspects (`BuiltSchema.introspection_limit`). So a client's own
introspection always fits, and no document can answer more than a few times it, however the
schema grows.

Counting: every field of the answer counts 1 (a key, whatever its value), every element of a
list counts 1 more, and a list of enum values (`locations`) counts its length. Type
conditions and `includeDeprecated` are not looked at (both can only lower the real figure).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLWrappingType,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    get_introspection_query,
    is_abstract_type,
    parse,
    value_from_ast_untyped,
)

from content_service.graphql.cost_limits import INTROSPECTION_ROOTS, CostLimitExceeded

INTROSPECTION_FACTOR = 3

# What an introspection object is, by the kind of value behind it.
_SCHEMA, _TYPE, _FIELD, _INPUT, _ENUM, _DIRECTIVE = "schema", "type", "field", "in", "enum", "dir"
_LEAF = "leaf"
Children = tuple[str, list[Any]]
_Pending = tuple[SelectionSetNode, str, Any, tuple[str, ...]]
"""The kind of the values a field answers, and those values (one, several, or none for null)."""


@functools.cache
def standard_query() -> DocumentNode:
    """graphql-core's introspection query with every option on (parsed once, when first used:
    not at import, which Lambda's cold start pays)."""
    return parse(
        get_introspection_query(
            descriptions=True,
            specified_by_url=True,
            directive_is_repeatable=True,
            schema_description=True,
            input_value_deprecation=True,
        )
    )


def standard_size(schema: GraphQLSchema) -> int:
    """What the standard introspection query answers on `schema`, counted like any document."""
    return answer_size(standard_query(), schema, {}, limit=None)


def check_answer_size(
    document: DocumentNode,
    schema: GraphQLSchema,
    variables: Mapping[str, Any],
    limit: Callable[[], int],
) -> None:
    """Refuses a document whose introspection would answer more than `limit()` values; `limit`
    is asked only when the document names `__schema` or `__type` (it may cost a count of the
    standard query)."""
    if mentions_introspection(document):
        answer_size(document, schema, variables, limit())


def mentions_introspection(document: DocumentNode) -> bool:
    stack: list[SelectionSetNode] = [
        d.selection_set
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode | FragmentDefinitionNode)
    ]
    while stack:
        for selection in stack.pop().selections:
            if isinstance(selection, FieldNode) and selection.name.value in INTROSPECTION_ROOTS:
                return True
            below = getattr(selection, "selection_set", None)
            if below is not None:
                stack.append(below)
    return False


def answer_size(
    document: DocumentNode,
    schema: GraphQLSchema,
    variables: Mapping[str, Any],
    limit: int | None,
) -> int:
    """The values the introspection subtrees of `document` answer on `schema`; past `limit`
    (when given) INTROSPECTION_TOO_LARGE is raised at once."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    counter = _Counter(schema, fragments, variables, limit)
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            counter.roots(definition.selection_set)
    return counter.count


class _Counter:
    def __init__(
        self,
        schema: GraphQLSchema,
        fragments: Mapping[str, FragmentDefinitionNode],
        variables: Mapping[str, Any],
        limit: int | None,
    ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.variables = dict(variables)
        self.limit = limit
        self.count = 0

    def add(self, values: int) -> None:
        self.count += values
        if self.limit is not None and self.count > self.limit:
            raise CostLimitExceeded(
                "INTROSPECTION_TOO_LARGE",
                f"the introspection would answer more than {self.limit} values "
                f"({INTROSPECTION_FACTOR} times the standard introspection of this schema)",
            )

    def roots(self, selection_set: SelectionSetNode) -> None:
        """Finds `__schema` and `__type` wherever they are (validation refuses them below the
        root, but this pass runs before it) and counts each occurrence."""
        stack: list[tuple[SelectionSetNode, tuple[str, ...]]] = [(selection_set, ())]
        while stack:
            current, path = stack.pop()
            for selection in current.selections:
                if isinstance(selection, FieldNode):
                    if selection.name.value in INTROSPECTION_ROOTS:
                        self.walk(selection, path)
                    elif selection.selection_set is not None:
                        stack.append((selection.selection_set, path))
                else:
                    below = self._below(selection, path)
                    if below is not None:
                        stack.append(below)

    def walk(self, root: FieldNode, path: tuple[str, ...]) -> None:
        kind, values = self._root(root)
        self.add(1)
        stack: list[_Pending] = []
        self._expand(root, kind, values, path, stack)
        while stack:
            current, kind, value, fragment_path = stack.pop()
            for selection in current.selections:
                if isinstance(selection, FieldNode):
                    self.add(1)
                    if selection.name.value != "__typename":
                        child_kind, children = self._children(kind, value, selection.name.value)
                        self._expand(selection, child_kind, children, fragment_path, stack)
                else:
                    below = self._below(selection, fragment_path)
                    if below is not None:
                        stack.append((below[0], kind, value, below[1]))

    def _expand(
        self,
        node: FieldNode,
        kind: str,
        values: list[Any],
        path: tuple[str, ...],
        stack: list[_Pending],
    ) -> None:
        """Counts the values a field answers and queues its selections on each."""
        if kind == _LEAF:
            self.add(len(values))
        elif node.selection_set is not None:
            for value in values:
                self.add(1)
                stack.append((node.selection_set, kind, value, path))

    def _below(
        self, selection: Any, path: tuple[str, ...]
    ) -> tuple[SelectionSetNode, tuple[str, ...]] | None:
        """The selection set an inline fragment or a spread stands for (a spread already on the
        path is a cycle, which `cost_limits.measure` refuses: skipped here)."""
        if isinstance(selection, InlineFragmentNode):
            return selection.selection_set, path
        if isinstance(selection, FragmentSpreadNode):
            name = selection.name.value
            fragment = self.fragments.get(name)
            if fragment is not None and name not in path:
                return fragment.selection_set, (*path, name)
        return None

    def _root(self, node: FieldNode) -> Children:
        if node.name.value == "__schema":
            return _SCHEMA, [self.schema]
        name = None
        for argument in node.arguments:
            if argument.name.value == "name":
                name = value_from_ast_untyped(argument.value, self.variables)
        found = self.schema.get_type(name) if isinstance(name, str) else None
        return _TYPE, [found] if found is not None else []

    def _children(self, kind: str, value: Any, name: str) -> Children:
        if kind == _SCHEMA:
            return _schema_children(self.schema, name)
        if kind == _TYPE:
            return _type_children(self.schema, value, name)
        if kind in (_FIELD, _INPUT, _DIRECTIVE):
            if name == "type" and kind != _DIRECTIVE:
                return _TYPE, [value.type]
            if name == "args" and kind != _INPUT:
                return _INPUT, list(value.args.values())
            if name == "locations" and kind == _DIRECTIVE:
                return _LEAF, list(value.locations)
        return _LEAF, []


def _schema_children(schema: GraphQLSchema, name: str) -> Children:
    if name == "types":
        return _TYPE, list(schema.type_map.values())
    if name == "directives":
        return _DIRECTIVE, list(schema.directives)
    roots = {
        "queryType": schema.query_type,
        "mutationType": schema.mutation_type,
        "subscriptionType": schema.subscription_type,
    }
    if name in roots:
        found = roots[name]
        return _TYPE, [found] if found is not None else []
    return _LEAF, []


def _type_children(schema: GraphQLSchema, graphql_type: Any, name: str) -> Children:
    if name == "ofType":
        inner = graphql_type.of_type if isinstance(graphql_type, GraphQLWrappingType) else None
        return _TYPE, [inner] if inner is not None else []
    if name == "fields" and isinstance(graphql_type, GraphQLObjectType | GraphQLInterfaceType):
        return _FIELD, list(graphql_type.fields.values())
    if name == "interfaces" and isinstance(graphql_type, GraphQLObjectType | GraphQLInterfaceType):
        return _TYPE, list(graphql_type.interfaces)
    if name == "possibleTypes" and is_abstract_type(graphql_type):
        return _TYPE, list(schema.get_possible_types(graphql_type))
    if name == "enumValues" and isinstance(graphql_type, GraphQLEnumType):
        return _ENUM, list(graphql_type.values.values())
    if name == "inputFields" and isinstance(graphql_type, GraphQLInputObjectType):
        return _INPUT, list(graphql_type.fields.values())
    return _LEAF, []
