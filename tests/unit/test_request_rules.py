"""Each rule of the request check refuses what AWS refuses, and lets its correct neighbour pass.

Every rule in `RULES` has a refused example and an accepted one below; a rule added without
one fails `test_every_rule_has_an_example`.
"""

from __future__ import annotations

from typing import Any

import pytest

from infra.request_rules import (
    RULES,
    IndexSchema,
    RequestRefused,
    TableSchema,
    check,
    item_size,
)

TABLES = {
    "Deliveries": TableSchema(
        ("id",),
        {
            "byEndpoint": IndexSchema(("endpointId", "createdKey"), True),
            "byLocal": IndexSchema(("id", "createdKey"), False),
        },
    ),
    "Schema": TableSchema(("pk", "sk")),
}


def s(text: str) -> dict[str, str]:
    return {"S": text}


def n(number: int) -> dict[str, str]:
    return {"N": str(number)}


def update(**changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "TableName": "Schema",
        "Key": {"pk": s("a"), "sk": s("b")},
        "UpdateExpression": "SET #a0 = :a0, revision = revision + :one",
        "ConditionExpression": "revision = :revision",
        "ExpressionAttributeNames": {"#a0": "fields"},
        "ExpressionAttributeValues": {":a0": s("x"), ":one": n(1), ":revision": n(3)},
    }
    request.update(changes)
    return {key: value for key, value in request.items() if value is not None}


def log_query(start_created: str, **changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "TableName": "Deliveries",
        "IndexName": "byEndpoint",
        "KeyConditionExpression": "endpointId = :endpoint AND createdKey >= :since",
        "ExpressionAttributeValues": {":endpoint": s("ep"), ":since": s("2026-02")},
        "ExclusiveStartKey": {
            "id": s("d1"),
            "endpointId": s("ep"),
            "createdKey": s(start_created),
        },
    }
    request.update(changes)
    return request


def put(item: dict[str, Any]) -> dict[str, Any]:
    return {"Put": {"TableName": "Schema", "Item": item}}


def batch(count: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        {"Id": str(i), "MessageBody": '{"deliveryId":"x"}'} for i in range(start, start + count)
    ]


BIG = "x" * (400 * 1024)

# rule -> (operation, refused request, accepted neighbour); SQS operations are prefixed "sqs:".
EXAMPLES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "expression-value-unused": (
        "TransactWriteItems",
        # The content-type update before 7d2f133: `:zero` sent, the condition not using it.
        {
            "TransactItems": [
                {
                    "Update": update(
                        ExpressionAttributeValues={
                            **update()["ExpressionAttributeValues"],
                            ":zero": n(0),
                        }
                    )
                }
            ]
        },
        {"TransactItems": [{"Update": update()}]},
    ),
    "expression-value-undefined": (
        "UpdateItem",
        update(ConditionExpression="revision = :revision AND entryCount = :zero"),
        update(),
    ),
    "expression-name-unused": (
        "UpdateItem",
        update(ExpressionAttributeNames={"#a0": "fields", "#status": "status"}),
        update(),
    ),
    "expression-name-undefined": (
        "Query",
        {
            "TableName": "Schema",
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeValues": {":pk": s("a")},
        },
        {
            "TableName": "Schema",
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": "pk"},
            "ExpressionAttributeValues": {":pk": s("a")},
        },
    ),
    "expression-map-empty": (
        "PutItem",
        {
            "TableName": "Schema",
            "Item": {"pk": s("a"), "sk": s("b")},
            "ConditionExpression": "attribute_not_exists(pk)",
            "ExpressionAttributeValues": {},
        },
        {
            "TableName": "Schema",
            "Item": {"pk": s("a"), "sk": s("b")},
            "ConditionExpression": "attribute_not_exists(pk)",
        },
    ),
    "expression-too-long": (
        "GetItem",
        {
            "TableName": "Schema",
            "Key": {"pk": s("a"), "sk": s("b")},
            "ProjectionExpression": ", ".join(f"f{i}" for i in range(1000)),
        },
        {
            "TableName": "Schema",
            "Key": {"pk": s("a"), "sk": s("b")},
            "ProjectionExpression": ", ".join(f"f{i}" for i in range(500)),
        },
    ),
    "document-paths-overlap": (
        "GetItem",
        {
            "TableName": "Schema",
            "Key": {"pk": s("a"), "sk": s("b")},
            "ProjectionExpression": "#v, #v.#f",
            "ExpressionAttributeNames": {"#v": "values", "#f": "f3"},
        },
        {
            "TableName": "Schema",
            "Key": {"pk": s("a"), "sk": s("b")},
            "ProjectionExpression": "#v.#g, #v.#f",
            "ExpressionAttributeNames": {"#v": "values", "#f": "f3", "#g": "f4"},
        },
    ),
    "batch-get-too-many-keys": (
        "BatchGetItem",
        {"RequestItems": {"Deliveries": {"Keys": [{"id": s(str(i))} for i in range(101)]}}},
        {"RequestItems": {"Deliveries": {"Keys": [{"id": s(str(i))} for i in range(100)]}}},
    ),
    "batch-get-duplicate-keys": (
        "BatchGetItem",
        {"RequestItems": {"Deliveries": {"Keys": [{"id": s("a")}, {"id": s("a")}]}}},
        {"RequestItems": {"Deliveries": {"Keys": [{"id": s("a")}, {"id": s("b")}]}}},
    ),
    "batch-write-too-many-requests": (
        "BatchWriteItem",
        {
            "RequestItems": {
                "Deliveries": [{"DeleteRequest": {"Key": {"id": s(str(i))}}} for i in range(26)]
            }
        },
        {
            "RequestItems": {
                "Deliveries": [{"DeleteRequest": {"Key": {"id": s(str(i))}}} for i in range(25)]
            }
        },
    ),
    "batch-write-duplicate-keys": (
        "BatchWriteItem",
        {
            "RequestItems": {
                "Deliveries": [
                    {"PutRequest": {"Item": {"id": s("a"), "n": n(1)}}},
                    {"DeleteRequest": {"Key": {"id": s("a")}}},
                ]
            }
        },
        {
            "RequestItems": {
                "Deliveries": [
                    {"PutRequest": {"Item": {"id": s("a"), "n": n(1)}}},
                    {"DeleteRequest": {"Key": {"id": s("b")}}},
                ]
            }
        },
    ),
    "transaction-too-many-actions": (
        "TransactWriteItems",
        {"TransactItems": [put({"pk": s(str(i)), "sk": s("x")}) for i in range(101)]},
        {"TransactItems": [put({"pk": s(str(i)), "sk": s("x")}) for i in range(100)]},
    ),
    "transaction-too-large": (
        "TransactWriteItems",
        {
            "TransactItems": [
                put({"pk": s(str(i)), "sk": s("x"), "b": s(BIG[:-100])}) for i in range(11)
            ]
        },
        {
            "TransactItems": [
                put({"pk": s(str(i)), "sk": s("x"), "b": s(BIG[:-100])}) for i in range(10)
            ]
        },
    ),
    "transaction-duplicate-item": (
        "TransactWriteItems",
        {
            "TransactItems": [
                put({"pk": s("a"), "sk": s("b"), "v": n(1)}),
                {"Delete": {"TableName": "Schema", "Key": {"pk": s("a"), "sk": s("b")}}},
            ]
        },
        {
            "TransactItems": [
                put({"pk": s("a"), "sk": s("b"), "v": n(1)}),
                {"Delete": {"TableName": "Schema", "Key": {"pk": s("a"), "sk": s("c")}}},
            ]
        },
    ),
    "item-too-large": (
        "PutItem",
        {"TableName": "Schema", "Item": {"pk": s("a"), "sk": s("b"), "body": s(BIG)}},
        {"TableName": "Schema", "Item": {"pk": s("a"), "sk": s("b"), "body": s(BIG[:-20])}},
    ),
    "consistent-read-on-global-index": (
        "Query",
        {
            "TableName": "Deliveries",
            "IndexName": "byEndpoint",
            "ConsistentRead": True,
            "KeyConditionExpression": "endpointId = :e",
            "ExpressionAttributeValues": {":e": s("ep")},
        },
        {
            "TableName": "Deliveries",
            "IndexName": "byLocal",
            "ConsistentRead": True,
            "KeyConditionExpression": "id = :e",
            "ExpressionAttributeValues": {":e": s("ep")},
        },
    ),
    "start-key-invalid": (
        "Query",
        {**log_query("2026-03#d1"), "ExclusiveStartKey": {"id": s("d1"), "endpointId": s("ep")}},
        log_query("2026-03#d1"),
    ),
    # Item 2: a cursor taken without `since`, reused with it.
    "start-key-outside-key-condition": (
        "Query",
        log_query("2026-01#d1"),
        log_query("2026-03#d1"),
    ),
    "sqs-batch-size": (
        "sqs:SendMessageBatch",
        {"QueueUrl": "q", "Entries": batch(11)},
        {"QueueUrl": "q", "Entries": batch(10)},
    ),
    "sqs-batch-ids": (
        "sqs:DeleteMessageBatch",
        {"QueueUrl": "q", "Entries": [{"Id": "a.b", "ReceiptHandle": "r"}]},
        {"QueueUrl": "q", "Entries": [{"Id": "a-b", "ReceiptHandle": "r"}]},
    ),
    "sqs-message-too-large": (
        "sqs:SendMessage",
        {"QueueUrl": "q", "MessageBody": "x" * (256 * 1024 + 1)},
        {"QueueUrl": "q", "MessageBody": "x" * (256 * 1024)},
    ),
    "sqs-message-characters": (
        "sqs:SendMessage",
        {"QueueUrl": "q", "MessageBody": "bell \x07"},
        {"QueueUrl": "q", "MessageBody": "tab \t and é"},
    ),
    "sqs-delay-out-of-range": (
        "sqs:SendMessageBatch",
        {"QueueUrl": "q", "Entries": [{**batch(1)[0], "DelaySeconds": 901}]},
        {"QueueUrl": "q", "Entries": [{**batch(1)[0], "DelaySeconds": 900}]},
    ),
    "sqs-receive-out-of-range": (
        "sqs:ReceiveMessage",
        {"QueueUrl": "q", "MaxNumberOfMessages": 11, "WaitTimeSeconds": 0},
        {"QueueUrl": "q", "MaxNumberOfMessages": 10, "WaitTimeSeconds": 20},
    ),
}


def judge(operation: str, request: dict[str, Any]) -> None:
    service, _, name = operation.rpartition(":")
    check(service or "dynamodb", name, request, TABLES)


def test_every_rule_has_an_example() -> None:
    assert set(EXAMPLES) == set(RULES)


@pytest.mark.parametrize("rule", sorted(EXAMPLES))
def test_the_rule_refuses_what_aws_refuses_and_names_itself(rule: str) -> None:
    operation, refused, accepted = EXAMPLES[rule]
    with pytest.raises(RequestRefused) as raised:
        judge(operation, refused)
    assert raised.value.rule == rule
    assert f"rule {rule}" in str(raised.value)
    judge(operation, accepted)


def test_a_start_key_is_held_to_every_kind_of_key_condition() -> None:
    def query(condition: str, values: dict[str, Any], created: str) -> dict[str, Any]:
        return {
            **log_query(created),
            "KeyConditionExpression": condition,
            "ExpressionAttributeValues": values,
        }

    between = "endpointId = :e AND createdKey BETWEEN :a AND :b"
    window = {":e": s("ep"), ":a": s("2026-02"), ":b": s("2026-04")}
    judge("Query", query(between, window, "2026-03#x"))
    for outside in ("2026-01#x", "2026-05#x"):
        with pytest.raises(RequestRefused, match="start-key-outside-key-condition"):
            judge("Query", query(between, window, outside))
    prefix = "endpointId = :e AND begins_with(createdKey, :p)"
    judge("Query", query(prefix, {":e": s("ep"), ":p": s("2026-03")}, "2026-03#x"))
    with pytest.raises(RequestRefused, match="start-key-outside-key-condition"):
        judge("Query", query(prefix, {":e": s("ep"), ":p": s("2026-04")}, "2026-03#x"))
    with pytest.raises(RequestRefused, match="start-key-outside-key-condition"):
        judge("Query", query("endpointId = :e", {":e": s("other")}, "2026-03#x"))


def test_a_table_the_check_does_not_know_is_judged_by_the_other_rules() -> None:
    request = {**log_query("2026-03#d1"), "TableName": "Unknown", "ConsistentRead": False}
    judge(
        "Query",
        {**request, "ExclusiveStartKey": {"endpointId": s("ep"), "createdKey": s("2026-03")}},
    )
    with pytest.raises(RequestRefused, match="start-key-outside-key-condition"):
        judge("Query", log_query("2026-01#d1", TableName="Unknown"))


def test_update_paths_are_read_across_clauses_and_functions() -> None:
    judge(
        "UpdateItem",
        update(
            UpdateExpression=(
                "SET #a0 = :a0, revision = if_not_exists(revision, :zero) + :one REMOVE #r0"
            ),
            ConditionExpression=None,
            ExpressionAttributeNames={"#a0": "fields", "#r0": "listNext"},
            ExpressionAttributeValues={":a0": s("x"), ":one": n(1), ":zero": n(0)},
        ),
    )
    with pytest.raises(RequestRefused, match="document-paths-overlap"):
        judge(
            "UpdateItem",
            update(
                UpdateExpression="SET #a0 = :a0 REMOVE #r0",
                ConditionExpression=None,
                ExpressionAttributeNames={"#a0": "listNext", "#r0": "listNext"},
                ExpressionAttributeValues={":a0": s("x")},
            ),
        )


def test_item_size_counts_names_and_values_as_dynamodb_does() -> None:
    assert item_size({"ab": s("héllo")}) == 2 + 6
    assert item_size({"n": n(12345)}) == 1 + 4
    assert item_size({"m": {"M": {"k": s("v")}}}) == 1 + 3 + 1 + 1 + 1
    assert item_size({"l": {"L": [{"BOOL": True}, {"NULL": True}]}}) == 1 + 3 + 2 + 2
