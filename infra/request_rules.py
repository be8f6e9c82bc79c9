"""The rules DynamoDB and SQS hold a request to and the emulator does not (docs/decisions.md).

moto accepts requests AWS refuses: an `ExpressionAttributeValues` entry no expression uses inside
`TransactWriteItems`, an `ExclusiveStartKey` outside the key condition (moto answers an empty
page), a strongly consistent read of a global index, an SQS delay over 15 minutes. Each rule here
is one of AWS's documented refusals, named, and `check` raises `RequestRefused` with the rule's
name for the first one a request breaks. The parameters are botocore's, before serialisation:
low-level attribute values (`{"S": "..."}`), as boto3's client and PynamoDB send them.

Rules that need a table's keys (which index is global, what a start key must hold, which
attributes of a put item form its key) take them from `tables`; a table not named there is
judged by the other rules only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

# DynamoDB: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
MAX_ITEM_BYTES = 400 * 1024
MAX_EXPRESSION_BYTES = 4 * 1024
MAX_BATCH_GET_KEYS = 100
MAX_BATCH_WRITE_REQUESTS = 25
MAX_TRANSACTION_ACTIONS = 100
MAX_TRANSACTION_BYTES = 4 * 1024 * 1024
# SQS: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html
# 256 KiB is the smallest maximum any queue has (a queue may allow up to 1 MiB).
MAX_SQS_BATCH_ENTRIES = 10
MAX_SQS_MESSAGE_BYTES = 256 * 1024
MAX_SQS_DELAY_SECONDS = 900
MAX_SQS_VISIBILITY_SECONDS = 43200
MAX_SQS_WAIT_SECONDS = 20
_SQS_BATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")
# Characters an SQS message may hold (#x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | ...).
_SQS_BAD_CHARACTER = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

RULES: dict[str, str] = {
    "expression-value-unused": "an ExpressionAttributeValues entry no expression uses",
    "expression-value-undefined": "an expression uses a :value ExpressionAttributeValues lacks",
    "expression-name-unused": "an ExpressionAttributeNames entry no expression uses",
    "expression-name-undefined": "an expression uses a #name ExpressionAttributeNames lacks",
    "expression-map-empty": "ExpressionAttributeNames or ExpressionAttributeValues is {}",
    "expression-too-long": f"an expression longer than {MAX_EXPRESSION_BYTES} bytes",
    "document-paths-overlap": "an update or projection naming one path twice or one inside another",
    "batch-get-too-many-keys": f"BatchGetItem with more than {MAX_BATCH_GET_KEYS} keys",
    "batch-get-duplicate-keys": "BatchGetItem asking for one key twice",
    "batch-write-too-many-requests": (
        f"BatchWriteItem with more than {MAX_BATCH_WRITE_REQUESTS} requests"
    ),
    "batch-write-duplicate-keys": "BatchWriteItem writing one item twice",
    "transaction-too-many-actions": f"a transaction of more than {MAX_TRANSACTION_ACTIONS} actions",
    "transaction-too-large": f"a transaction of more than {MAX_TRANSACTION_BYTES} bytes",
    "transaction-duplicate-item": "a transaction with two actions on one item",
    "item-too-large": f"an item of more than {MAX_ITEM_BYTES} bytes",
    "consistent-read-on-global-index": "ConsistentRead on a global secondary index",
    "start-key-invalid": "an ExclusiveStartKey that is not exactly the table's and index's keys",
    "start-key-outside-key-condition": "an ExclusiveStartKey the key condition excludes",
    "sqs-batch-size": f"an SQS batch of no entry or more than {MAX_SQS_BATCH_ENTRIES}",
    "sqs-batch-ids": "SQS batch entry ids repeated or not 1-80 of [A-Za-z0-9_-]",
    "sqs-message-too-large": f"an SQS message or batch of more than {MAX_SQS_MESSAGE_BYTES} bytes",
    "sqs-message-characters": "an SQS message body with a character SQS does not allow",
    "sqs-delay-out-of-range": f"an SQS DelaySeconds outside 0-{MAX_SQS_DELAY_SECONDS}",
    "sqs-receive-out-of-range": (
        "ReceiveMessage or ChangeMessageVisibility with MaxNumberOfMessages outside 1-10, "
        f"WaitTimeSeconds outside 0-{MAX_SQS_WAIT_SECONDS} or VisibilityTimeout outside "
        f"0-{MAX_SQS_VISIBILITY_SECONDS}"
    ),
}


class RequestRefused(Exception):
    """AWS would refuse this request; `rule` is the name of the rule it breaks (`RULES`)."""

    def __init__(self, rule: str, operation: str, detail: str) -> None:
        super().__init__(f"AWS would refuse {operation}: rule {rule}: {detail}")
        self.rule = rule
        self.operation = operation
        self.detail = detail


@dataclass(frozen=True)
class IndexSchema:
    keys: tuple[str, ...]
    global_index: bool


@dataclass(frozen=True)
class TableSchema:
    """A table's key attributes (hash, then range) and its secondary indexes by name."""

    keys: tuple[str, ...]
    indexes: Mapping[str, IndexSchema] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "keys": list(self.keys),
            "indexes": {
                name: {"keys": list(index.keys), "global": index.global_index}
                for name, index in self.indexes.items()
            },
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> TableSchema:
        indexes = {
            str(name): IndexSchema(tuple(map(str, spec["keys"])), bool(spec["global"]))
            for name, spec in (raw.get("indexes") or {}).items()
        }
        return cls(tuple(map(str, raw["keys"])), indexes)


Tables = Mapping[str, TableSchema]


def check(service: str, operation: str, params: Mapping[str, Any], tables: Tables) -> None:
    """Raises `RequestRefused` for the first rule the request breaks; None when AWS takes it."""
    if service == "dynamodb":
        _check_dynamodb(operation, params, tables)
    elif service == "sqs":
        _check_sqs(operation, params)


# -- expressions -------------------------------------------------------------------------

_EXPRESSIONS = (
    "KeyConditionExpression",
    "FilterExpression",
    "ConditionExpression",
    "UpdateExpression",
    "ProjectionExpression",
)
_NAME = re.compile(r"#[A-Za-z0-9_]+")
_VALUE = re.compile(r":[A-Za-z0-9_]+")


def _check_expressions(operation: str, unit: Mapping[str, Any]) -> None:
    """One request (or one action of a transaction) with its expressions and maps."""
    expressions = [str(unit[k]) for k in _EXPRESSIONS if unit.get(k) is not None]
    for expression in expressions:
        if len(expression.encode("utf-8")) > MAX_EXPRESSION_BYTES:
            raise RequestRefused("expression-too-long", operation, f"{len(expression)} bytes")
    text = " ".join(expressions)
    for key, pattern, kind in (
        ("ExpressionAttributeNames", _NAME, "name"),
        ("ExpressionAttributeValues", _VALUE, "value"),
    ):
        given = unit.get(key)
        if given is not None and not given:
            raise RequestRefused("expression-map-empty", operation, f"{key} must not be empty")
        defined = set(given or ())
        used = set(pattern.findall(text))
        if defined - used:
            raise RequestRefused(
                f"expression-{kind}-unused",
                operation,
                f"{key} unused in expressions: {', '.join(sorted(defined - used))}",
            )
        if used - defined:
            raise RequestRefused(
                f"expression-{kind}-undefined",
                operation,
                f"{', '.join(sorted(used - defined))} used but not in {key}",
            )
    _check_paths(operation, unit)


def _split_top_level(text: str, separator: str = ",") -> list[str]:
    """`text` split on `separator` outside parentheses and brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for character in text:
        if character in "([":
            depth += 1
        elif character in ")]":
            depth -= 1
        if character == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(character)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


_CLAUSE = re.compile(r"\b(SET|REMOVE|ADD|DELETE)\b", re.IGNORECASE)


def _update_paths(expression: str) -> Iterator[str]:
    """The document path each action of an UpdateExpression writes."""
    pieces = _CLAUSE.split(expression)
    for keyword, body in zip(pieces[1::2], pieces[2::2], strict=True):
        for action in _split_top_level(body):
            if keyword.upper() == "SET":
                yield action.split("=", 1)[0].strip()
            else:
                yield action.split()[0].strip()


def _resolved(path: str, names: Mapping[str, Any]) -> tuple[str, ...]:
    segments = re.split(r"\.|(?=\[)", path.replace(" ", ""))
    return tuple(str(names.get(s, s)) for s in segments if s)


def _check_paths(operation: str, unit: Mapping[str, Any]) -> None:
    names = unit.get("ExpressionAttributeNames") or {}
    for key in ("UpdateExpression", "ProjectionExpression"):
        expression = unit.get(key)
        if not expression:
            continue
        paths = (
            list(_update_paths(expression))
            if key == "UpdateExpression"
            else _split_top_level(expression)
        )
        resolved = [_resolved(p, names) for p in paths]
        for i, one in enumerate(resolved):
            for other in resolved[i + 1 :]:
                shorter = min(len(one), len(other))
                if one[:shorter] == other[:shorter]:
                    raise RequestRefused(
                        "document-paths-overlap",
                        operation,
                        f"{key}: {'.'.join(one)} and {'.'.join(other)} overlap",
                    )


# -- sizes -------------------------------------------------------------------------------


def _number_size(text: str) -> int:
    """DynamoDB's size of a number: about one byte per two significant digits, plus one."""
    try:
        digits = Decimal(text).normalize().as_tuple().digits
    except InvalidOperation:
        return len(text)
    return min(21, (len(digits) + 1) // 2 + 1)


def value_size(value: Mapping[str, Any]) -> int:
    """The bytes DynamoDB counts for one attribute value (its item-size rules)."""
    ((kind, raw),) = value.items()
    sizers: dict[str, Callable[[Any], int]] = {
        "S": lambda s: len(str(s).encode("utf-8")),
        "N": lambda n: _number_size(str(n)),
        "B": lambda b: len(b),
        "BOOL": lambda _: 1,
        "NULL": lambda _: 1,
        "SS": lambda ss: sum(len(str(s).encode("utf-8")) for s in ss),
        "NS": lambda ns: sum(_number_size(str(n)) for n in ns),
        "BS": lambda bs: sum(len(b) for b in bs),
        "L": lambda items: 3 + sum(1 + value_size(v) for v in items),
        "M": lambda members: (
            3 + sum(1 + len(k.encode()) + value_size(v) for k, v in members.items())
        ),
    }
    return sizers[kind](raw) if kind in sizers else len(json.dumps(raw, default=str))


def item_size(item: Mapping[str, Any]) -> int:
    return sum(len(name.encode("utf-8")) + value_size(v) for name, v in item.items())


def _check_item(operation: str, item: Mapping[str, Any]) -> int:
    size = item_size(item)
    if size > MAX_ITEM_BYTES:
        raise RequestRefused("item-too-large", operation, f"{size} bytes")
    return size


# -- DynamoDB ----------------------------------------------------------------------------


def _key_of(item: Mapping[str, Any], schema: TableSchema | None) -> str | None:
    if schema is None:
        return None
    return json.dumps({k: item.get(k) for k in schema.keys}, sort_keys=True, default=str)


def _check_dynamodb(operation: str, params: Mapping[str, Any], tables: Tables) -> None:
    checks: dict[str, Callable[[str, Mapping[str, Any], Tables], None]] = {
        "TransactWriteItems": _check_transact_write,
        "TransactGetItems": _check_transact_get,
        "BatchGetItem": _check_batch_get,
        "BatchWriteItem": _check_batch_write,
        "Query": _check_query,
        "Scan": _check_scan,
    }
    if operation in checks:
        checks[operation](operation, params, tables)
        return
    _check_expressions(operation, params)
    if operation == "PutItem":
        _check_item(operation, params.get("Item") or {})


def _check_transact_write(operation: str, params: Mapping[str, Any], tables: Tables) -> None:
    actions = params.get("TransactItems") or []
    if len(actions) > MAX_TRANSACTION_ACTIONS:
        raise RequestRefused("transaction-too-many-actions", operation, f"{len(actions)} actions")
    total = 0
    seen: set[tuple[str, str]] = set()
    for action in actions:
        ((kind, body),) = action.items()
        _check_expressions(f"{operation} {kind}", body)
        table = str(body.get("TableName"))
        if kind == "Put":
            item = body.get("Item") or {}
            total += _check_item(f"{operation} Put", item)
            key = _key_of(item, tables.get(table))
        else:
            total += item_size(body.get("Key") or {})
            key = json.dumps(body.get("Key"), sort_keys=True, default=str)
        total += sum(value_size(v) for v in (body.get("ExpressionAttributeValues") or {}).values())
        if key is not None and (table, key) in seen:
            raise RequestRefused("transaction-duplicate-item", operation, f"{table} {key}")
        if key is not None:
            seen.add((table, key))
    if total > MAX_TRANSACTION_BYTES:
        raise RequestRefused("transaction-too-large", operation, f"about {total} bytes")


def _check_transact_get(operation: str, params: Mapping[str, Any], tables: Tables) -> None:
    actions = params.get("TransactItems") or []
    if len(actions) > MAX_TRANSACTION_ACTIONS:
        raise RequestRefused("transaction-too-many-actions", operation, f"{len(actions)} actions")
    seen: set[str] = set()
    for action in actions:
        body = action.get("Get") or {}
        _check_expressions(operation, body)
        key = json.dumps([body.get("TableName"), body.get("Key")], sort_keys=True, default=str)
        if key in seen:
            raise RequestRefused("transaction-duplicate-item", operation, key)
        seen.add(key)


def _check_batch_get(operation: str, params: Mapping[str, Any], tables: Tables) -> None:
    requested = params.get("RequestItems") or {}
    count = sum(len(spec.get("Keys") or []) for spec in requested.values())
    if count > MAX_BATCH_GET_KEYS:
        raise RequestRefused("batch-get-too-many-keys", operation, f"{count} keys")
    for table, spec in requested.items():
        _check_expressions(f"{operation} {table}", spec)
        keys = [json.dumps(k, sort_keys=True, default=str) for k in spec.get("Keys") or []]
        if len(set(keys)) != len(keys):
            raise RequestRefused("batch-get-duplicate-keys", operation, f"on {table}")


def _check_batch_write(operation: str, params: Mapping[str, Any], tables: Tables) -> None:
    requested = params.get("RequestItems") or {}
    count = sum(len(writes) for writes in requested.values())
    if count > MAX_BATCH_WRITE_REQUESTS:
        raise RequestRefused("batch-write-too-many-requests", operation, f"{count} requests")
    for table, writes in requested.items():
        keys: list[str | None] = []
        for write in writes:
            if "PutRequest" in write:
                item = write["PutRequest"].get("Item") or {}
                _check_item(operation, item)
                keys.append(_key_of(item, tables.get(table)))
            else:
                delete_key = write.get("DeleteRequest", {}).get("Key")
                keys.append(json.dumps(delete_key, sort_keys=True, default=str))
        known = [k for k in keys if k is not None]
        if len(set(known)) != len(known):
            raise RequestRefused("batch-write-duplicate-keys", operation, f"on {table}")


def _index(params: Mapping[str, Any], tables: Tables) -> tuple[TableSchema | None, str | None]:
    return tables.get(str(params.get("TableName"))), params.get("IndexName")


def _check_scan(operation: str, params: Mapping[str, Any], tables: Tables) -> None:
    _check_expressions(operation, params)
    schema, index = _index(params, tables)
    _check_consistent_read(operation, params, schema, index)
    start = params.get("ExclusiveStartKey")
    if start is not None and schema is not None:
        _check_start_key_shape(operation, start, schema, index)


def _check_query(operation: str, params: Mapping[str, Any], tables: Tables) -> None:
    _check_expressions(operation, params)
    schema, index = _index(params, tables)
    _check_consistent_read(operation, params, schema, index)
    start = params.get("ExclusiveStartKey")
    if start is None:
        return
    if schema is not None:
        _check_start_key_shape(operation, start, schema, index)
    conditions = key_conditions(
        str(params.get("KeyConditionExpression") or ""),
        params.get("ExpressionAttributeNames") or {},
        params.get("ExpressionAttributeValues") or {},
    )
    for attribute, (operator, operands) in conditions.items():
        if attribute not in start:
            raise RequestRefused("start-key-invalid", operation, f"the start key lacks {attribute}")
        if holds(operator, start[attribute], operands) is False:
            raise RequestRefused(
                "start-key-outside-key-condition",
                operation,
                f"{attribute} {start[attribute]} does not satisfy {operator} {operands}",
            )


def _check_consistent_read(
    operation: str, params: Mapping[str, Any], schema: TableSchema | None, index: str | None
) -> None:
    if not params.get("ConsistentRead") or index is None:
        return
    known = schema.indexes.get(index) if schema is not None else None
    # An index the schema does not name is taken as global: a local index is the rare case.
    if known is None or known.global_index:
        raise RequestRefused(
            "consistent-read-on-global-index",
            operation,
            f"{index} is a global secondary index: its reads are eventually consistent",
        )


def _check_start_key_shape(
    operation: str, start: Mapping[str, Any], schema: TableSchema, index: str | None
) -> None:
    wanted = set(schema.keys)
    if index is not None and index in schema.indexes:
        wanted |= set(schema.indexes[index].keys)
    if set(start) != wanted:
        raise RequestRefused(
            "start-key-invalid",
            operation,
            f"it holds {sorted(start)}, the {index or 'table'} keys are {sorted(wanted)}",
        )


# -- key conditions ----------------------------------------------------------------------

_BEGINS_WITH = re.compile(r"begins_with\s*\(\s*([#\w]+)\s*,\s*(:\w+)\s*\)", re.IGNORECASE)
_BETWEEN = re.compile(r"([#\w]+)\s+BETWEEN\s+(:\w+)\s+AND\s+(:\w+)", re.IGNORECASE)
_COMPARISON = re.compile(r"([#\w]+)\s*(<=|>=|=|<|>)\s*(:\w+)")


def _unwrapped(part: str) -> str:
    """`part` without parentheses around the whole of it."""
    part = part.strip()
    while part.startswith("(") and part.endswith(")"):
        depth = 0
        for index, character in enumerate(part):
            depth += {"(": 1, ")": -1}.get(character, 0)
            if depth == 0 and index < len(part) - 1:
                return part
        part = part[1:-1].strip()
    return part


def key_conditions(
    expression: str, names: Mapping[str, str], values: Mapping[str, Any]
) -> dict[str, tuple[str, list[Any]]]:
    """A KeyConditionExpression as {attribute: (operator, operand values)}; a part it cannot
    read is left out (the rule then does not judge it)."""
    pieces = re.split(r"\s+AND\s+", expression.strip(), flags=re.IGNORECASE)
    parts: list[str] = []
    for piece in pieces:
        if parts and re.search(r"\bBETWEEN\s+:\w+\s*$", parts[-1], re.IGNORECASE):
            parts[-1] += " AND " + piece
        else:
            parts.append(piece)
    found: dict[str, tuple[str, list[Any]]] = {}
    for part in map(_unwrapped, parts):
        match = _BEGINS_WITH.fullmatch(part)
        if match:
            found[names.get(match[1], match[1])] = ("begins_with", [values.get(match[2])])
            continue
        match = _BETWEEN.fullmatch(part)
        if match:
            operands = [values.get(match[2]), values.get(match[3])]
            found[names.get(match[1], match[1])] = ("BETWEEN", operands)
            continue
        match = _COMPARISON.fullmatch(part)
        if match:
            found[names.get(match[1], match[1])] = (match[2], [values.get(match[3])])
    return found


def _comparable(value: Any) -> tuple[str, Any] | None:
    if not isinstance(value, Mapping) or len(value) != 1:
        return None
    ((kind, raw),) = value.items()
    if kind == "S":
        return kind, str(raw).encode("utf-8")
    if kind == "N":
        return kind, Decimal(str(raw))
    if kind == "B":
        return kind, bytes(raw)
    return None


def holds(operator: str, value: Any, operands: Sequence[Any]) -> bool | None:
    """Whether a key value satisfies a key condition; None when it cannot be judged."""
    left = _comparable(value)
    rights = [_comparable(o) for o in operands]
    if left is None or any(r is None or r[0] != left[0] for r in rights):
        return None
    mine, theirs = left[1], [r[1] for r in rights if r is not None]
    if operator == "begins_with":
        return bool(isinstance(mine, bytes) and mine.startswith(theirs[0]))
    if operator == "BETWEEN":
        return bool(theirs[0] <= mine <= theirs[1])
    comparisons: dict[str, Callable[[Any, Any], bool]] = {
        "=": lambda a, b: a == b,
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }
    return comparisons[operator](mine, theirs[0])


# -- SQS ---------------------------------------------------------------------------------


def _message_size(entry: Mapping[str, Any]) -> int:
    size = len(str(entry.get("MessageBody", "")).encode("utf-8"))
    for name, attribute in (entry.get("MessageAttributes") or {}).items():
        size += len(name.encode()) + len(str(attribute.get("DataType", "")).encode())
        size += len(str(attribute.get("StringValue", "")).encode())
        size += len(attribute.get("BinaryValue", b""))
    return size


def _check_message(operation: str, entry: Mapping[str, Any]) -> int:
    delay = entry.get("DelaySeconds")
    if delay is not None and not 0 <= int(delay) <= MAX_SQS_DELAY_SECONDS:
        raise RequestRefused("sqs-delay-out-of-range", operation, f"DelaySeconds {delay}")
    bad = _SQS_BAD_CHARACTER.search(str(entry.get("MessageBody", "")))
    if bad:
        raise RequestRefused("sqs-message-characters", operation, f"U+{ord(bad[0]):04X}")
    size = _message_size(entry)
    if size > MAX_SQS_MESSAGE_BYTES:
        raise RequestRefused("sqs-message-too-large", operation, f"{size} bytes")
    return size


def _check_batch_entries(operation: str, entries: Sequence[Mapping[str, Any]]) -> None:
    if not 1 <= len(entries) <= MAX_SQS_BATCH_ENTRIES:
        raise RequestRefused("sqs-batch-size", operation, f"{len(entries)} entries")
    ids = [str(e.get("Id", "")) for e in entries]
    if len(set(ids)) != len(ids) or not all(_SQS_BATCH_ID.fullmatch(i) for i in ids):
        raise RequestRefused("sqs-batch-ids", operation, f"ids {ids}")


def _in_range(params: Mapping[str, Any], name: str, low: int, high: int) -> bool:
    value = params.get(name)
    return value is None or low <= int(value) <= high


def _check_sqs(operation: str, params: Mapping[str, Any]) -> None:
    if operation == "SendMessage":
        _check_message(operation, params)
    elif operation == "SendMessageBatch":
        entries = params.get("Entries") or []
        _check_batch_entries(operation, entries)
        total = sum(_check_message(operation, e) for e in entries)
        if total > MAX_SQS_MESSAGE_BYTES:
            raise RequestRefused("sqs-message-too-large", operation, f"batch of {total} bytes")
    elif operation in ("DeleteMessageBatch", "ChangeMessageVisibilityBatch"):
        entries = params.get("Entries") or []
        _check_batch_entries(operation, entries)
        if not all(
            _in_range(e, "VisibilityTimeout", 0, MAX_SQS_VISIBILITY_SECONDS) for e in entries
        ):
            raise RequestRefused("sqs-receive-out-of-range", operation, "VisibilityTimeout")
    elif operation in ("ReceiveMessage", "ChangeMessageVisibility"):
        bounds = (
            ("MaxNumberOfMessages", 1, MAX_SQS_BATCH_ENTRIES),
            ("WaitTimeSeconds", 0, MAX_SQS_WAIT_SECONDS),
            ("VisibilityTimeout", 0, MAX_SQS_VISIBILITY_SECONDS),
        )
        for name, low, high in bounds:
            if not _in_range(params, name, low, high):
                raise RequestRefused(
                    "sqs-receive-out-of-range", operation, f"{name} {params[name]}"
                )
