"""Small helpers over the low-level DynamoDB client, shared by the webhook stores.

The stores use the boto3 client directly rather than PynamoDB models: the claim needs
`ReturnValuesOnConditionCheckFailure`, the fan-out needs a transaction's cancellation reasons,
and every request is one we chose and can count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

from .outbox import plain

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

BATCH_GET_LIMIT = 100

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()

Item = dict[str, Any]


def to_attribute(value: Any) -> Any:
    return _serializer.serialize(value)


def to_item(values: Mapping[str, Any]) -> Item:
    """DynamoDB JSON of `values`; top-level None values are left out (sparse attributes)."""
    return {name: _serializer.serialize(v) for name, v in values.items() if v is not None}


def from_item(item: Mapping[str, Any]) -> dict[str, Any]:
    return {name: plain(_deserializer.deserialize(v)) for name, v in item.items()}


def values(**named: Any) -> Item:
    """`ExpressionAttributeValues` from keyword arguments: `values(now=...)` gives `:now`."""
    return {f":{name}": _serializer.serialize(v) for name, v in named.items()}


def error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def is_condition_failure(error: ClientError) -> bool:
    return error_code(error) == "ConditionalCheckFailedException"


def failed_item(error: ClientError) -> dict[str, Any] | None:
    """The item a failed condition saw (`ReturnValuesOnConditionCheckFailure=ALL_OLD`)."""
    raw: Any = error.response.get("Item")
    return from_item(raw) if isinstance(raw, Mapping) and raw else None


def batch_get(client: DynamoDBClient, table: str, ids: Iterable[str]) -> list[dict[str, Any]]:
    """The items keyed `id` among `ids` that exist, read strongly consistently with
    BatchGetItem (100 keys a request), unprocessed keys asked again a few times."""
    unique = list(dict.fromkeys(ids))
    found: list[dict[str, Any]] = []
    for start in range(0, len(unique), BATCH_GET_LIMIT):
        keys: list[Any] = [{"id": {"S": i}} for i in unique[start : start + BATCH_GET_LIMIT]]
        for _ in range(5):
            response = client.batch_get_item(
                RequestItems={table: {"Keys": keys, "ConsistentRead": True}}
            )
            answer: Any = response
            found.extend(from_item(item) for item in answer.get("Responses", {}).get(table, []))
            keys = list(answer.get("UnprocessedKeys", {}).get(table, {}).get("Keys", []))
            if not keys:
                break
        if keys:
            raise RuntimeError(f"could not read {len(keys)} item(s) of {table}")
    return found
