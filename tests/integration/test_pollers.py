"""The pollers that stand in for Lambda's event sources, against a real moto server.

The handlers here are recording stand-ins written to the test's tmp dir and loaded by file
path through the template's CodeUri + Handler, as the real ones are: these tests are about
what the pollers deliver and how they treat failures, not about our handlers.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.utilities.parser.models import DynamoDBStreamModel, SqsModel

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from infra.emulator import Emulator
from infra.lambda_runtime import FunctionRuntime, load_runtimes
from infra.pollers import PollerOptions, Pollers, build_pollers, parse_rate
from infra.provisioning import Provisioned, provision
from infra.template_model import Template, TemplateError
from tests.support.recording_handlers import calls_of, plan_of, template_with_recording_handlers
from tests.support.waiting import wait_until

FAST = PollerOptions(
    delivery_interval_s=0.05,
    time_scale=0.01,
    stream_poll_interval_s=0.02,
    stream_retry_base_s=0.001,
)


class Stack:
    """A freshly provisioned copy of the template (own prefix) with recording handlers."""

    def __init__(self, emulator: Emulator, template: Template, options: PollerOptions) -> None:
        self.emulator = emulator
        self.prefix = f"p{uuid.uuid4().hex[:8]}-"
        self.provisioned: Provisioned = provision(emulator, template, prefix=self.prefix)
        # The outbox stream's other consumer (PurgeFunction) reads the same records; these
        # tests follow one consumer of the stream, the fan-out.
        self.runtimes: dict[str, FunctionRuntime] = {
            logical_id: runtime
            for logical_id, runtime in load_runtimes(
                template, region=emulator.region, prefix=self.prefix
            ).items()
            if logical_id != "PurgeFunction"
        }
        self.pollers: Pollers = build_pollers(self.provisioned, emulator, self.runtimes, options)

    def calls(self, function: str) -> list[dict[str, Any]]:
        return calls_of(self.runtimes[function].handler)

    def plan(self, function: str, *steps: Any) -> None:
        plan_of(self.runtimes[function].handler).extend(steps)

    def put_event(self, event_id: str, **extra: str | bytes) -> None:
        item: dict[str, Any] = {"id": {"S": event_id}, "kind": {"S": "entry.created"}}
        item.update({k: {"B" if isinstance(v, bytes) else "S": v} for k, v in extra.items()})
        self.emulator.dynamodb().put_item(
            TableName=self.provisioned.tables["EventsTable"].name, Item=item
        )

    def event_ids(self, call: dict[str, Any]) -> list[str]:
        return [r["dynamodb"]["Keys"]["id"]["S"] for r in call["event"]["Records"]]

    def queue_url(self, logical_id: str) -> str:
        return self.provisioned.queues[logical_id].url


@pytest.fixture
def stack(emulator: Emulator, tmp_path: Path) -> Iterator[Stack]:
    built = Stack(emulator, template_with_recording_handlers(tmp_path), FAST)
    yield built
    built.pollers.stop()


def test_a_stream_insert_reaches_the_handler_in_lambda_shape(stack: Stack) -> None:
    (poller,) = stack.pollers.streams
    poller.prepare()
    stack.put_event("e1", data="payload", blob=b"\x00\xff")

    assert poller.poll_once() is True

    (call,) = stack.calls("FanoutFunction")
    (record,) = call["event"]["Records"]
    assert set(record) == {
        "eventID",
        "eventName",
        "eventVersion",
        "eventSource",
        "awsRegion",
        "dynamodb",
        "eventSourceARN",
    }
    assert record["eventName"] == "INSERT"
    assert record["eventVersion"] == "1.1"
    assert record["eventSource"] == "aws:dynamodb"
    assert record["awsRegion"] == "us-east-1"
    assert record["eventSourceARN"] == stack.provisioned.tables["EventsTable"].stream_arn
    change = record["dynamodb"]
    assert set(change) == {
        "ApproximateCreationDateTime",
        "Keys",
        "NewImage",
        "SequenceNumber",
        "SizeBytes",
        "StreamViewType",
    }
    assert isinstance(change["ApproximateCreationDateTime"], float)
    assert abs(change["ApproximateCreationDateTime"] - time.time()) < 60
    assert change["Keys"] == {"id": {"S": "e1"}}
    assert change["NewImage"] == {
        "id": {"S": "e1"},
        "kind": {"S": "entry.created"},
        "data": {"S": "payload"},
        "blob": {"B": "AP8="},  # base64 in Lambda's JSON, not bytes
    }
    assert change["StreamViewType"] == "NEW_IMAGE"
    json.dumps(call["event"])  # Lambda events are JSON: nothing boto3-specific leaks in
    parsed = DynamoDBStreamModel.model_validate(call["event"])  # an independent reading
    assert parsed.Records[0].dynamodb.NewImage == {
        "id": "e1",
        "kind": "entry.created",
        "data": "payload",
        "blob": "AP8=",  # Powertools, like Lambda, hands binary on as base64 text
    }
    assert call["function_name"] == f"{stack.prefix}FanoutFunction"
    assert call["invoked_function_arn"].endswith(f":function:{stack.prefix}FanoutFunction")
    assert call["memory_limit_in_mb"] == 512
    assert 0 < call["remaining_ms"] <= 60_000
    assert poller.poll_once() is False


def test_the_filter_lets_only_inserts_through(stack: Stack) -> None:
    (poller,) = stack.pollers.streams
    poller.prepare()
    client = stack.emulator.dynamodb()
    table = stack.provisioned.tables["EventsTable"].name
    stack.put_event("e1")
    client.update_item(
        TableName=table,
        Key={"id": {"S": "e1"}},
        UpdateExpression="SET kind = :k",
        ExpressionAttributeValues={":k": {"S": "changed"}},
    )
    client.delete_item(TableName=table, Key={"id": {"S": "e1"}})
    stack.put_event("e2")

    while poller.poll_once():
        pass

    names = [r["eventName"] for c in stack.calls("FanoutFunction") for r in c["event"]["Records"]]
    assert names == ["INSERT", "INSERT"]


def test_a_reported_failure_is_retried_from_that_record(stack: Stack) -> None:
    (poller,) = stack.pollers.streams
    poller.prepare()
    for event_id in ("e1", "e2", "e3"):
        stack.put_event(event_id)
    stack.plan("FanoutFunction", {"fail": [1]}, "ok")

    poller.poll_once()

    calls = stack.calls("FanoutFunction")
    assert [stack.event_ids(c) for c in calls] == [["e1", "e2", "e3"], ["e2", "e3"]]
    assert poller.poll_once() is False


def test_an_exception_retries_the_whole_batch_bisecting_it(stack: Stack) -> None:
    (poller,) = stack.pollers.streams
    poller.prepare()
    stack.put_event("e1")
    stack.put_event("e2")
    stack.plan("FanoutFunction", "raise", "raise", "ok", "ok")

    poller.poll_once()

    # [e1, e2] raised: split in two (BisectBatchOnFunctionError); [e1] raised alone and
    # was retried whole; then [e2].
    calls = stack.calls("FanoutFunction")
    assert [stack.event_ids(c) for c in calls] == [["e1", "e2"], ["e1"], ["e1"], ["e2"]]


def test_exhausted_retries_go_to_the_on_failure_queue_and_the_shard_moves_on(
    stack: Stack,
) -> None:
    (poller,) = stack.pollers.streams
    poller.prepare()
    stack.put_event("poison")
    stack.plan("FanoutFunction", *(["raise"] * (poller.max_retries + 1)))
    assert poller.max_retries == 10  # the template's MaximumRetryAttempts

    poller.poll_once()
    stack.put_event("next")
    poller.poll_once()

    calls = stack.calls("FanoutFunction")
    assert [stack.event_ids(c) for c in calls] == [["poison"]] * 11 + [["next"]]
    messages = stack.emulator.sqs().receive_message(
        QueueUrl=stack.queue_url("FanoutFailureQueue"), MaxNumberOfMessages=10
    )["Messages"]
    (message,) = messages
    body = json.loads(message["Body"])
    assert body["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert body["requestContext"]["approximateInvokeCount"] == 11
    assert body["requestContext"]["functionArn"] == stack.runtimes["FanoutFunction"].arn
    assert body["responseContext"]["functionError"] == "Unhandled"
    info = body["DDBStreamBatchInfo"]
    poison_sequence = calls[0]["event"]["Records"][0]["dynamodb"]["SequenceNumber"]
    assert info["startSequenceNumber"] == info["endSequenceNumber"] == poison_sequence
    assert info["batchSize"] == 1
    assert info["streamArn"] == stack.provisioned.tables["EventsTable"].stream_arn


def test_the_stream_poller_thread_delivers_survives_errors_and_stops(stack: Stack) -> None:
    (poller,) = stack.pollers.streams
    stack.plan("FanoutFunction", "raise")
    poller.start()
    stack.put_event("e1")

    wait_until(lambda: len(stack.calls("FanoutFunction")) >= 2, message="a retried delivery")
    stack.put_event("e2")
    wait_until(
        lambda: any(stack.event_ids(c) == ["e2"] for c in stack.calls("FanoutFunction")),
        message="the next record after an error",
    )
    # Idle now for an hour at a time: stop() must wake the wait, not sit it out.
    poller.poll_interval_s = 3600
    assert poller.stop(timeout=10)
    assert not poller.running


def test_a_poller_stopped_after_its_thread_ran_is_polled_synchronously_again(
    stack: Stack,
) -> None:
    """A test module that runs a poller on its thread hands it back to the next module's
    drains: once stopped, `poll_once` delivers again instead of reporting nothing to do."""
    (poller,) = stack.pollers.streams
    poller.start()
    assert poller.stop(timeout=10)
    stack.put_event("after-stop")

    assert poller.poll_once() is True
    assert [stack.event_ids(c) for c in stack.calls("FanoutFunction")] == [["after-stop"]]


def test_compaction_forgets_old_iterators_and_the_poller_resumes_from_its_checkpoint(
    stack: Stack,
) -> None:
    from moto.dynamodbstreams.models import dynamodbstreams_backends

    (poller,) = stack.pollers.streams
    poller.prepare()
    stack.put_event("e1")
    poller.poll_once()

    # moto's backends are the process's: the session stack's pollers and its housekeeping
    # compaction share them, so this compacts by argument and looks at its own stream only.
    stack.emulator.compact(keep=0)

    assert not any(
        key.startswith(poller.stream_arn)
        for account in dynamodbstreams_backends.values()
        for backend in account.values()
        for key in list(backend.shard_iterators)
    )
    stack.put_event("e2")
    wait_until(poller.poll_once, message="a poll after compaction")
    calls = stack.calls("FanoutFunction")
    assert [stack.event_ids(c) for c in calls] == [["e1"], ["e2"]]


def _send(stack: Stack, count: int) -> list[str]:
    client = stack.emulator.sqs()
    ids = []
    for i in range(count):
        ids.append(
            client.send_message(
                QueueUrl=stack.queue_url("DeliveryQueue"),
                MessageBody=json.dumps({"deliveryId": f"d{i}"}),
                MessageAttributes={"kind": {"DataType": "String", "StringValue": "delivery"}},
            )["MessageId"]
        )
    return ids


def _queue_counts(stack: Stack) -> tuple[int, int]:
    attributes = stack.emulator.sqs().get_queue_attributes(
        QueueUrl=stack.queue_url("DeliveryQueue"),
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return (
        int(attributes["ApproximateNumberOfMessages"]),
        int(attributes["ApproximateNumberOfMessagesNotVisible"]),
    )


def test_an_sqs_batch_is_delivered_in_lambda_shape_up_to_the_batch_size(stack: Stack) -> None:
    (poller,) = stack.pollers.queues
    assert poller.batch_size == 20  # the template's; SQS itself returns at most 10 per call
    ids = _send(stack, 25)

    assert poller.poll_once() is True
    assert poller.poll_once() is True
    assert poller.poll_once() is False

    calls = stack.calls("DeliveryFunction")
    assert [len(c["event"]["Records"]) for c in calls] == [20, 5]
    delivered = [r["messageId"] for c in calls for r in c["event"]["Records"]]
    assert sorted(delivered) == sorted(ids)
    record = calls[0]["event"]["Records"][0]
    assert set(record) == {
        "messageId",
        "receiptHandle",
        "body",
        "attributes",
        "messageAttributes",
        "md5OfBody",
        "md5OfMessageAttributes",
        "eventSource",
        "eventSourceARN",
        "awsRegion",
    }
    assert set(record["attributes"]) == {
        "ApproximateReceiveCount",
        "SentTimestamp",
        "SenderId",
        "ApproximateFirstReceiveTimestamp",
    }
    assert record["attributes"]["ApproximateReceiveCount"] == "1"
    assert record["messageAttributes"] == {
        "kind": {
            "stringValue": "delivery",
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": "String",
        }
    }
    assert json.loads(record["body"])["deliveryId"].startswith("d")
    parsed = SqsModel.model_validate(calls[0]["event"])  # an independent reading
    assert parsed.Records[0].attributes.ApproximateReceiveCount == "1"
    assert record["eventSource"] == "aws:sqs"
    assert record["eventSourceARN"] == stack.provisioned.queues["DeliveryQueue"].arn
    assert record["awsRegion"] == "us-east-1"
    assert calls[0]["function_name"] == f"{stack.prefix}DeliveryFunction"
    assert _queue_counts(stack) == (0, 0)  # every success deleted


def test_sqs_failures_reappear_after_the_visibility_timeout_and_successes_are_deleted(
    stack: Stack,
) -> None:
    (poller,) = stack.pollers.queues
    # The template's 3960 s would make this test an hour long; the mechanism is the queue's.
    stack.emulator.sqs().set_queue_attributes(
        QueueUrl=stack.queue_url("DeliveryQueue"), Attributes={"VisibilityTimeout": "1"}
    )
    ids = _send(stack, 3)
    stack.plan("DeliveryFunction", {"fail": [1]})

    poller.poll_once()
    first = stack.calls("DeliveryFunction")[0]["event"]["Records"]
    failed_id = first[1]["messageId"]
    assert _queue_counts(stack) == (0, 1)
    assert poller.poll_once() is False  # still invisible

    wait_until(poller.poll_once, timeout=5, message="the failed message to come back")

    again = stack.calls("DeliveryFunction")[1]["event"]["Records"]
    assert [r["messageId"] for r in again] == [failed_id]
    assert again[0]["attributes"]["ApproximateReceiveCount"] == "2"
    assert _queue_counts(stack) == (0, 0)
    assert sorted(r["messageId"] for r in first) == sorted(ids)


def test_an_sqs_handler_exception_deletes_nothing(stack: Stack) -> None:
    (poller,) = stack.pollers.queues
    _send(stack, 2)
    stack.plan("DeliveryFunction", "raise")

    assert poller.poll_once() is True

    assert _queue_counts(stack) == (0, 2)


def test_an_invalid_item_identifier_fails_the_whole_sqs_batch(stack: Stack) -> None:
    (poller,) = stack.pollers.queues
    _send(stack, 2)
    stack.runtimes["DeliveryFunction"].handler = lambda event, context: {
        "batchItemFailures": [{"itemIdentifier": "not-in-this-batch"}]
    }

    poller.poll_once()

    assert _queue_counts(stack) == (0, 2)


def test_interval_zero_means_no_sqs_poller(stack: Stack) -> None:
    pollers = build_pollers(
        stack.provisioned,
        stack.emulator,
        stack.runtimes,
        PollerOptions(delivery_interval_s=0),
    )
    assert pollers.queues == []
    assert len(pollers.streams) == 1
    assert pollers.schedules is not None


def test_a_zero_delivery_interval_disables_the_delivery_event_through_the_template(
    emulator: Emulator, tmp_path: Path
) -> None:
    template = template_with_recording_handlers(tmp_path)
    provisioned = provision(
        emulator, template, prefix="p-off-", user_env={"WEBHOOKS_DELIVERY_INTERVAL": "0"}
    )
    runtimes = load_runtimes(template, region=emulator.region, prefix="p-off-")
    pollers = build_pollers(provisioned, emulator, runtimes, FAST)
    assert pollers.queues == []


def test_a_schedule_tick_calls_the_handler_with_the_input(stack: Stack) -> None:
    stack.pollers.tick("Sweep")
    stack.pollers.tick("SchedulerFunction.Prune")

    calls = stack.calls("SchedulerFunction")
    assert [c["event"] for c in calls] == [{"job": "sweep"}, {"job": "prune"}]
    assert calls[0]["function_name"] == f"{stack.prefix}SchedulerFunction"
    with pytest.raises(KeyError):
        stack.pollers.tick("Nope")


def test_schedules_fire_on_their_scaled_period_despite_errors(
    emulator: Emulator, tmp_path: Path
) -> None:
    stack = Stack(
        emulator,
        template_with_recording_handlers(tmp_path),
        PollerOptions(delivery_interval_s=0, time_scale=0.001),
    )
    schedules = stack.pollers.schedules
    assert schedules is not None
    assert schedules.schedules["SchedulerFunction.Sweep"].period_s == pytest.approx(0.06)
    assert schedules.schedules["SchedulerFunction.Lists"].period_s == pytest.approx(0.06)
    assert schedules.schedules["SchedulerFunction.Prune"].period_s == pytest.approx(3.6)
    stack.plan("SchedulerFunction", "raise")
    schedules.start()
    try:
        wait_until(
            lambda: len(stack.calls("SchedulerFunction")) >= 9, message="three of each minute job"
        )
    finally:
        schedules.stop()
    # The minute jobs fired again and again although every call raised; the hourly one not yet.
    assert {json.dumps(c["event"]) for c in stack.calls("SchedulerFunction")} == {
        json.dumps({"job": "sweep"}),
        json.dumps({"job": "lists"}),
        json.dumps({"job": "schedules"}),
    }


def test_rate_expressions() -> None:
    assert parse_rate("rate(1 minute)") == 60
    assert parse_rate("rate(5 minutes)") == 300
    assert parse_rate("rate(1 hour)") == 3600
    assert parse_rate("rate(2 days)") == 172800
    with pytest.raises(TemplateError, match="rate"):
        parse_rate("cron(0 12 * * ? *)")


def test_a_handler_s_log_keys_do_not_leak_past_its_invocation(tmp_path: Path) -> None:
    """Lambda runs each function in its own process; the shared local process must not carry
    one handler's Lambda context keys onto the next log line."""
    from content_service.observability import logger as service_logger
    from infra.lambda_runtime import load_handler

    module = tmp_path / "keyed_handler.py"
    module.write_text(
        "from content_service.observability import logger\n"
        "@logger.inject_lambda_context\n"
        "def handler(event, context):\n"
        "    return sorted(logger.get_current_keys())\n"
    )
    template = Template.load(Path(__file__).parents[2] / "template.yaml")
    spec = template.functions["SchedulerFunction"]
    runtime = FunctionRuntime(spec, load_handler(module, "handler", "keyed_h"), region="us-east-1")
    before = dict(service_logger.get_current_keys())
    inside = runtime.invoke({})
    assert "function_name" in inside
    assert service_logger.get_current_keys() == before
