"""The request pipeline, in this order; a refusal at any step runs no resolver:

1. the request (`graphql.transport`): the POST body or the GET parameters, with a string
   `query` or a persisted document's hash, an object (or null) `variables` within bounds, and
   an optional string `operationName`;
2. (the route authenticates, picks the cached schema of the caller's grant set, and turns a
   persisted document's hash into its text: `graphql.persisted`);
3. the length limit, before parsing (`cost_limits.check_length`);
4. parsing (successful parses are kept in a small LRU keyed by the document text); a syntax
   error carries its `locations`;
5. the cost limits in one bounded pass over the syntax tree (`cost_limits.measure`: exactly one
   operation, depth, fields, complexity, fragment cycles, REST's bounds of `page` and
   `pageSize`; introspection exempt), before graphql-core's validation, whose
   overlapping-fields rule is slow on alias bombs; then the exempt introspection subtrees on
   their own terms: the document (`cost_limits.check_introspection`), then the size of their
   answer on this schema (`introspection_bound`);
6. `operationName`, when given, must name the document's operation; a mutation is refused over
   GET (405, GraphQL over HTTP) and needs a schema with mutations (a caller who cannot write
   gets none: FORBIDDEN);
7. graphql-core's validation with all of its specified rules (`rules=` replaces the defaults,
   so they are passed explicitly). A document that passed steps 4 to 7 is
   remembered per (schema, text) with the inputs its cost passed with (`graphql.prepared`), so
   a repeated query skips them;
   A document sent with its hash to persist is stored now that it passed (`graphql.persisted`);
8. execution (async: resolvers await the service in worker threads, with DataLoaders made for
   this request alone, since Mangum reuses one event loop across invocations). The answer's
   `extensions.cost` reports the complexity the cost pass counted and its limit.

The route runs all of it off the server's event loop (`graphql.worker`).
"""

from __future__ import annotations

import asyncio
import inspect
from collections import OrderedDict
from collections.abc import Callable, Mapping
from types import CoroutineType
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionContext,
    FieldNode,
    GraphQLError,
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSyntaxError,
    OperationDefinitionNode,
    OperationType,
    Undefined,
    execute,
    located_error,
    parse,
    specified_rules,
    validate,
)
from graphql.pyutils import Path

from content_service.graphql import persisted
from content_service.graphql.built import BuiltSchema
from content_service.graphql.context import NOT_READY, Context
from content_service.graphql.cost_limits import (
    Cost,
    CostLimitExceeded,
    check_introspection,
    check_length,
    measure,
    single_operation,
)
from content_service.graphql.errors import RequestError, format_error
from content_service.graphql.introspection_bound import check_answer_size
from content_service.graphql.prepared import prepared, prepared_entry
from content_service.graphql.transport import GraphQLRequest
from content_service.identity.principal import Caller
from content_service.settings import GraphQLLimits

PARSED_DOCUMENTS = 256
MAX_VALIDATION_ERRORS = 20
MAX_COERCION_ERRORS = 20
VALIDATION_RULES = (*specified_rules,)
"""All of graphql-core's rules: `validate(rules=...)` replaces the defaults, never extends them."""


class _Documents:
    """Parsed documents by text (LRU): parsing the same query again is skipped."""

    def __init__(self, size: int = PARSED_DOCUMENTS) -> None:
        self.size = size
        self.entries: OrderedDict[str, DocumentNode] = OrderedDict()

    def parse(self, query: str) -> DocumentNode:
        found = self.entries.get(query)
        if found is not None:
            self.entries.move_to_end(query)
            return found
        try:
            document = parse(query)
        except GraphQLSyntaxError as error:
            locations = [{"line": at.line, "column": at.column} for at in error.locations or ()]
            raise RequestError("GRAPHQL_PARSE_FAILED", error.message, locations=locations) from None
        except RecursionError:
            raise RequestError("TOO_DEEP", "the document nests too deeply to parse") from None
        self.entries[query] = document
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)
        return document


documents = _Documents()


def prepare(
    built: BuiltSchema, request: GraphQLRequest, limits: GraphQLLimits
) -> tuple[DocumentNode, Cost]:
    """Steps 3 to 7: the document, parsed, measured and validated, with its cost, or a
    RequestError. A document that passed on this schema, with the same limits and the same
    values of the variables its cost reads, is taken from `prepared` (only the operation is
    checked again)."""
    try:
        check_length(request.query, limits)
    except CostLimitExceeded as error:
        raise RequestError(error.code, error.message) from None
    entry = prepared.get(built.key, request.query)
    if entry is not None:
        inputs = entry.cost_inputs(limits, request.variables)
        known = prepared.measured(entry, inputs)
        if known is not None:
            _check_operation(built, entry.operation, request)
            return entry.document, known
    try:
        document = documents.parse(request.query)
        cost = measure(document, built.cost_model, limits, request.variables)
        check_introspection(document)
        check_answer_size(
            document, built.schema, request.variables or {}, lambda: built.introspection_limit
        )
        operation = single_operation(document)
    except CostLimitExceeded as error:
        raise RequestError(error.code, error.message) from None
    except RecursionError:
        raise RequestError("TOO_DEEP", "the document nests too deeply") from None
    _check_operation(built, operation, request)
    if entry is None:
        try:
            errors = validate(
                built.schema, document, VALIDATION_RULES, max_errors=MAX_VALIDATION_ERRORS
            )
        except RecursionError:
            raise RequestError("TOO_DEEP", "the document nests too deeply") from None
        if errors:
            raise _ValidationFailed(errors)
        entry = prepared_entry(document, operation)
    prepared.passed(
        built.key, request.query, entry, entry.cost_inputs(limits, request.variables), cost
    )
    return document, cost


def _check_operation(
    built: BuiltSchema, operation: OperationDefinitionNode, request: GraphQLRequest
) -> None:
    """Step 6: `operationName` names the document's operation, the method allows it, and the
    schema has its root."""
    operation_name = request.operation_name
    if operation_name is not None:
        name = operation.name.value if operation.name is not None else None
        if name != operation_name:
            raise RequestError(
                "OPERATION_RESOLUTION_FAILURE",
                f"unknown operation named {operation_name[:100]!r}",
            )
    if request.read_only and operation.operation is not OperationType.QUERY:
        raise RequestError(
            "METHOD_NOT_ALLOWED",
            f"a {operation.operation.value} cannot be sent with GET: use POST",
            405,
        )
    if built.schema.get_root_type(operation.operation) is None:
        if operation.operation is OperationType.MUTATION and not built.writable:
            raise RequestError(
                "FORBIDDEN",
                "this caller cannot write: mutations need a full token with content:write, "
                "or a signed-in user",
                403,
            )
        raise RequestError(
            "GRAPHQL_VALIDATION_FAILED",
            f"this schema has no {operation.operation.value} operations",
        )


def _execution_class(built: BuiltSchema) -> type[ExecutionContext]:
    cls: type[ExecutionContext] | None = built.execution_class
    if cls is None:
        cls = type("Execution", (_Execution,), {"leaves": built.leaves, "directs": built.directs})
        built.execution_class = cls
    return cls


class _ValidationFailed(Exception):
    def __init__(self, errors: list[GraphQLError]) -> None:
        super().__init__("validation failed")
        self.errors = errors


_AWAITABLE = (CoroutineType, asyncio.Future)


def _is_awaitable(value: Any) -> bool:
    """Resolvers here are coroutine functions and graphql-core's own awaitables are coroutines:
    a cheaper test than graphql-core's general one, run for every field."""
    return isinstance(value, _AWAITABLE)


_MISSING = object()
Step = tuple[str, list[FieldNode], Any, Any]
"""(response name, field nodes, leaf or None, (ready, field) or None) for one field."""


class _Execution(ExecutionContext):
    """graphql-core's executor with direct paths for what needs no resolver call.

    - A leaf (`BuiltSchema.leaves`: an entry's system and value fields, a page's total) is read
      and serialized in place, without a Path, a ResolveInfo or an awaitable test.
    - A direct field (`BuiltSchema.directs`: a page's items, a relation whose targets were read
      ahead) asks its ready function for the value; when it has one, the value is completed
      here: an object by executing its fields, a list of objects item by item, without the
      resolver, its ResolveInfo and graphql-core's value completion for each row. Errors are
      located and propagated exactly as graphql-core's `execute_field` and
      `complete_list_value` do.

    Anything else, and anything unusual (a value not ready, null in a non-null field, a value
    the type cannot serialize, an item that is not a plain object), takes graphql-core's own
    path, which produces the usual result or error.
    """

    leaves: Mapping[tuple[str, str], Any] = {}
    directs: Mapping[tuple[str, str], Any] = {}

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        fields: dict[str, list[FieldNode]],
    ) -> Any:
        plan = self._plan(parent_type, fields)
        if plan is None:
            return super().execute_fields(parent_type, source_value, path, fields)
        results: dict[str, Any] = {}
        awaitable_fields: list[str] = []
        for response_name, nodes, leaf, direct in plan:
            result: Any = _MISSING
            if leaf is not None:
                result = _read_leaf(leaf, source_value)
                if result is not _MISSING:
                    results[response_name] = result
                    continue
            elif direct is not None:
                result = self._execute_direct(
                    direct, parent_type, source_value, nodes, path, response_name
                )
            if result is _MISSING:
                result = self.execute_field(
                    parent_type, source_value, nodes, Path(path, response_name, parent_type.name)
                )
                if result is Undefined:
                    continue
            if _is_awaitable(result):
                awaitable_fields.append(response_name)
            results[response_name] = result
        if not awaitable_fields:
            return results

        async def get_results() -> dict[str, Any]:
            done = await asyncio.gather(*(results[name] for name in awaitable_fields))
            results.update(zip(awaitable_fields, done, strict=True))
            return results

        return get_results()

    def _plan(
        self, parent_type: GraphQLObjectType, fields: dict[str, list[FieldNode]]
    ) -> list[Step] | None:
        """The fields' steps, made once per request for each selection (`fields` is
        graphql-core's cached collection, the same object for every row); None when no field
        has a direct path."""
        plans: dict[tuple[str, int], list[Step] | None] = self.__dict__.setdefault("_plans", {})
        key = (parent_type.name, id(fields))
        if key in plans:
            return plans[key]
        plan: list[Step] = []
        for name, nodes in fields.items():
            field_key = (parent_type.name, nodes[0].name.value)
            leaf = self.leaves.get(field_key)
            direct = None
            binder = self.directs.get(field_key) if leaf is None else None
            if binder is not None:
                graphql_field = parent_type.fields[nodes[0].name.value]
                ready = binder(self, graphql_field, nodes)
                direct = (ready, graphql_field) if ready is not None else None
            plan.append((name, nodes, leaf, direct))
        found = plan if any(leaf or direct for _, _, leaf, direct in plan) else None
        plans[key] = found
        return found

    def _execute_direct(
        self,
        direct: tuple[Callable[[Any], Any], GraphQLField],
        parent_type: GraphQLObjectType,
        source: Any,
        nodes: list[FieldNode],
        path: Path | None,
        response_name: str,
    ) -> Any:
        """graphql-core's `execute_field` for a value that is ready; _MISSING when it is not."""
        ready, graphql_field = direct
        try:
            value = ready(source)
        except Exception:
            return _MISSING  # graphql-core's path reports it
        if value is NOT_READY:
            return _MISSING
        field_path = Path(path, response_name, parent_type.name)
        return_type = graphql_field.type
        try:
            completed = self._complete(graphql_field, parent_type, nodes, field_path, value)
        except Exception as raw_error:
            error = located_error(raw_error, nodes, field_path.as_list())
            self.handle_field_error(error, return_type, field_path)
            return None
        if not _is_awaitable(completed):
            return completed

        async def await_completed() -> Any:
            try:
                return await completed
            except Exception as raw_error:
                error = located_error(raw_error, nodes, field_path.as_list())
                self.handle_field_error(error, return_type, field_path)
                return None

        return await_completed()

    def _complete(
        self,
        graphql_field: GraphQLField,
        parent_type: GraphQLObjectType,
        nodes: list[FieldNode],
        path: Path,
        value: Any,
    ) -> Any:
        """`complete_value` for a field's value: objects and lists of objects directly,
        anything else through graphql-core with a ResolveInfo built for it."""
        return_type = graphql_field.type
        inner: Any = return_type
        if isinstance(return_type, GraphQLNonNull):
            inner = return_type.of_type
        if value is None:
            if inner is not return_type:
                raise TypeError(
                    "Cannot return null for non-nullable field"
                    f" {parent_type.name}.{nodes[0].name.value}."
                )
            return None
        if isinstance(inner, GraphQLObjectType) and inner.is_type_of is None:
            return self.execute_fields(inner, value, path, self.collect_subfields(inner, nodes))
        if isinstance(inner, GraphQLList) and isinstance(value, list):
            object_type = _object_items(inner, value)
            if object_type is not None:
                return self._complete_objects(inner.of_type, object_type, nodes, path, value)
        info = self.build_resolve_info(graphql_field, nodes, parent_type, path)
        return self.complete_value(return_type, nodes, info, path, value)

    def _complete_objects(
        self,
        item_type: Any,
        object_type: GraphQLObjectType,
        nodes: list[FieldNode],
        path: Path,
        items: list[Any],
    ) -> Any:
        """`complete_list_value` for a list of plain objects."""
        sub_fields = self.collect_subfields(object_type, nodes)
        completed: list[Any] = []
        awaitable_indices: list[int] = []
        for index, item in enumerate(items):
            item_path = path.add_key(index, None)
            try:
                result = self.execute_fields(object_type, item, item_path, sub_fields)
                if _is_awaitable(result):
                    result = self._guarded(result, nodes, item_type, item_path)
                    awaitable_indices.append(index)
            except Exception as raw_error:
                error = located_error(raw_error, nodes, item_path.as_list())
                self.handle_field_error(error, item_type, item_path)
                result = None
            completed.append(result)
        if not awaitable_indices:
            return completed

        async def get_completed() -> list[Any]:
            done = await asyncio.gather(*(completed[i] for i in awaitable_indices))
            for index, result in zip(awaitable_indices, done, strict=True):
                completed[index] = result
            return completed

        return get_completed()

    async def _guarded(
        self, awaitable: Any, nodes: list[FieldNode], item_type: Any, item_path: Path
    ) -> Any:
        try:
            return await awaitable
        except Exception as raw_error:
            error = located_error(raw_error, nodes, item_path.as_list())
            self.handle_field_error(error, item_type, item_path)
            return None


def _object_items(list_type: GraphQLList[Any], items: list[Any]) -> GraphQLObjectType | None:
    """The object type of a list whose items are all plain values of it (no null, error or
    awaitable), which the executor completes directly; None otherwise."""
    item_type = list_type.of_type
    object_type = item_type.of_type if isinstance(item_type, GraphQLNonNull) else item_type
    if not isinstance(object_type, GraphQLObjectType) or object_type.is_type_of is not None:
        return None
    for item in items:
        if item is None or isinstance(item, Exception) or _is_awaitable(item):
            return None
    return object_type


def _one_root_field(document: DocumentNode) -> bool:
    """The (single) operation selects one field at its root, so its resolver is the only one
    that runs until it returns."""
    operation = single_operation(document)
    selections = operation.selection_set.selections
    return len(selections) == 1 and isinstance(selections[0], FieldNode)


def _read_leaf(leaf: Any, source: Any) -> Any:
    getter, serialize, non_null = leaf
    try:
        value = getter(source)
        if value is None:
            return _MISSING if non_null else None
        serialized = serialize(value)
    except Exception:
        return _MISSING  # graphql-core's path reports it
    if serialized is None or serialized is Undefined:
        return _MISSING
    return serialized


async def run(
    built: BuiltSchema,
    caller: Caller,
    workspace_id: str,
    request: GraphQLRequest,
    limits: GraphQLLimits,
) -> dict[str, Any]:
    """The response body for one request: `{data?, errors?, extensions?}`."""
    try:
        document, cost = prepare(built, request, limits)
    except RequestError as error:
        return {"errors": [error.to_json()]}
    except _ValidationFailed as failed:
        return {"errors": [format_error(e, "GRAPHQL_VALIDATION_FAILED") for e in failed.errors]}
    if request.persist_as is not None:
        persisted.register(caller, workspace_id, request.persist_as, request.query)
    context = Context(
        caller=caller,
        workspace_id=workspace_id,
        types=built.types,
        relations=built.relations,
        alone=_one_root_field(document),
    )
    try:
        outcome = execute(
            built.schema,
            document,
            context_value=context,
            variable_values=request.variables,
            operation_name=request.operation_name,
            max_coercion_errors=MAX_COERCION_ERRORS,
            execution_context_class=_execution_class(built),
            is_awaitable=_is_awaitable,
        )
        result = await outcome if inspect.isawaitable(outcome) else outcome
    except RecursionError:
        return {"errors": [RequestError("TOO_DEEP", "the variables nest too deeply").to_json()]}
    body: dict[str, Any] = {}
    errors = result.errors or []
    started = result.data is not None or any(e.path is not None for e in errors)
    if started:
        body["data"] = result.data
    if errors:
        body["errors"] = [format_error(e) for e in errors]
    if started:
        body["extensions"] = {
            "cost": {"requested": cost.complexity, "limit": limits.max_complexity}
        }
    return body
