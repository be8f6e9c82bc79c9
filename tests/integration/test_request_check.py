"""The request check is on for the test stack, judges the app's own clients, and catches what the
emulator lets through (the content-type update of before 7d2f133)."""

from __future__ import annotations

import socket
import uuid
from typing import Any

import httpx
import pytest

from content_service import runtime
from content_service.storage import aws, dynamo
from infra import request_check
from infra.api_workers import WorkerProcesses
from infra.local_stack import LocalStack
from infra.request_rules import RequestRefused
from infra.template_model import Template
from tests.support.request_check_probe import probe_app


def _old_type_update(table: str, pk: str) -> dict[str, Any]:
    """The shape `_type_update` sent for a field addition before 7d2f133: `:zero` in the values,
    a condition that does not use it (on a fresh item, so the emulator has something to write)."""
    return {
        "Update": {
            "TableName": table,
            "Key": {"pk": {"S": pk}, "sk": {"S": "TYPE#blog_post"}},
            "UpdateExpression": "SET #a0 = :a0, revision = :one",
            "ConditionExpression": "attribute_not_exists(pk) OR revision = :revision",
            "ExpressionAttributeNames": {"#a0": "fields"},
            "ExpressionAttributeValues": {
                ":a0": {"S": "[]"},
                ":revision": {"N": "1"},
                ":one": {"N": "1"},
                ":zero": {"N": "0"},
            },
        }
    }


def test_the_stack_switches_the_check_on_with_its_tables(stack: LocalStack) -> None:
    assert stack.environment[request_check.SWITCH] == "on"
    assert request_check.enabled()
    known = request_check.tables()
    settings = runtime.settings()
    assert known[settings.tables.deliveries].indexes["byEndpoint"].global_index
    assert known[settings.tables.schema].keys == ("pk", "sk")


def test_the_old_content_type_update_is_refused_by_name_though_the_emulator_takes_it(
    stack: LocalStack,
) -> None:
    table = runtime.settings().tables.schema
    refused_item = _old_type_update(table, f"WS#{uuid.uuid4()}")
    with pytest.raises(RequestRefused) as raised:
        dynamo.transact([refused_item])  # type: ignore[list-item]
    assert raised.value.rule == "expression-value-unused"
    assert ":zero" in str(raised.value)
    assert [r.rule for r in request_check.take_refusals()] == ["expression-value-unused"]

    # The emulator, asked directly (no check), accepts the very same request: moto is not the
    # judge, which is why the check exists.
    stack.emulator.dynamodb().transact_write_items(
        TransactItems=[_old_type_update(table, f"WS#{uuid.uuid4()}")]  # type: ignore[list-item]
    )


def test_pynamodb_requests_are_checked_too(stack: LocalStack) -> None:
    settings = runtime.settings()
    client = aws.client_at("dynamodb", settings.region, settings.aws_endpoint_url)
    with pytest.raises(RequestRefused, match="consistent-read-on-global-index"):
        client.query(
            TableName=settings.tables.schema,
            IndexName="gsi1",
            ConsistentRead=True,
            KeyConditionExpression="gsi1pk = :k",
            ExpressionAttributeValues={":k": {"S": "USERS"}},
        )
    assert [r.rule for r in request_check.take_refusals()] == ["consistent-read-on-global-index"]


def test_an_api_worker_process_holds_the_app_s_requests_too(stack: LocalStack) -> None:
    """`make run`'s API workers are processes of their own: they install the check as they
    start (the layer only offers the hook), from the environment the stack gives them."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    workers = WorkerProcesses(1, listener, dict(stack.environment), probe_app)
    try:
        workers.start()
        answer = httpx.get(f"http://127.0.0.1:{listener.getsockname()[1]}/", timeout=30)
    finally:
        workers.stop()
        listener.close()
    assert answer.text == "refused expression-value-unused"


def test_the_check_is_never_on_in_lambda() -> None:
    """The template sets neither variable, and without them the check is off."""
    template = Template.load()
    bound = template.environment_bindings()
    assert request_check.SWITCH not in bound
    assert request_check.TABLES not in bound
    assert not request_check.enabled({})
    with pytest.raises(ValueError, match="on or off"):
        request_check.enabled({request_check.SWITCH: "yes please"})
