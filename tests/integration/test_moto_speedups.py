"""The emulator's moto answers as moto does: infra/moto_speedups.py caches only pure results.

Each test drives the session's moto server over HTTP at a cache the module adds: the same
expression string used again with other names and values, a refused request sent twice, and
every DynamoDB attribute type through the cached response serializer.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError

from infra import moto_speedups
from infra.local_stack import LocalStack

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import KeySchemaElementTypeDef

EVERY_TYPE: dict[str, Any] = {
    "s": {"S": "text"},
    "n": {"N": "12.5"},
    "b": {"B": b"\x00\x01binary"},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
    "bs": {"BS": [b"x", b"y"]},
    "m": {"M": {"inner": {"L": [{"S": "deep"}, {"NULL": True}]}}},
    "l": {"L": [{"N": "1"}, {"BOOL": False}, {"M": {}}]},
    "null": {"NULL": True},
    "bool": {"BOOL": True},
}


# The key schema of the tables with a sort key.
PK_SK: list[KeySchemaElementTypeDef] = [
    {"AttributeName": "pk", "KeyType": "HASH"},
    {"AttributeName": "sk", "KeyType": "RANGE"},
]


@pytest.fixture(scope="module")
def table(stack: LocalStack) -> Iterator[tuple[Any, str]]:
    client = stack.emulator.dynamodb()
    name = f"speedups-{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    yield client, name
    client.delete_table(TableName=name)


def _refusal(call: Any, **kwargs: Any) -> str:
    with pytest.raises(ClientError) as refused:
        call(**kwargs)
    return (
        f"{refused.value.response['Error']['Code']}: {refused.value.response['Error']['Message']}"
    )


def test_every_attribute_type_reads_back_as_written(table: tuple[Any, str]) -> None:
    client, name = table
    item = {"id": {"S": "every-type"}, **EVERY_TYPE}
    client.put_item(TableName=name, Item=item)
    for _ in range(2):  # the second read goes through the serializer's cached key lists
        assert client.get_item(TableName=name, Key={"id": item["id"]})["Item"] == item
    updated = client.update_item(
        TableName=name,
        Key={"id": item["id"]},
        UpdateExpression="SET s = :s",
        ExpressionAttributeValues={":s": {"S": "changed"}},
        ReturnValues="ALL_NEW",
    )
    assert updated["Attributes"] == {**item, "s": {"S": "changed"}}


def test_one_expression_string_applies_each_call_its_own_values(table: tuple[Any, str]) -> None:
    client, name = table
    key = {"id": {"S": f"log-{uuid.uuid4()}"}}
    expression = "SET #log = list_append(if_not_exists(#log, :empty), :entry), tries = :n"
    for n in range(1, 4):
        client.update_item(
            TableName=name,
            Key=key,
            UpdateExpression=expression,
            ConditionExpression="attribute_not_exists(tries) OR tries < :n",
            ExpressionAttributeNames={"#log": "log"},
            ExpressionAttributeValues={
                ":empty": {"L": []},
                ":entry": {"L": [{"N": str(n)}]},
                ":n": {"N": str(n)},
            },
        )
    got = client.get_item(TableName=name, Key=key)["Item"]
    assert got["log"] == {"L": [{"N": "1"}, {"N": "2"}, {"N": "3"}]}
    assert got["tries"] == {"N": "3"}


def test_a_condition_string_is_judged_against_each_calls_values(table: tuple[Any, str]) -> None:
    client, name = table
    key = {"id": {"S": f"cond-{uuid.uuid4()}"}}
    client.put_item(TableName=name, Item={**key, "status": {"S": "pending"}})
    condition = "#status = :expected"
    for expected, passes in (("pending", True), ("delivering", False), ("pending", True)):
        kwargs: dict[str, Any] = {
            "TableName": name,
            "Key": key,
            "UpdateExpression": "SET seen = :expected",
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": {":expected": {"S": expected}},
        }
        if passes:
            client.update_item(**kwargs)
        else:
            assert _refusal(client.update_item, **kwargs).startswith(
                "ConditionalCheckFailedException"
            )


def test_a_refused_update_is_refused_every_time(table: tuple[Any, str]) -> None:
    client, name = table
    key = {"id": {"S": "refusals"}}
    values = {":x": {"S": "x"}, ":y": {"S": "y"}}
    same_path = {
        "TableName": name,
        "Key": key,
        "UpdateExpression": "SET #a = :x, #b = :y",
        "ExpressionAttributeNames": {"#a": "same", "#b": "same"},
        "ExpressionAttributeValues": values,
    }
    first = _refusal(client.update_item, **same_path)
    assert first.startswith("ValidationException")
    assert _refusal(client.update_item, **same_path) == first
    # The same string with other names is another expression: accepted, and it changes
    # nothing for the refused one.
    client.update_item(**{**same_path, "ExpressionAttributeNames": {"#a": "one", "#b": "two"}})
    assert _refusal(client.update_item, **same_path) == first

    key_update = {
        "TableName": name,
        "Key": key,
        "UpdateExpression": "SET id = :x",
        "ExpressionAttributeValues": {":x": {"S": "x"}},
    }
    refused = _refusal(client.update_item, **key_update)
    assert refused.startswith("ValidationException")
    assert _refusal(client.update_item, **key_update) == refused


def test_a_refused_condition_is_refused_every_time(table: tuple[Any, str]) -> None:
    client, name = table
    request = {
        "TableName": name,
        "Key": {"id": {"S": "reserved"}},
        "UpdateExpression": "SET a = :x",
        "ConditionExpression": "status = :x",  # a reserved word, found after lexing
        "ExpressionAttributeValues": {":x": {"S": "x"}},
    }
    first = _refusal(client.update_item, **request)
    assert first.startswith("ValidationException")
    assert _refusal(client.update_item, **request) == first
    assert "Item" not in client.get_item(TableName=name, Key=request["Key"])


@pytest.fixture(scope="module")
def keyed(stack: LocalStack) -> Iterator[tuple[Any, str]]:
    """A table with a sort key: three partitions whose keys interleave."""
    client = stack.emulator.dynamodb()
    name = f"speedups-keyed-{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=name,
        KeySchema=PK_SK,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for i in range(60):
        item = {
            "pk": {"S": f"p{i % 3}"},
            "sk": {"S": f"k{(i * 37) % 60:02d}\x01x"},
            "n": {"N": str(i)},
        }
        client.put_item(TableName=name, Item=item)
    yield client, name
    client.delete_table(TableName=name)


def _keys(client: Any, **request: Any) -> list[str]:
    pages = client.get_paginator("query").paginate(**request)
    return [i["sk"]["S"] for page in pages for i in page["Items"]]


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize(
    ("condition", "values", "wanted"),
    [
        ("pk = :p", {}, lambda k: True),
        (
            "pk = :p AND sk BETWEEN :a AND :b",
            {":a": "k10", ":b": "k40"},
            lambda k: "k10" <= k <= "k40",
        ),
        ("pk = :p AND sk > :a", {":a": "k30\x01x"}, lambda k: k > "k30\x01x"),
        ("pk = :p AND sk <= :a", {":a": "k20"}, lambda k: k <= "k20"),
        ("pk = :p AND begins_with(sk, :a)", {":a": "k1"}, lambda k: k.startswith("k1")),
    ],
)
def test_a_query_reads_one_partition_in_key_order(
    keyed: tuple[Any, str], forward: bool, condition: str, values: dict[str, str], wanted: Any
) -> None:
    client, name = keyed
    every = sorted(f"k{(i * 37) % 60:02d}\x01x" for i in range(60) if i % 3 == 1)
    expected = [k for k in every if wanted(k)]
    if not forward:
        expected.reverse()
    request = {
        "TableName": name,
        "KeyConditionExpression": condition,
        "ExpressionAttributeValues": {
            ":p": {"S": "p1"},
            **{k: {"S": v} for k, v in values.items()},
        },
        "ScanIndexForward": forward,
    }
    assert _keys(client, **request) == expected
    assert _keys(client, **request, Limit=3) == expected  # pages resume after their last key
    assert client.query(**request, Select="COUNT")["Count"] == len(expected)


def _numbered_table(client: Any) -> str:
    name = f"speedups-order-{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=name,
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "n", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "n", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    return name


def _pages_hold(client: Any, name: str, expected: list[int]) -> None:
    request = {
        "TableName": name,
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": "p"}},
    }
    for forward in (True, False):
        wanted = [str(n) for n in (expected if forward else expected[::-1])]
        for limit in (1, 4, 100):
            pages = client.get_paginator("query").paginate(
                **request, ScanIndexForward=forward, Limit=limit
            )
            assert [i["n"]["N"] for page in pages for i in page["Items"]] == wanted


def test_a_partition_stays_in_key_order_across_puts_deletes_and_a_cancelled_transaction(
    stack: LocalStack,
) -> None:
    """The key order a Query keeps for a partition follows every write after it was built."""
    client = stack.emulator.dynamodb()
    name = _numbered_table(client)
    held = {n * 10 for n in range(12)}

    def put(n: int, tag: str = "a") -> None:
        item = {"pk": {"S": "p"}, "n": {"N": str(n)}, "tag": {"S": tag}}
        client.put_item(TableName=name, Item=item)

    def key(n: int) -> dict[str, Any]:
        return {"pk": {"S": "p"}, "n": {"N": str(n)}}

    for n in held:
        put(n)
    _pages_hold(client, name, sorted(held))
    for n in (5, 115, -3, 1000):  # new keys between, before and after the others
        put(n)
        held.add(n)
    put(40, tag="b")  # an overwrite keeps its place
    for n in (0, 60, 1000):
        client.delete_item(TableName=name, Key=key(n))
        held.discard(n)
    _pages_hold(client, name, sorted(held))
    with pytest.raises(ClientError):  # the delete is rolled back when the update fails
        client.transact_write_items(
            TransactItems=[
                {"Delete": {"TableName": name, "Key": key(30)}},
                {
                    "Update": {
                        "TableName": name,
                        "Key": key(50),
                        "UpdateExpression": "SET tag = tag + :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    }
                },
            ]
        )
    _pages_hold(client, name, sorted(held))
    client.delete_table(TableName=name)


def _indexed_table(client: Any) -> str:
    """Items on two indexes: `byTag` (tag S, at S) and `byLevel` (level N, no range key), with
    some items on neither and an update that moves an item from one tag to another."""
    name = f"speedups-index-{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=name,
        KeySchema=PK_SK,
        AttributeDefinitions=[
            {"AttributeName": a, "AttributeType": t}
            for a, t in (("pk", "S"), ("sk", "S"), ("tag", "S"), ("at", "S"), ("level", "N"))
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byTag",
                "KeySchema": [
                    {"AttributeName": "tag", "KeyType": "HASH"},
                    {"AttributeName": "at", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "byLevel",
                "KeySchema": [{"AttributeName": "level", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            },
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for i in range(90):
        item: dict[str, Any] = {"pk": {"S": f"p{i % 4}"}, "sk": {"S": f"s{i:02d}"}}
        if i % 3:
            item["tag"] = {"S": f"t{i % 2}"}
            item["at"] = {"S": f"{(i * 7) % 90:02d}"}
        if i % 5 == 0:
            item["level"] = {"N": "1.0" if i % 10 else "1"}
        client.put_item(TableName=name, Item=item)
    client.update_item(
        TableName=name,
        Key={"pk": {"S": "p1"}, "sk": {"S": "s01"}},
        UpdateExpression="SET tag = :t",
        ExpressionAttributeValues={":t": {"S": "t0"}},
    )
    return name


def test_an_index_query_finds_its_partition_in_index_order(stack: LocalStack) -> None:
    client = stack.emulator.dynamodb()
    name = _indexed_table(client)
    items = [
        i for page in client.get_paginator("scan").paginate(TableName=name) for i in page["Items"]
    ]
    tagged = sorted(
        (i for i in items if i.get("tag") == {"S": "t0"}),
        key=lambda i: (i["at"]["S"], i["pk"]["S"], i["sk"]["S"]),
    )
    assert any(i["sk"]["S"] == "s01" for i in tagged)  # moved there by the update
    for forward in (True, False):
        wanted = [i["sk"]["S"] for i in (tagged if forward else tagged[::-1])]
        for limit in (1, 7, 100):
            pages = client.get_paginator("query").paginate(
                TableName=name,
                IndexName="byTag",
                KeyConditionExpression="tag = :t",
                ExpressionAttributeValues={":t": {"S": "t0"}},
                ScanIndexForward=forward,
                PaginationConfig={"PageSize": limit},
            )
            assert [i["sk"]["S"] for page in pages for i in page["Items"]] == wanted
    between = client.query(
        TableName=name,
        IndexName="byTag",
        KeyConditionExpression="tag = :t AND #at BETWEEN :a AND :b",
        ExpressionAttributeNames={"#at": "at"},
        ExpressionAttributeValues={":t": {"S": "t0"}, ":a": {"S": "20"}, ":b": {"S": "50"}},
    )
    assert [i["sk"]["S"] for i in between["Items"]] == [
        i["sk"]["S"] for i in tagged if "20" <= i["at"]["S"] <= "50"
    ]
    # A number key matches by value, as DynamoDB compares numbers: 1 and 1.0 are one partition.
    levels = client.query(
        TableName=name,
        IndexName="byLevel",
        KeyConditionExpression="#l = :l",
        ExpressionAttributeNames={"#l": "level"},
        ExpressionAttributeValues={":l": {"N": "1"}},
    )
    assert levels["Count"] == 18
    client.delete_table(TableName=name)


def test_an_item_over_the_size_limit_is_refused_whole_or_in_attributes(
    table: tuple[Any, str],
) -> None:
    client, name = table
    big = {"id": {"S": "big"}, "blob": {"S": "x" * 406_000}}
    refused = _refusal(client.put_item, TableName=name, Item=big)
    assert "Item size has exceeded the maximum allowed size" in refused
    spread = {"id": {"S": "spread"}, **{f"a{i}": {"S": "y" * 41_000} for i in range(10)}}
    assert _refusal(client.put_item, TableName=name, Item=spread) == refused
    nested = {
        "id": {"S": "nested"},
        "m": {"M": {f"k{i}": {"L": [{"S": "z" * 9_000}] * 5} for i in range(10)}},
    }
    assert _refusal(client.put_item, TableName=name, Item=nested) == refused
    fits = {"id": {"S": "fits"}, **{f"a{i}": {"S": "y" * 39_000} for i in range(10)}}
    client.put_item(TableName=name, Item=fits)
    assert client.get_item(TableName=name, Key={"id": {"S": "fits"}})["Item"] == fits


def test_installing_twice_changes_nothing() -> None:
    # moto ships py.typed, but mypy does not see this class in its module.
    from moto.dynamodb.parsing.expressions import (  # type: ignore[attr-defined]
        UpdateExpressionParser,
    )

    moto_speedups.install()  # the session's emulator runs in a process of its own
    make = UpdateExpressionParser.make
    moto_speedups.install()
    assert UpdateExpressionParser.make == make


def test_a_backend_is_found_for_a_known_account_and_registered_again_after_a_reset() -> None:
    from moto.core.base_backend import BackendDict
    from moto.sqs.models import SQSBackend

    moto_speedups.install()
    backends = BackendDict(SQSBackend, "sqs")
    in_use: list[Any] = BackendDict._instances  # type: ignore[misc]  # moto's own ignore
    try:
        first = backends["111122223333"]
        assert backends in in_use
        assert backends["111122223333"] is first
        # What moto's reset does to each backend in use.
        backends.clear()
        in_use.remove(backends)
        again = backends["111122223333"]
        assert again is not first
        assert backends in in_use
    finally:
        if backends in in_use:
            in_use.remove(backends)


PLAIN_ITEM: dict[str, Any] = {
    key: value for key, value in EVERY_TYPE.items() if key not in ("b", "bs")
} | {
    "deep": {"M": {"l": {"L": [{"M": {"x": {"NS": ["1", "2.50"]}}}, {"SS": []}, {"L": []}]}}},
    "empty": {"M": {}},
}


def _serialized(operation: str, result: dict[str, Any]) -> str:
    from moto.core.serialize import XFormedAttributePicker, get_serializer_class
    from moto.core.utils import get_service_model

    model = get_service_model("dynamodb")
    serializer = get_serializer_class("dynamodb", model.protocol)(
        operation_model=model.operation_model(operation),
        value_picker=XFormedAttributePicker(response_transformers=None),
    )
    return str(serializer.serialize(result)["body"])


@pytest.mark.parametrize("binary", [False, True])
def test_attribute_values_serialize_as_the_shape_walk_serializes_them(binary: bool) -> None:
    from moto.core.serialize import BaseJSONSerializer
    from moto.dynamodb.models.dynamo_type import DynamoType

    moto_speedups.install()
    item = dict(EVERY_TYPE) if binary else dict(PLAIN_ITEM)
    # As moto's responses hold items: each value's `to_json()` (binary already in base64).
    held = {name: DynamoType(value).to_json() for name, value in item.items()}
    results: dict[str, dict[str, Any]] = {
        "GetItem": {"Item": held},
        "Query": {"Items": [held, held], "Count": 2, "ScannedCount": 2},
        "BatchGetItem": {"Responses": {"t": [held]}, "UnprocessedKeys": {}},
    }
    fast = {operation: _serialized(operation, result) for operation, result in results.items()}
    key = (BaseJSONSerializer, "_serialize_type_structure")
    patched = BaseJSONSerializer._serialize_type_structure
    BaseJSONSerializer._serialize_type_structure = moto_speedups.ORIGINALS[key]  # type: ignore[method-assign]
    try:
        walked = {op: _serialized(op, result) for op, result in results.items()}
    finally:
        BaseJSONSerializer._serialize_type_structure = patched  # type: ignore[method-assign]
    assert fast == walked


def test_a_projection_picks_what_moto_picks() -> None:
    from moto.dynamodb.models.dynamo_type import DynamoType, Item

    moto_speedups.install()
    item = Item(DynamoType({"S": "h"}), None, {"id": {"S": "h"}, **PLAIN_ITEM, **EVERY_TYPE})
    paths = [["s"], ["deep", "l[0]", "x"], ["m", "inner"], ["bs"], ["missing"], ["deep", "l[2]"]]
    original = moto_speedups.ORIGINALS[(Item, "project")]
    assert item.project(paths).to_json() == original(item, paths).to_json()
    for path in paths:
        ours, theirs = item.project([path]).to_json(), original(item, [path]).to_json()
        assert _sets_sorted(ours) == _sets_sorted(theirs)


def _sets_sorted(value: Any) -> Any:
    """DynamoDB sets have no order; moto's projection sends them through a Python set."""
    if isinstance(value, dict):
        return {
            key: sorted(inner) if key in ("SS", "NS", "BS") else _sets_sorted(inner)
            for key, inner in value.items()
        }
    if isinstance(value, list):
        return [_sets_sorted(inner) for inner in value]
    return value


def test_a_top_level_projection_returns_the_attributes_as_stored() -> None:
    from moto.dynamodb.models.dynamo_type import DynamoType, Item

    moto_speedups.install()
    # moto's round trip turns an empty set nested in a list into an NS: not this comparison's.
    attrs = {"id": {"S": "h"}, **EVERY_TYPE, **{k: v for k, v in PLAIN_ITEM.items() if k != "deep"}}
    item = Item(DynamoType({"S": "h"}), None, attrs)
    names = [*reversed(attrs), "missing", "s"]
    paths = [[name] for name in names]
    projected = item.project(paths).to_json()["Attributes"]
    stored = item.to_json()["Attributes"]
    assert list(projected) == list(dict.fromkeys(n for n in names if n in stored))
    assert projected == {name: stored[name] for name in projected}
    original = moto_speedups.ORIGINALS[(Item, "project")]
    assert _sets_sorted(projected) == _sets_sorted(original(item, paths).to_json()["Attributes"])


def test_results_convert_to_plain_json_as_moto_converts_them() -> None:
    from datetime import UTC, datetime

    from moto.dynamodb.models import utilities
    from moto.dynamodb.models.dynamo_type import DynamoType, Item

    moto_speedups.install()
    # As BatchGetItem holds an item: its attributes (a LimitedSizeDict of DynamoType values).
    held = Item(DynamoType({"S": "h"}), None, {"id": {"S": "h"}, **EVERY_TYPE, **PLAIN_ITEM})
    result: dict[str, Any] = {
        "Items": [DynamoType(dict(EVERY_TYPE)["m"]), {"plain": [1, 2.5, True, None, "s", b"b"]}],
        "When": datetime(2026, 1, 1, tzinfo=UTC),
        "Item": {name: DynamoType(value) for name, value in EVERY_TYPE.items()},
        "Responses": {"t": [held.describe_attrs(None)["Item"]]},
    }
    fast = utilities.dynamo_to_dict(result)
    patched = utilities.dynamo_to_dict
    # moto's function recurses through the module's name: restore it for the whole walk.
    utilities.dynamo_to_dict = moto_speedups.ORIGINALS[(utilities, "dynamo_to_dict")]
    try:
        walked = utilities.dynamo_to_dict(result)
    finally:
        utilities.dynamo_to_dict = patched
    assert fast == walked
    assert fast["Items"][1] == result["Items"][1]


def test_a_request_id_goes_into_xml_bodies_and_json_bodies_are_left_as_they_are() -> None:
    from moto.core.responses import BaseResponse

    moto_speedups.install()
    original = moto_speedups.ORIGINALS[(BaseResponse, "_enrich_response")]
    for body in ('{"Items": [{"s": {"S": "<Request>"}}]}', "<A><RequestId>x</RequestId></A>"):
        ours_headers, ours = BaseResponse._enrich_response({"status": 200}, body)  # type: ignore[dict-item]
        moto_headers, theirs = original({"status": 200}, body)
        assert ours_headers.keys() == moto_headers.keys()
        assert ours_headers["status"] == moto_headers["status"] == "200"
        if "<RequestId>" in body:
            assert ours == f"<A><RequestId>{ours_headers['x-amzn-requestid']}</RequestId></A>"
            assert theirs == f"<A><RequestId>{moto_headers['x-amzn-requestid']}</RequestId></A>"
        else:
            assert ours == theirs == body


def test_a_value_converts_to_plain_json_as_moto_converts_it_and_shares_nothing() -> None:
    from moto.dynamodb.models.dynamo_type import DynamoType

    moto_speedups.install()
    original = moto_speedups.ORIGINALS[(DynamoType, "to_regular_json")]
    for name, held in {**EVERY_TYPE, **PLAIN_ITEM}.items():
        value = DynamoType(held)
        # moto's own recursion goes through the patched method for nested values: compare it
        # with the whole walk restored.
        patched = DynamoType.to_regular_json
        DynamoType.to_regular_json = original  # type: ignore[method-assign]
        try:
            walked = value.to_regular_json()
        finally:
            DynamoType.to_regular_json = patched  # type: ignore[method-assign]
        ours = value.to_regular_json()
        assert ours == walked, name
        before = value.to_json()
        for container in ours.values():
            if isinstance(container, dict):
                container["added"] = {"S": "x"}
            elif isinstance(container, list):
                container.append({"S": "x"})
        assert value.to_json() == before, name
