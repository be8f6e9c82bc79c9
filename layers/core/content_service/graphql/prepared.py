"""Documents that passed the pipeline's checks, per (schema, document text), so a repeated query
skips parsing, the cost pass, the introspection bounds and validation.

A document's validation depends on the schema alone; its cost on the schema, the limits and the
values of the variables that the cost pass reads: those given to `page`, `pageSize`, `id`,
`localeGroupId` and `filter` (or every variable, when the document introspects: the answer
bound reads them all). So an entry remembers which of those values (and limits) passed, and a
request with other values is measured again. Only what passed is kept: a refused document is
refused again the long way, with the same error. Each set of inputs keeps the cost it was
measured at, so an answer reports the same `extensions.cost` whether or not the pass ran
again. The cache is one LRU of PREPARED_DOCUMENTS
entries for the process, keyed by the built schema's cache key (workspace, schema version,
visible types, writability) and the text.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    ArgumentNode,
    DocumentNode,
    FieldNode,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    ValueNode,
    VariableNode,
)

from content_service.graphql.cost_limits import Cost
from content_service.graphql.introspection_bound import mentions_introspection
from content_service.settings import GraphQLLimits

PREPARED_DOCUMENTS = 512
MEASURED_PER_DOCUMENT = 32
COST_ARGUMENTS = frozenset({"page", "pageSize", "id", "localeGroupId", "filter"})
"""The arguments whose values the cost pass reads (`cost_limits`)."""


@dataclass
class Prepared:
    """A document that passed on one schema, and the inputs its cost passed with."""

    document: DocumentNode
    operation: OperationDefinitionNode
    cost_variables: tuple[str, ...] | None
    """The variables the cost depends on; None: all of them."""
    measured: OrderedDict[tuple[GraphQLLimits, str], Cost] = field(default_factory=OrderedDict)

    def cost_inputs(
        self, limits: GraphQLLimits, variables: Mapping[str, Any] | None
    ) -> tuple[GraphQLLimits, str]:
        given = variables or {}
        names = sorted(given) if self.cost_variables is None else self.cost_variables
        # Absent and null differ to the cost pass (an absent `id` does not address one record).
        values = [(name in given, given.get(name)) for name in names]
        return limits, json.dumps([names, values], sort_keys=True, separators=(",", ":"))


class PreparedDocuments:
    def __init__(self, size: int = PREPARED_DOCUMENTS) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[Hashable, str], Prepared] = OrderedDict()

    def get(self, schema_key: Hashable, query: str) -> Prepared | None:
        with self._lock:
            found = self._entries.get((schema_key, query))
            if found is not None:
                self._entries.move_to_end((schema_key, query))
            return found

    def passed(
        self,
        schema_key: Hashable,
        query: str,
        entry: Prepared,
        cost_inputs: tuple[GraphQLLimits, str],
        cost: Cost,
    ) -> None:
        """Remembers that `entry`'s document passed with these cost inputs, at `cost`."""
        with self._lock:
            entry.measured[cost_inputs] = cost
            while len(entry.measured) > MEASURED_PER_DOCUMENT:
                entry.measured.popitem(last=False)
            self._entries[(schema_key, query)] = entry
            self._entries.move_to_end((schema_key, query))
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def measured(self, entry: Prepared, cost_inputs: tuple[GraphQLLimits, str]) -> Cost | None:
        """The cost `entry` passed with for these inputs; None when not measured with them."""
        with self._lock:
            return entry.measured.get(cost_inputs)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def prepared_entry(document: DocumentNode, operation: OperationDefinitionNode) -> Prepared:
    names = None if mentions_introspection(document) else _cost_variables(document)
    return Prepared(document, operation, names)


def _cost_variables(document: DocumentNode) -> tuple[str, ...]:
    """The variables used in the arguments the cost pass reads, anywhere in the document."""
    names: set[str] = set()
    stack: list[Any] = list(document.definitions)
    while stack:
        node = stack.pop()
        if isinstance(node, FieldNode):
            for argument in node.arguments or ():
                if argument.name.value in COST_ARGUMENTS:
                    names.update(_variables_in(argument))
        selection_set = getattr(node, "selection_set", None)
        if selection_set is not None:
            stack.extend(selection_set.selections)
    return tuple(sorted(names))


def _variables_in(argument: ArgumentNode) -> set[str]:
    found: set[str] = set()
    values: list[ValueNode] = [argument.value]
    while values:
        value = values.pop()
        if isinstance(value, VariableNode):
            found.add(value.name.value)
        elif isinstance(value, ListValueNode):
            values.extend(value.values)
        elif isinstance(value, ObjectValueNode):
            values.extend(f.value for f in value.fields)
    return found


prepared = PreparedDocuments()
