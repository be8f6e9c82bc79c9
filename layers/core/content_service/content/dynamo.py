"""The low-level DynamoDB calls content makes, on boto3's client.

Content uses the client rather than PynamoDB models because entries have dynamic attributes
(`values.f3`, `links.f7`), reads need nested ProjectionExpressions, and every write is one
TransactWriteItems spanning the content, schema and events tables.

- `batch_get` asks at most 100 keys per call and retries UnprocessedKeys with backoff.
- `query_all` follows LastEvaluatedKey to the end.
- `transact` raises `TransactionCancelled` carrying one reason code per item, in order, so the
  caller can say which condition refused the write.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Context, Decimal, Inexact, Rounded
from typing import TYPE_CHECKING, Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

from content_service import runtime
from content_service.settings import Tables
from content_service.storage import aws

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

BATCH_GET_LIMIT = 100
TRANSACT_LIMIT = 100
_BATCH_RETRIES = 8

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()
# DynamoDB numbers: 38 significant digits; floats are converted through their shortest repr.
_DECIMAL = Context(prec=38, traps=[Inexact, Rounded])

Item = dict[str, Any]
Key = dict[str, str]


def client() -> Any:
    """The process's DynamoDB client, untyped: requests here are built as plain dicts."""
    typed: DynamoDBClient = aws.dynamodb(runtime.settings())
    return typed


def tables() -> Tables:
    return runtime.settings().tables


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


def encode(item: Mapping[str, Any]) -> dict[str, Any]:
    """A plain item (str, int, float, bool, None, dict, list) as DynamoDB attribute values."""
    return {k: _serializer.serialize(_storable(v)) for k, v in item.items()}


def encode_value(value: Any) -> dict[str, Any]:
    encoded: dict[str, Any] = _serializer.serialize(_storable(value))  # type: ignore[assignment]
    return encoded


def decode(item: Mapping[str, Any]) -> Item:
    """DynamoDB attribute values as plain Python; numbers stay Decimal (the caller knows types)."""
    return {k: _deserializer.deserialize(v) for k, v in item.items()}


def key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


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


def get_item(
    table: str, item_key: dict[str, Any], projection: Projection | None = None
) -> Item | None:
    """A strongly consistent GetItem."""
    request: dict[str, Any] = {"TableName": table, "Key": item_key, "ConsistentRead": True}
    if projection is not None:
        request["ProjectionExpression"] = projection.expression
        request["ExpressionAttributeNames"] = projection.names
    found = client().get_item(**request).get("Item")
    return decode(found) if found else None


def batch_get(
    table: str,
    keys: Sequence[dict[str, Any]],
    projection: Projection | None = None,
    *,
    consistent: bool = True,
) -> list[Item]:
    """Every item found among `keys` (in no particular order), 100 keys per call.

    UnprocessedKeys (throttling, the 16 MB response cap) are asked again with exponential
    backoff and jitter; a key still unprocessed after that raises, never silently drops.
    """
    found: list[Item] = []
    unique = list({json.dumps(k, sort_keys=True): k for k in keys}.values())
    for start in range(0, len(unique), BATCH_GET_LIMIT):
        chunk = unique[start : start + BATCH_GET_LIMIT]
        request: dict[str, Any] = {"Keys": chunk, "ConsistentRead": consistent}
        if projection is not None:
            request["ProjectionExpression"] = projection.expression
            request["ExpressionAttributeNames"] = projection.names
        pending: dict[str, Any] = {table: request}
        for attempt in range(_BATCH_RETRIES):
            response = client().batch_get_item(RequestItems=pending)
            found.extend(decode(i) for i in response.get("Responses", {}).get(table, []))
            unprocessed = response.get("UnprocessedKeys") or {}
            if not unprocessed.get(table, {}).get("Keys"):
                break
            pending = {table: {**request, "Keys": unprocessed[table]["Keys"]}}
            time.sleep(min(1.0, 0.025 * 2**attempt) * (0.5 + random.random() / 2))
        else:
            raise RuntimeError(f"BatchGetItem left keys unprocessed after {_BATCH_RETRIES} tries")
    return found


def query_page(request: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """One page of a Query: its raw items and its LastEvaluatedKey (None at the end)."""
    response = client().query(**request)
    return response.get("Items", []), response.get("LastEvaluatedKey") or None


def query_count(request: Mapping[str, Any], limit: int) -> int | None:
    """How many items a Query matches (`Select=COUNT`, every page), or None once more than
    `limit` items have been examined."""
    page_request = {**request, "Select": "COUNT"}
    counted = scanned = 0
    while True:
        response = client().query(**page_request)
        counted += int(response.get("Count", 0))
        scanned += int(response.get("ScannedCount", 0))
        if scanned > limit:
            return None
        last = response.get("LastEvaluatedKey")
        if not last:
            return counted
        page_request["ExclusiveStartKey"] = last


def query_pages(request: Mapping[str, Any]) -> Iterator[list[dict[str, Any]]]:
    """Raw items of every page of a Query (still DynamoDB-typed: the caller decodes)."""
    page_request = dict(request)
    while True:
        response = client().query(**page_request)
        yield response.get("Items", [])
        last = response.get("LastEvaluatedKey")
        if not last:
            return
        page_request["ExclusiveStartKey"] = last


class TransactionCancelled(Exception):
    """TransactWriteItems refused; `reasons[i]` is the code for the i-th item (`None` if fine)."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__(", ".join(reasons))
        self.reasons = reasons

    def failed(self, index: int) -> bool:
        return index < len(self.reasons) and self.reasons[index] == "ConditionalCheckFailed"

    @property
    def conflicted(self) -> bool:
        """Another transaction touched one of the items at the same time: worth a retry."""
        return "TransactionConflict" in self.reasons


def transact(items: Sequence[dict[str, Any]]) -> None:
    if not items:
        return
    if len(items) > TRANSACT_LIMIT:
        raise ValueError(f"a transaction holds at most {TRANSACT_LIMIT} items, not {len(items)}")
    try:
        client().transact_write_items(TransactItems=list(items))
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
            raise
        reasons = [
            str(r.get("Code") or "None") for r in error.response.get("CancellationReasons", [])
        ]
        raise TransactionCancelled(reasons) from None


def is_storable_number(value: float) -> bool:
    """DynamoDB numbers span 1E-130 to 9.99E+125 in magnitude."""
    if not math.isfinite(value):
        return False
    magnitude = abs(value)
    return magnitude == 0 or 1e-130 <= magnitude < 9.9999999999999999e125
