"""DynamoDB through boto3's low-level client: the one place content and webhooks share.

Both use the client rather than PynamoDB models: entries have dynamic attributes
(`values.f3`, `links.f7`) read with nested ProjectionExpressions, every entry write is one
TransactWriteItems over several tables, and the delivery claim needs
`ReturnValuesOnConditionCheckFailure`. Content's store (`content.dynamo_store`) calls the
process's client (`client()`); the webhook stores pass the client they were built with.

- `encode`/`decode`: one TypeSerializer/TypeDeserializer pair; ints and floats are stored as
  exact Decimals, numbers read back stay Decimal (the caller knows its types).
- `batch_get` (100 keys a call) and `delete_many` (25 a call) ask again for what DynamoDB left
  unprocessed, with backoff and jitter; whatever is still left raises `Unprocessed`.
- `pages`/`query_pages` follow LastEvaluatedKey with boto3's paginators.
- `transact` raises `TransactionCancelled` with one reason code per item, in order;
  `conditional` and `is_condition_failure` tell a refused condition from any other error.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Context, Decimal, Inexact, Rounded
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

from content_service import runtime
from content_service.settings import Tables
from content_service.storage import aws

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import (
        AttributeValueTypeDef,
        KeysAndAttributesTypeDef,
        QueryOutputTypeDef,
        TransactWriteItemTypeDef,
        WriteRequestUnionTypeDef,
    )

BATCH_GET_LIMIT = 100
BATCH_WRITE_LIMIT = 25
TRANSACT_LIMIT = 100
_BATCH_TRIES = 8

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()
# DynamoDB numbers: 38 significant digits; floats are converted through their shortest repr.
_DECIMAL = Context(prec=38, traps=[Inexact, Rounded])

Item = dict[str, Any]
T = TypeVar("T")
P = ParamSpec("P")


def client() -> DynamoDBClient:
    """The process's DynamoDB client."""
    return aws.dynamodb(runtime.settings())


def tables() -> Tables:
    return runtime.settings().tables


# -- values --------------------------------------------------------------------------------


def _storable(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str | Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return _DECIMAL.create_decimal(repr(value))
    if isinstance(value, Mapping):
        return {str(k): _storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_storable(v) for v in value]
    raise TypeError(f"cannot store {type(value).__name__}")


def encode_value(value: Any) -> AttributeValueTypeDef:
    """One plain value (str, int, float, bool, None, dict, list) as a DynamoDB attribute value."""
    encoded: AttributeValueTypeDef = _serializer.serialize(_storable(value))
    return encoded


def encode(item: Mapping[str, Any], *, sparse: bool = False) -> dict[str, AttributeValueTypeDef]:
    """A plain item as DynamoDB attribute values; `sparse` leaves out top-level None values."""
    return {k: encode_value(v) for k, v in item.items() if not (sparse and v is None)}


def values(**named: Any) -> dict[str, AttributeValueTypeDef]:
    """`ExpressionAttributeValues` from keyword arguments: `values(now=...)` gives `:now`."""
    return {f":{name}": encode_value(v) for name, v in named.items()}


def decode(item: Mapping[str, Any]) -> Item:
    """DynamoDB attribute values as plain Python; numbers stay Decimal."""
    return {k: _deserializer.deserialize(v) for k, v in item.items()}


def key(pk: str, sk: str) -> dict[str, AttributeValueTypeDef]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def is_storable_number(value: float) -> bool:
    """DynamoDB numbers span 1E-130 to 9.99E+125 in magnitude."""
    if not math.isfinite(value):
        return False
    magnitude = abs(value)
    return magnitude == 0 or 1e-130 <= magnitude < 9.9999999999999999e125


@dataclass(frozen=True)
class Projection:
    """A ProjectionExpression over attribute paths, with every name a placeholder."""

    expression: str
    names: dict[str, str]

    @classmethod
    def of(cls, paths: Iterable[Sequence[str]]) -> Projection:
        names: dict[str, str] = {}
        aliases: dict[str, str] = {}
        parts: list[str] = []
        for path in paths:
            segments = []
            for segment in path:
                alias = aliases.get(segment)
                if alias is None:
                    alias = aliases[segment] = f"#p{len(aliases)}"
                    names[alias] = segment
                segments.append(alias)
            parts.append(".".join(segments))
        return cls(", ".join(dict.fromkeys(parts)), names)


# -- conditions ----------------------------------------------------------------------------


def is_condition_failure(error: ClientError) -> bool:
    """A single-item write refused because its ConditionExpression did not hold."""
    return str(error.response.get("Error", {}).get("Code", "")) == "ConditionalCheckFailedException"


def conditional(write: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
    """`write(...)`'s answer, or None when DynamoDB refused it on its ConditionExpression."""
    try:
        return write(*args, **kwargs)
    except ClientError as error:
        if is_condition_failure(error):
            return None
        raise


def failed_item(error: ClientError) -> Item | None:
    """The item a failed condition saw (`ReturnValuesOnConditionCheckFailure=ALL_OLD`)."""
    raw: Any = error.response.get("Item")
    return decode(raw) if isinstance(raw, Mapping) and raw else None


class TransactionCancelled(Exception):
    """TransactWriteItems refused; `reasons[i]` is the code for the i-th item ("None" if fine)."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__(", ".join(reasons))
        self.reasons = reasons

    def failed(self, index: int) -> bool:
        return index < len(self.reasons) and self.reasons[index] == "ConditionalCheckFailed"

    @property
    def conflicted(self) -> bool:
        """Another transaction touched one of the items at the same time: worth a retry."""
        return "TransactionConflict" in self.reasons


def transact(
    items: Sequence[TransactWriteItemTypeDef],
    *,
    using: DynamoDBClient | None = None,
) -> None:
    """One TransactWriteItems, its items typed as botocore's request shapes."""
    if not items:
        return
    if len(items) > TRANSACT_LIMIT:
        raise ValueError(f"a transaction holds at most {TRANSACT_LIMIT} items, not {len(items)}")
    try:
        (using or client()).transact_write_items(TransactItems=list(items))
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
            raise
        found: Any = error.response.get("CancellationReasons", [])
        raise TransactionCancelled([str(r.get("Code") or "None") for r in found]) from None


# -- reads ---------------------------------------------------------------------------------


def get_item(
    table: str, item_key: Mapping[str, Any], projection: Projection | None = None
) -> Item | None:
    """A strongly consistent GetItem."""
    request: dict[str, Any] = {"TableName": table, "Key": item_key, "ConsistentRead": True}
    if projection is not None:
        request["ProjectionExpression"] = projection.expression
        request["ExpressionAttributeNames"] = projection.names
    found = client().get_item(**request).get("Item")
    return decode(found) if found else None


def pages(
    operation: Literal["query", "scan"], request: Mapping[str, Any], using: DynamoDBClient | None
) -> Iterator[QueryOutputTypeDef]:
    """Every page of a Query or Scan, from boto3's paginator (an `ExclusiveStartKey` or a
    `Limit` in `request` holds for the first page, and the limit for every page)."""
    paginator: Any = (using or client()).get_paginator(operation)
    found: Iterator[QueryOutputTypeDef] = iter(paginator.paginate(**request))
    return found


def query_pages(
    request: Mapping[str, Any], *, using: DynamoDBClient | None = None
) -> Iterator[list[dict[str, AttributeValueTypeDef]]]:
    """Raw items of every page of a Query (still DynamoDB-typed: the caller decodes)."""
    return (page.get("Items", []) for page in pages("query", request, using))


def query_page(
    request: Mapping[str, Any],
) -> tuple[list[dict[str, AttributeValueTypeDef]], dict[str, Any] | None]:
    """One page of a Query: its raw items and its LastEvaluatedKey (None at the end)."""
    response = client().query(**request)
    return response.get("Items", []), dict(response.get("LastEvaluatedKey") or {}) or None


def query_count(request: Mapping[str, Any], limit: int) -> int | None:
    """How many items a Query matches (`Select=COUNT`, every page), or None once more than
    `limit` items have been examined."""
    counted = scanned = 0
    for page in pages("query", {**request, "Select": "COUNT"}, None):
        counted += int(page.get("Count", 0))
        scanned += int(page.get("ScannedCount", 0))
        if scanned > limit:
            return None
    return counted


# -- batches -------------------------------------------------------------------------------


class Unprocessed(RuntimeError):
    """A batch call left requests unprocessed after every retry; `left` holds them as sent."""

    def __init__(self, operation: str, table: str, left: Sequence[Any]) -> None:
        super().__init__(
            f"{operation} left {len(left)} request(s) on {table} unprocessed "
            f"after {_BATCH_TRIES} tries"
        )
        self.left = list(left)


def _until_processed(
    operation: str, table: str, pending: list[T], send: Callable[[list[T]], list[T]]
) -> None:
    """Sends `pending` and then what each answer left unprocessed (throttling, the 16 MB
    response cap), with exponential backoff and jitter; raises what is left at the end."""
    for attempt in range(_BATCH_TRIES):
        pending = send(pending)
        if not pending:
            return
        time.sleep(min(1.0, 0.025 * 2**attempt) * (0.5 + random.random() / 2))
    raise Unprocessed(operation, table, pending)


def batch_get(
    table: str,
    keys: Sequence[Mapping[str, Any]],
    projection: Projection | None = None,
    *,
    consistent: bool = True,
    using: DynamoDBClient | None = None,
) -> list[Item]:
    """Every item found among `keys` (in no particular order, each key asked once), 100 keys
    per call; raises `Unprocessed` rather than drop a key."""
    dynamodb = using or client()
    found: list[Item] = []

    def send(chunk: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        asked: KeysAndAttributesTypeDef = {"Keys": chunk, "ConsistentRead": consistent}
        if projection is not None:
            asked["ProjectionExpression"] = projection.expression
            asked["ExpressionAttributeNames"] = projection.names
        response = dynamodb.batch_get_item(RequestItems={table: asked})
        found.extend(decode(i) for i in response.get("Responses", {}).get(table, []))
        left = response.get("UnprocessedKeys", {}).get(table)
        return list(left["Keys"]) if left else []

    unique = list({json.dumps(k, sort_keys=True): k for k in keys}.values())
    for start in range(0, len(unique), BATCH_GET_LIMIT):
        _until_processed("BatchGetItem", table, unique[start : start + BATCH_GET_LIMIT], send)
    return found


def delete_many(
    table: str, keys: Sequence[Mapping[str, Any]], *, using: DynamoDBClient | None = None
) -> int:
    """Deletes the items at `keys` with BatchWriteItem, 25 per call; how many were asked.
    Raises `Unprocessed` (with the delete requests left) rather than under-count."""
    dynamodb = using or client()

    def send(chunk: list[WriteRequestUnionTypeDef]) -> list[WriteRequestUnionTypeDef]:
        response = dynamodb.batch_write_item(RequestItems={table: chunk})
        return list(response.get("UnprocessedItems", {}).get(table, []))

    requests: list[WriteRequestUnionTypeDef] = [{"DeleteRequest": {"Key": k}} for k in keys]
    for start in range(0, len(requests), BATCH_WRITE_LIMIT):
        _until_processed("BatchWriteItem", table, requests[start : start + BATCH_WRITE_LIMIT], send)
    return len(requests)
