"""The DynamoDB helpers of `storage.dynamo`: BatchGetItem chunking and UnprocessedKeys retries,
BatchWriteItem deletes reporting what DynamoDB left, transaction cancellation reasons.

A real boto3 client answers through botocore's Stubber: every request is validated against
DynamoDB's model as it would be before going out, and a stubbed request must match exactly.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.exceptions import ParamValidationError
from botocore.stub import ANY, Stubber

from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> DynamoDBClient:
    """A real client that never leaves the process (the stub answers), as the process's one;
    retries do not sleep."""
    real: DynamoDBClient = boto3.client(
        "dynamodb",
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    monkeypatch.setattr(dynamo, "client", lambda: real)
    monkeypatch.setattr("content_service.storage.dynamo.time.sleep", lambda _: None)
    return real


@pytest.fixture
def stub(client: DynamoDBClient) -> Iterator[Stubber]:
    with Stubber(client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def keys(count: int) -> list[dict[str, Any]]:
    return [dict(dynamo.key(f"p{i}", "s")) for i in range(count)]


def found(key: dict[str, Any], value: str) -> dict[str, Any]:
    return {**key, "x": {"S": value}}


def test_batch_get_asks_at_most_100_keys_per_call(stub: Stubber) -> None:
    wanted = keys(250)
    for start, end in ((0, 100), (100, 200), (200, 250)):
        chunk = wanted[start:end]
        stub.add_response(
            "batch_get_item",
            {"Responses": {"t": [found(k, "found") for k in chunk]}},
            {"RequestItems": {"t": {"Keys": chunk, "ConsistentRead": True}}},
        )
    result = dynamo.batch_get("t", wanted + keys(10))  # duplicates are asked once
    assert len(result) == 250


def test_batch_get_retries_unprocessed_keys(stub: Stubber) -> None:
    wanted = keys(3)
    projection = dynamo.Projection.of([["id"], ["values", "f1"]])
    asked = {
        "ConsistentRead": True,
        "ProjectionExpression": "#p0, #p1.#p2",
        "ExpressionAttributeNames": {"#p0": "id", "#p1": "values", "#p2": "f1"},
    }
    for index in range(3):
        left = wanted[index + 1 :]
        answer: dict[str, Any] = {"Responses": {"t": [found(wanted[index], str(index))]}}
        if left:
            answer["UnprocessedKeys"] = {"t": {**asked, "Keys": left}}
        stub.add_response(
            "batch_get_item", answer, {"RequestItems": {"t": {**asked, "Keys": wanted[index:]}}}
        )
    result = dynamo.batch_get("t", wanted, projection)
    assert sorted(i["pk"] for i in result) == ["p0", "p1", "p2"]


def test_batch_get_never_drops_keys_silently(stub: Stubber) -> None:
    stuck = {"Responses": {"t": []}, "UnprocessedKeys": {"t": {"Keys": keys(1)}}}
    for _ in range(8):
        stub.add_response("batch_get_item", stuck, {"RequestItems": ANY})
    with pytest.raises(dynamo.Unprocessed, match="unprocessed") as left:
        dynamo.batch_get("t", keys(1))
    assert left.value.left == keys(1)


def deletes(chunk: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"DeleteRequest": {"Key": k}} for k in chunk]


def test_delete_many_deletes_25_per_call_and_retries_what_is_left(stub: Stubber) -> None:
    wanted = keys(30)
    stub.add_response(
        "batch_write_item",
        {"UnprocessedItems": {"t": deletes(wanted[20:25])}},
        {"RequestItems": {"t": deletes(wanted[:25])}},
    )
    stub.add_response(
        "batch_write_item",
        {"UnprocessedItems": {}},
        {"RequestItems": {"t": deletes(wanted[20:25])}},
    )
    stub.add_response(
        "batch_write_item", {"UnprocessedItems": {}}, {"RequestItems": {"t": deletes(wanted[25:])}}
    )
    assert dynamo.delete_many("t", wanted) == 30


def test_delete_many_reports_what_it_could_not_delete(stub: Stubber) -> None:
    """What is still unprocessed after every retry raises, as `batch_get` does: a count that
    silently leaves rows behind would read as done."""
    wanted = keys(3)
    stub.add_response(
        "batch_write_item",
        {"UnprocessedItems": {"t": deletes(wanted[1:])}},
        {"RequestItems": {"t": deletes(wanted)}},
    )
    for _ in range(7):
        stub.add_response(
            "batch_write_item",
            {"UnprocessedItems": {"t": deletes(wanted[2:])}},
            {"RequestItems": ANY},
        )
    with pytest.raises(dynamo.Unprocessed, match="BatchWriteItem left 1 request") as left:
        dynamo.delete_many("t", wanted)
    assert left.value.left == deletes(wanted[2:])


def put(pk: str) -> TransactWriteItemTypeDef:
    return {"Put": {"TableName": "t", "Item": dict(dynamo.key(pk, "s"))}}


def test_transaction_cancellation_reasons_are_kept_in_order(stub: Stubber) -> None:
    items = [put("a"), put("b")]
    stub.add_client_error(
        "transact_write_items",
        service_error_code="TransactionCanceledException",
        modeled_fields={
            "CancellationReasons": [{"Code": "None"}, {"Code": "ConditionalCheckFailed"}]
        },
        expected_params={"TransactItems": items},
    )
    with pytest.raises(dynamo.TransactionCancelled) as cancelled:
        dynamo.transact(items)
    assert cancelled.value.reasons == ["None", "ConditionalCheckFailed"]
    assert cancelled.value.failed(1)
    assert not cancelled.value.failed(0)
    assert not cancelled.value.conflicted


def test_a_malformed_transaction_item_is_refused_as_botocore_would(client: Any) -> None:
    """The answer is stubbed, yet the request never gets that far: botocore refuses it."""
    malformed: Any = [{"Put": {}}]  # what the types refuse, sent anyway
    with Stubber(client) as stubber:
        stubber.add_response("transact_write_items", {})
        with pytest.raises(ParamValidationError, match='"TableName"'):
            dynamo.transact(malformed)


def test_a_transaction_over_100_items_is_refused_before_sending(stub: Stubber) -> None:
    with pytest.raises(ValueError, match="at most 100"):
        dynamo.transact([put(str(i)) for i in range(101)])


def test_query_pages_follow_last_evaluated_key_with_the_paginator(stub: Stubber) -> None:
    request = {"TableName": "t", "KeyConditionExpression": "pk = :pk", "Limit": 2}
    request["ExpressionAttributeValues"] = {":pk": {"S": "p"}}
    last = dict(dynamo.key("p", "2"))
    stub.add_response("query", {"Items": keys(2), "LastEvaluatedKey": last}, request)
    stub.add_response("query", {"Items": keys(1)}, {**request, "ExclusiveStartKey": last})
    assert [len(page) for page in dynamo.query_pages(request)] == [2, 1]


def test_projection_reuses_aliases() -> None:
    projection = dynamo.Projection.of([["values", "f1"], ["values", "f2"], ["id"]])
    assert projection.expression == "#p0.#p1, #p0.#p2, #p3"
    assert projection.names == {"#p0": "values", "#p1": "f1", "#p2": "f2", "#p3": "id"}
