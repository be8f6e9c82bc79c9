"""Makes moto's server answer the same things with less CPU: each patch caches a pure result.

Under the soak's delivery pattern, moto 5.2's CPU time per delivery (the claim and outcome
UpdateItems, the endpoint GetItem, the queue's share) bounds every webhook load test on one
core (docs/benchmarks.md). Profiling its server shows work repeated per request whose result
cannot change between requests:

- routing: every request lists moto's package directory (a `stat` per sub-package) and matches
  the host against a few hundred URL regexes to find its backend, and inspects the response
  class's members to find its action; both are fixed per host and per class;
- the response serializer builds, for every member of every value (ten per DynamoDB attribute
  value), the list of names it might be stored under; for a plain dict that list depends only on
  the botocore shape. Even so, walking the botocore shapes of every attribute value of every
  item was the largest part of moto's time for a page of entries. A DynamoDB `AttributeValue`
  that moto holds as plain JSON (S, N, BOOL, NULL, SS, NS, and M or L of those) serializes to
  itself, which is what the walk produces for it; any other value (binary, anything
  unexpected) still takes the walk;
- DynamoDB expressions: the UpdateExpression is parsed twice per request and the condition
  lexed twice, both pure functions of the expression string; the validator deep-copies the
  parsed tree (a pickle round trip is the same copy, much cheaper), and each of its ten
  passes rebuilds its dispatch table at every node and checks node classes through `ABCMeta`;
  its three structural passes (duplicate clauses, overlapping paths, key attributes updated)
  depend only on the expression, the attribute names and the table's keys;
- SQS computes every attribute of a queue (each a walk over all its messages, asking for the
  time through datetime arithmetic per message) for every message sent or received;
- a DynamoDB Query of a table's own key lists and sorts every item of the table (by hash and
  range key, through Python-level comparisons) to keep those of one partition; the list index
  puts hundreds of thousands of items in the content table, so one Query cost the whole table.
  The patch hands that Query the partition's items alone, already in range-key order
  (moto's own sort then finds them sorted), so it costs the partition, not the table; and a
  string's comparison value (`DynamoType.cast_value`, behind every key comparison) is found
  before five type checks that a string always fails;
- a Query of a secondary index (the workspace list, a token by id, the delivery log by
  endpoint, the sweep) sorted every item of the table by the table's keys, through
  Python-level comparisons, before keeping those of the index partition: the schema table,
  which holds the list counts, grew to hundreds of thousands of items under a large type, and
  the content overview's workspace list took seconds. The index Query is handed only the items
  whose index key attributes hold the queried values (one pass, no sort; moto checks them
  again and sorts them by the index's keys and the table's, which decides their order alone);
- a page of such a Query (a `Limit`, no sort-key condition, no legacy `KeyConditions` filter:
  the list index's every read) still made moto compare and sort every item of the partition
  twice in Python and walk to the exclusive start key item by item, so a page of 20 cost the
  whole partition. Each partition's sort keys are now kept in order as items are put and
  deleted (sorted afresh only when their count disagrees with the partition's), the start is
  found by bisection, and moto is handed the `Limit + 1` items its own loop would reach (the
  one past the page is what makes it answer a `LastEvaluatedKey`), so it answers the same
  page, key and counts from a window;
- a `ProjectionExpression` converted the whole item to plain JSON (deep copies, boto3's
  deserializer) once per projected path, for every item read: a BatchGetItem of 20 entries
  with a dozen paths each converted every entry a dozen times. It is converted once per item
  and each path picked from that one conversion (the paths only read it; DynamoDB refuses
  overlapping paths, which are the only ones that could see another path's result);
- building an item checks the 400 KB limit once per attribute, each time summing the sizes
  of every attribute so far (nested maps and lists walked again): quadratic in attributes, the
  largest cost of writing an entry (twenty attributes, values and index keys nested). The
  running total only grows, so one check of the whole item refuses exactly the same items;
- a projection of whole top-level attributes (every list page's BatchGetItem) still converted
  each item to plain JSON and back; it now picks the attributes as held. Only what the round
  trip loses differs: the members of a set keep their stored order (moto's went through a
  Python set, so its order changed from process to process);
- every result is walked to plain JSON (`dynamo_to_dict`) through `isinstance` and `hasattr`
  checks that a plain dict, list or string always fails: those, an item's attribute dict and
  its non-binary values are now decided by exact type first. An item shown in a response
  (`DynamoType.to_regular_json`) deep-copied each map or list value, nested `DynamoType`s
  included, at every level of nesting before converting it; its members are now converted
  into new containers directly (the same value, sharing no container with the stored item).
  Every response body was also searched with a `(?<=<RequestId>).*` substitution meant for XML
  bodies; a body without `<RequestId>` (every JSON one) is no longer searched;
- every look-up of a service's backend for an account (several per request) took moto's one
  process-wide lock, listed the accounts and searched the list of backends in use through a
  Python-level `__eq__` and `__len__` per entry: about a tenth of moto's CPU while a purge's
  misses reach the origin at once. An account already present is returned at once; moto adds
  an account and registers its backend in the same locked step, and a reset empties both, so an
  account present is one moto has registered.

What it rules out: any change a client can see. A cached result is only ever the result moto
itself computed for the same inputs, a request that moto refuses is refused again the same way
(nothing is cached for it), and the test suite runs on it. `install()` runs in the emulator's
process before it serves (`infra.emulator`), so `make run`, the tests, the benchmarks and the
soak all get it.
"""

from __future__ import annotations

import base64
import bisect
import copy
import functools
import pickle
import threading
import time
from collections import deque
from typing import Any

from botocore.utils import merge_dicts
from moto import backends
from moto.core import base_backend, serialize
from moto.core import responses as core_responses
from moto.core import utils as core_utils
from moto.core.constants import MISSING
from moto.dynamodb import comparisons
from moto.dynamodb import exceptions as dynamo_exceptions
from moto.dynamodb import responses as dynamo_responses
from moto.dynamodb.models import dynamo_type
from moto.dynamodb.models import table as dynamodb_table
from moto.dynamodb.models import utilities as dynamo_utilities
from moto.dynamodb.models.dynamo_type import LimitedSizeDict
from moto.dynamodb.models.utilities import find_nested_key
from moto.dynamodb.parsing import ast_nodes as _ast_nodes
from moto.dynamodb.parsing import expressions as _expressions
from moto.dynamodb.parsing import validators
from moto.moto_server import werkzeug_app
from moto.sqs import models as sqs_models

from infra.moto_version import require_pinned

_INSTALLED = False
# moto marks these two modules `type: ignore`, so mypy sees nothing in them.
ast_nodes: Any = _ast_nodes
expressions: Any = _expressions
# The passes of UpdateExpressionValidator that only look at the expression's structure.
_STRUCTURAL_PASSES = (
    validators.ActionCountValidator,
    validators.OverlappingPathsValidator,
    validators.UpdateHashRangeKeyValidator,
)


# -- routing and logging -------------------------------------------------------------------


def _backend_for_host(original: Any) -> Any:
    found: dict[str | None, Any] = {}

    def get_backend_for_host(self: Any, host: str | None) -> Any:
        if host not in found:
            found[host] = original(self, host)
        return found[host]

    return get_backend_for_host


def _known_account_first(original: Any) -> Any:
    def _create_account_specific_backend(self: Any, account_id: str) -> None:
        if not dict.__contains__(self, account_id):
            original(self, account_id)

    return _create_account_specific_backend


# -- response serialization ----------------------------------------------------------------


def _picker_call(original: Any) -> Any:
    keys_for: dict[tuple[Any, ...], tuple[str, ...]] = {}

    def pick(self: Any, context: Any) -> Any:
        obj = context.obj
        if type(obj) is not dict:  # aliases may depend on an object's class and Meta
            return original(self, context)
        shape = context.shape
        cache_key = (
            type(self),
            tuple(self.alias_providers),
            shape,
            getattr(shape, "parent", None),  # set by the serializer as it walks
            context.key,
        )
        keys = keys_for.get(cache_key)
        if keys is None:
            keys = keys_for[cache_key] = tuple(self.get_possible_keys(context))
        value = None
        for possible_key in keys:
            found = core_utils.get_value(obj, possible_key, MISSING)
            if found is not MISSING:
                value = found
                break
        key_path = f"{context.key_path}.{context.key}"
        for transform_path, transform in self.response_transformers.items():
            if key_path.endswith(transform_path):
                return transform(value)
        return value

    return pick


_PLAIN_KINDS = {"S": str, "N": str, "BOOL": bool, "NULL": bool}
_DYNAMODB_SERVICES = frozenset({"dynamodb", "dynamodbstreams"})


def _plain_attribute_value(value: Any) -> dict[str, Any] | None:
    """What moto's JSON serializer makes of a DynamoDB attribute value held as plain JSON: the
    same value (one kind, strings as strings, booleans as booleans, maps and lists member by
    member); None when the serializer itself must decide (binary, or anything unexpected)."""
    if type(value) is not dict or len(value) != 1:
        return None
    ((kind, inner),) = value.items()
    plain = _PLAIN_KINDS.get(kind)
    if plain is not None:
        return {kind: inner} if type(inner) is plain else None
    if kind in ("SS", "NS"):
        if type(inner) is not list or any(type(x) is not str for x in inner):
            return None
        return {kind: list(inner)}
    if kind == "M" and type(inner) is dict:
        members = {}
        for name, member in inner.items():
            serialized = _plain_attribute_value(member)
            if serialized is None:
                return None
            members[name] = serialized
        return {"M": members}
    if kind == "L" and type(inner) is list:
        elements = []
        for element in inner:
            serialized = _plain_attribute_value(element)
            if serialized is None:
                return None
            elements.append(serialized)
        return {"L": elements}
    return None


def _plain_structures(original: Any) -> Any:
    def serialize_structure(self: Any, serialized: Any, value: Any, shape: Any, key: str) -> None:
        if (
            key
            and shape.name == "AttributeValue"
            and self.operation_model.service_model.service_name in _DYNAMODB_SERVICES
        ):
            plain = _plain_attribute_value(value)
            if plain is not None:
                self._default_serialize(serialized, plain, shape, key)
                return
        original(self, serialized, value, shape, key)

    return serialize_structure


# -- DynamoDB expressions ------------------------------------------------------------------


def _clone(value: Any) -> Any:
    """`copy.deepcopy`'s result through pickle's C implementation; deepcopy if it cannot."""
    try:
        # Bytes this line just made from moto's own tree: nothing untrusted is unpickled.
        return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))  # noqa: S301
    except Exception:
        return copy.deepcopy(value)


def _cached_lexer(original: Any) -> Any:
    lexed: dict[str, tuple[Any, ...]] = {}

    def lex(self: Any) -> deque[Any]:
        expression = self.condition_expression
        if expression not in lexed:
            lexed[expression] = tuple(original(self))  # raises, uncached, on a bad one
        return deque(lexed[expression])  # the parser consumes it; its nodes are tuples

    return lex


_IS_NODE: dict[type, bool] = {}
_DESCENDS: dict[type, bool] = {}
# (traverser class, node class) -> the key of its `_processing_map` that applies, or None;
# each traverser class builds its map from the same literal classes.
_MATCH: dict[tuple[type, type], Any] = {}


def _traverse(self: Any, root: Any) -> Any:
    """moto's depth-first pass, with its processing map built once per pass instead of twice
    per node, and the class checks (through `ABCMeta`) answered once per class."""
    processing = self._processing_map()
    traverser_class = type(self)
    before_child = self.pre_processing_of_child

    def visit(node: Any, child_id: int) -> Any:
        node_class = type(node)
        if node_class not in _IS_NODE:
            _IS_NODE[node_class] = issubclass(node_class, ast_nodes.Node)
        if not _IS_NODE[node_class]:
            return node
        parent_node = node.parent
        if node.children is not None:
            for i, child_node in enumerate(node.children):
                before_child(node, i)
                visit(child_node, i)
        key = (traverser_class, node_class)
        if key not in _MATCH:
            _MATCH[key] = next((k for k in processing if issubclass(node_class, k)), None)
        if _MATCH[key] is not None:
            node = processing[_MATCH[key]](node)
            node.parent = parent_node
            if parent_node:
                parent_node.children[child_id] = node
        return node

    return visit(root, -1)


def _find_clauses(self: Any, clause_types: Any) -> list[Any]:
    clauses: list[Any] = []
    for child in self.children or []:
        child_class = type(child)
        if child_class in clause_types:
            clauses.append(child)
            continue
        if child_class not in _DESCENDS:
            _DESCENDS[child_class] = issubclass(
                child_class, (ast_nodes.Expression, ast_nodes.UpdateExpressionFunction)
            )
        if _DESCENDS[child_class]:
            clauses.extend(child.find_clauses(clause_types))
    return clauses


def _cached(parse: Any) -> Any:
    """The tree for an expression string, parsed once; moto's callers only read it (the
    validator works on its own copy)."""
    return functools.lru_cache(maxsize=512)(parse)


def _remembering_validator(original_init: Any) -> tuple[Any, Any]:
    passed: set[tuple[Any, ...]] = set()

    def init(self: Any, expression: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, expression, *args, **kwargs)
        names = self.expression_attribute_names or {}
        # The parsed tree is cached per expression string, so it names the expression.
        self._structure_key = (
            expression,
            tuple(sorted(names.items())),
            tuple(self.table.table_key_attrs),
        )

    def validate(self: Any) -> Any:
        node = self.node_to_validate
        checked = self._structure_key in passed
        for processor in self.processors:
            if checked and isinstance(processor, _STRUCTURAL_PASSES):
                continue
            node = processor.traverse(node)
        passed.add(self._structure_key)  # only reached when every pass accepted it
        return node

    return init, validate


# -- SQS -----------------------------------------------------------------------------------


def _retained(backend: Any, queue_name: str, message: Any) -> bool:
    period = backend.get_queue(queue_name).message_retention_period
    return bool(period + message.sent_timestamp / 1000 > time.time())


def _now(factor: float) -> Any:
    """moto's `unix_time` (factor 1) or `unix_time_millis` (1000): "now" read from
    `time.time()` instead of datetime arithmetic; a given datetime still goes to moto's."""

    def make(original: Any) -> Any:
        def now(dt: Any = None) -> float:
            return time.time() * factor if dt is None else float(original(dt))

        return now

    return make


# -- DynamoDB Query of one partition ----------------------------------------------------------

_querying = threading.local()
# moto's own item size limit (LimitedSizeDict: between DynamoDB's 409 and 410 KB, it says).
_ITEM_SIZE_LIMIT = 405000
# Table.query's positional parameters after hash_key (moto's backend passes them so).
_QUERY_PARAMETERS = (
    "range_comparison",
    "range_objs",
    "limit",
    "exclusive_start_key",
    "scan_index_forward",
    "projection_expressions",
    "index_name",
)
_OTHER_QUERY_KEYWORDS = frozenset(
    {"consistent_read", "filter_expression", "hash_key_conditions", "range_key_conditions"}
)


def _page_window(
    ordered: list[tuple[Any, Any]], hash_key: Any, query: dict[str, Any], range_attr: str
) -> list[tuple[Any, Any]] | None:
    """The (sort value, sort key) pairs moto's loop reaches for one page, in key order; None
    when it may reach more (a sort-key condition, a legacy filter, no limit, or a start key it
    must judge itself)."""
    limit = query.get("limit")
    if query.get("range_comparison") or query.get("filters") or not limit or limit < 1:
        return None
    forward = query.get("scan_index_forward") is not False
    start = query.get("exclusive_start_key")
    if start:
        hash_attr = next(iter(set(start) - {range_attr}), None)
        if len(start) != 2 or range_attr not in start or hash_attr is None:
            return None
        start_hash = dynamo_type.DynamoType(start[hash_attr])
        start_range = dynamo_type.DynamoType(start[range_attr])
        if start_hash != hash_key or (ordered and ordered[0][1].type != start_range.type):
            return None
        position = (bisect.bisect_right if forward else bisect.bisect_left)(
            ordered, start_range.cast_value, key=_sort_value
        )
    else:
        position = 0 if forward else len(ordered)
    if forward:
        return ordered[position : position + limit + 1]
    return ordered[max(0, position - limit - 1) : position]


def _sort_value(pair: tuple[Any, Any]) -> Any:
    return pair[0]


def _key_order(table: Any, hash_key: Any, found: dict[Any, Any]) -> list[tuple[Any, Any]]:
    """The partition's (sort value, sort key) pairs in key order: the order `_keep_order` keeps
    up to date on every put and delete, or, when it does not hold as many keys as the partition
    (a write it did not see, such as a cancelled transaction's rollback), sorted afresh."""
    orders: dict[Any, list[tuple[Any, Any]]] = table.__dict__.setdefault("_key_orders", {})
    ordered = list(orders.get(hash_key, ()))
    if len(ordered) != len(found):
        ordered = sorted(((key.cast_value, key) for key in found), key=_sort_value)
        orders[hash_key] = list(ordered)
    return ordered


def _index_candidates(table: Any, conditions: list[tuple[str, Any]]) -> list[Any]:
    """The items whose index key attributes equal the queried values, as moto's `__eq__`
    judges them (type, then cast value), in no particular order: moto's loop checks them
    again and then sorts by the index's keys and the table's, a total order."""
    wanted = [(name, value.type, value.cast_value) for name, value in conditions]
    found = []
    for held in table.items.values():
        for item in held.values() if table.range_key_attr else (held,):
            attrs = item.attrs
            for name, kind, cast in wanted:
                value = attrs.get(name)
                if value is None or value.type != kind or value.cast_value != cast:
                    break
            else:
                found.append(item)
    return found


def _index_query(original: Any, self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
    """A secondary index's Query, handed only the items of its partition (moto's loop
    otherwise sorts every item of the table by its keys before looking at one)."""
    conditions = kwargs.get("hash_key_conditions")
    if not conditions:
        return original(self, hash_key, *args, **kwargs)
    _querying.partition = (self, _index_candidates(self, conditions))
    try:
        return original(self, hash_key, *args, **kwargs)
    finally:
        _querying.partition = None


def _partition_query(original: Any) -> Any:
    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        named = dict(zip(_QUERY_PARAMETERS, args, strict=False))
        named.update((k, v) for k, v in kwargs.items() if k in _QUERY_PARAMETERS)
        if named.get("index_name"):
            return _index_query(original, self, hash_key, *args, **kwargs)
        if hash_key is None or self.range_key_attr is None:
            return original(self, hash_key, *args, **kwargs)
        found = self.items.get(hash_key) or {}
        ordered = _key_order(self, hash_key, found)
        # Legacy `KeyConditions`/`QueryFilter` terms arrive as extra keywords.
        legacy = set(kwargs) - set(_QUERY_PARAMETERS) - _OTHER_QUERY_KEYWORDS
        named["filters"] = bool(legacy) or bool(kwargs.get("range_key_conditions"))
        window = _page_window(ordered, hash_key, named, self.range_key_attr)
        items = [found.get(key) for _, key in (ordered if window is None else window)]
        if any(item is None for item in items):  # deleted meanwhile: judge the partition whole
            items = sorted(found.values(), key=lambda item: item.range_key.cast_value)
        _querying.partition = (self, items)
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            _querying.partition = None

    return query


def _keep_order(*, adds: bool) -> Any:
    """`Table.put_item` (`adds`) / `delete_item` that also insert or remove the written key in
    the partition's key order (`_key_order`), so a Query need not sort the partition."""

    def make(original: Any) -> Any:
        def write(self: Any, *args: Any, **kwargs: Any) -> Any:
            item = original(self, *args, **kwargs)
            orders = self.__dict__.get("_key_orders")
            if item is None or orders is None or item.range_key is None:
                return item
            ordered = orders.get(item.hash_key)
            if ordered is None:
                return item
            value = item.range_key.cast_value
            at = bisect.bisect_left(ordered, value, key=_sort_value)
            present = at < len(ordered) and ordered[at][0] == value
            if adds and not present:
                ordered.insert(at, (value, item.range_key))
            elif not adds and present:
                del ordered[at]
            return item

        return write

    return make


def _partition_items(original: Any) -> Any:
    """`all_items` for the Query of this thread: that partition's items (or the part of them
    the page needs), in key order."""

    def all_items(self: Any) -> Any:
        scope = getattr(_querying, "partition", None)
        if scope is None or scope[0] is not self:
            return original(self)
        return list(scope[1])

    return all_items


def _project_once(self: Any, projection_expressions: list[list[str]]) -> Any:
    """moto's `Item.project`, with the item converted to plain JSON once, not once per path;
    not at all when every path is a whole top-level attribute (the attribute is picked as it
    is held, in the paths' order, which is what the conversion round trip gives back)."""
    if all(len(path) == 1 and "[" not in path[0] for path in projection_expressions):
        picked = LimitedSizeDict()
        for (name,) in projection_expressions:
            if name in self.attrs:
                dict.__setitem__(picked, name, self.attrs[name])
        projected: Any = dynamo_type.Item.__new__(dynamo_type.Item)
        projected.hash_key, projected.range_key = self.hash_key, self.range_key
        projected.attrs = picked
        return projected
    result: dict[str, Any] = {}
    whole = self.to_regular_json()
    for expression in projection_expressions:
        merge_dicts(result, find_nested_key(expression, whole))
    return dynamo_type.Item(
        hash_key=self.hash_key,
        range_key=self.range_key,
        attrs=dict(dynamo_type.serializer.serialize(result)["M"]),
    )


_IMMUTABLE = (str, bytes, int, float, bool, type(None))
"""The leaves of moto's values: returned as they are by its JSON walk, shared by its deep copy."""
_BINARY_TYPES = ("B", "BS")


def _plain_first(original: Any) -> Any:
    """moto's `dynamo_to_dict` (every response's result is walked through it), deciding plain
    dicts, lists, leaves and an item's non-binary values by their exact type before the
    `isinstance` and `hasattr` checks (and the import) moto runs for each; anything else, a
    binary value included, is moto's."""

    def dynamo_to_dict(obj: Any) -> Any:
        kind = type(obj)
        if kind is dict or kind is LimitedSizeDict:
            return {key: dynamo_to_dict(value) for key, value in obj.items()}
        if kind is dynamo_type.DynamoType and obj.type not in _BINARY_TYPES:
            return {obj.type: dynamo_to_dict(obj.value)}
        if kind is list:
            return [dynamo_to_dict(value) for value in obj]
        if kind in _IMMUTABLE:
            return obj
        return original(obj)

    return dynamo_to_dict


def _fresh(value: Any) -> Any:
    """A nested member as moto's deep copy leaves it: the same object when immutable."""
    if isinstance(value, dynamo_type.DynamoType):
        return _regular_json(value)
    return value if type(value) in _IMMUTABLE else copy.deepcopy(value)


def _regular_json(self: Any) -> dict[str, Any]:
    """moto's `DynamoType.to_regular_json` (behind every item a response shows): a map's or a
    list's members converted into new containers, without first deep-copying the whole value
    (every nested `DynamoType` with it) at each level of nesting."""
    value = self.value
    if isinstance(value, dict):
        value = {key: _fresh(member) for key, member in value.items()}
    elif isinstance(value, list):
        value = [_fresh(member) for member in value]
    if self.is_binary() and isinstance(value, str):
        value = base64.b64decode(value)
    return {self.type: value}


def _request_id_where_present(original: Any) -> Any:
    """moto's `_enrich_response`, which runs a `(?<=<RequestId>).*` substitution over every
    response body to put the request id into XML ones; a JSON body (a page of DynamoDB items)
    has no `<RequestId>`, so the substitution could not change it and is not run over it."""
    enrich = original.__func__ if isinstance(original, staticmethod) else original

    def _enrich_response(headers: dict[str, str], body: Any) -> tuple[dict[str, str], Any]:
        if isinstance(body, str) and "<RequestId>" not in body:
            return enrich(headers, "")[0], body
        enriched: tuple[dict[str, str], Any] = enrich(headers, body)
        return enriched

    return staticmethod(_enrich_response)


def _string_first(original: Any) -> Any:
    getter = original.fget

    def cast_value(self: Any) -> Any:
        return self.value if self.type == "S" else getter(self)

    return property(cast_value)


def _item_init(_original: Any) -> Any:
    def init(self: Any, hash_key: Any, range_key: Any, attrs: dict[str, Any]) -> None:
        self.hash_key = hash_key
        self.range_key = range_key
        values = {key: dynamo_type.DynamoType(value) for key, value in attrs.items()}
        total = sum(dynamo_utilities.bytesize(k) + v.size() for k, v in values.items())
        if total > _ITEM_SIZE_LIMIT:
            raise dynamo_exceptions.ItemSizeTooLarge
        self.attrs = dynamo_type.LimitedSizeDict(values)  # dict.update: no check per key

    return init


ORIGINALS: dict[tuple[Any, str], Any] = {}
"""What each patch replaced, by (owner, name): the tests compare answers with moto's own."""


def _patch(owner: Any, name: str, make: Any) -> None:
    """Sets `owner.name` to `make(current value)`."""
    original = owner.__dict__.get(name, getattr(owner, name))
    ORIGINALS[(owner, name)] = original
    setattr(owner, name, make(getattr(owner, name)))


def install() -> None:
    """Patches this process's moto; calling it again changes nothing."""
    global _INSTALLED
    require_pinned("moto_speedups")
    if _INSTALLED:
        return
    _INSTALLED = True
    modules = tuple(backends.list_of_moto_modules())
    _patch(backends, "list_of_moto_modules", lambda _: lambda: modules)
    _patch(werkzeug_app.DomainDispatcherApplication, "get_backend_for_host", _backend_for_host)
    _patch(core_responses, "method_names_from_class", functools.cache)
    _patch(base_backend.BackendDict, "_create_account_specific_backend", _known_account_first)
    _patch(serialize.AttributePicker, "__call__", _picker_call)
    _patch(serialize.BaseJSONSerializer, "_serialize_type_structure", _plain_structures)

    _patch(
        expressions.UpdateExpressionParser, "make", lambda make: classmethod(_cached(make.__func__))
    )
    _patch(comparisons.ConditionExpressionParser, "_lex_condition_expression", _cached_lexer)
    _patch(validators, "deepcopy", lambda _: _clone)
    _patch(ast_nodes.DepthFirstTraverser, "traverse", lambda _: _traverse)
    _patch(ast_nodes.Node, "find_clauses", lambda _: _find_clauses)
    init, validate = _remembering_validator(validators.UpdateExpressionValidator.__init__)
    _patch(validators.UpdateExpressionValidator, "__init__", lambda _: init)
    _patch(validators.UpdateExpressionValidator, "validate", lambda _: validate)

    _patch(dynamodb_table.Table, "query", _partition_query)
    _patch(dynamodb_table.Table, "all_items", _partition_items)
    _patch(dynamodb_table.Table, "put_item", _keep_order(adds=True))
    _patch(dynamodb_table.Table, "delete_item", _keep_order(adds=False))
    _patch(dynamo_type.DynamoType, "cast_value", _string_first)
    _patch(dynamo_type.Item, "__init__", _item_init)
    _patch(dynamo_type.Item, "project", lambda _: _project_once)
    _patch(dynamo_utilities, "dynamo_to_dict", _plain_first)
    _patch(dynamo_type.DynamoType, "to_regular_json", lambda _: _regular_json)
    _patch(core_responses.BaseResponse, "_enrich_response", _request_id_where_present)
    _patch(dynamo_responses, "dynamo_to_dict", lambda _: dynamo_utilities.dynamo_to_dict)

    _patch(sqs_models, "unix_time", _now(1))
    _patch(sqs_models, "unix_time_millis", _now(1000))
    _patch(sqs_models.SQSBackend, "is_message_valid_based_on_retention_period", lambda _: _retained)
