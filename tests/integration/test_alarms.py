"""The template's alarms watch what they claim to: the real queues, the real fan-out function,
and metrics the handlers really emit (their EMF output, captured from a real invocation).

Each alarm is checked against the rest of the template (the dead-letter queue is the delivery
queue's redrive target, each failure queue is its stream consumer's OnFailure destination, the
function is the one reading the outbox stream) and against the code (namespace, name and
dimensions of every custom metric, as the delivery handler prints them). A new alarm fails the
test until it is described here.
"""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest

from content_service.webhooks.endpoints import Endpoint
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock, store_endpoint
from infra.lambda_runtime import FunctionRuntime
from infra.local_stack import LocalStack
from infra.template_model import Template
from tests.support.settings import webhook_options
from tests.support.webhooks import function_runtime, purge_endpoint, seed_rows, sqs_event

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")

ALARM_TYPE = "AWS::CloudWatch::Alarm"
TOPIC_ACTIONS = {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}


@pytest.fixture(scope="module")
def template() -> Template:
    return Template.load()


@pytest.fixture(scope="module")
def alarms(template: Template) -> dict[str, dict[str, Any]]:
    return {
        name: dict(resource.properties)
        for name, resource in template.resources_of_type(ALARM_TYPE).items()
    }


@pytest.fixture(scope="module")
def emitted(stack: LocalStack) -> list[dict[str, Any]]:
    """The EMF documents the delivery handler prints for a success, a death, an auto-disable."""
    blobs: list[dict[str, Any]] = []
    with (
        Receiver() as receiver,
        webhook_options(
            allow_private_networks=True, allow_insecure_urls=True, auto_disable_after=1
        ),
    ):
        endpoint: Endpoint = store_endpoint(receiver.url())
        try:
            receiver.respond(Answer(200), Answer(410, b"gone"))
            ok, dead = seed_rows(endpoint.id, FakeClock(), count=2)
            delivery = function_runtime(stack, "DeliveryFunction")
            for seeded in (ok, dead):
                blobs.extend(_emf(delivery, sqs_event(seeded.id)))
        finally:
            purge_endpoint(endpoint.id)
    return blobs


def _emf(function: FunctionRuntime, event: dict[str, Any]) -> list[dict[str, Any]]:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        function.invoke(event)
    documents = []
    for line in printed.getvalue().splitlines():
        if line.startswith("{") and '"_aws"' in line:
            documents.append(json.loads(line))
    return documents


def _custom_metric_emitted(blobs: list[dict[str, Any]], metric: dict[str, Any]) -> bool:
    """Whether a printed EMF document has this metric, in this namespace, with these dims."""
    dimensions = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
    for blob in blobs:
        for directive in blob["_aws"]["CloudWatchMetrics"]:
            names = {m["Name"] for m in directive["Metrics"]}
            if directive["Namespace"] != metric["Namespace"] or metric["MetricName"] not in names:
                continue
            if any(set(d) == set(dimensions) for d in directive["Dimensions"]) and all(
                blob.get(k) == v for k, v in dimensions.items()
            ):
                return True
    return False


def test_every_alarm_is_described_and_notifies_the_optional_topic(
    alarms: dict[str, dict[str, Any]], template: Template
) -> None:
    assert set(alarms) == {
        "DeliveryDeadLetterAlarm",
        "FanoutFailureAlarm",
        "FanoutIteratorAgeAlarm",
        "PurgeFailureAlarm",
        "EndpointAutoDisabledAlarm",
        "HighDeadRateAlarm",
    }
    assert template.parameters["AlarmTopicArn"].default == ""
    for name, alarm in alarms.items():
        assert alarm["AlarmActions"] == TOPIC_ACTIONS, name
        assert alarm["OKActions"] == TOPIC_ACTIONS, name
        assert alarm["TreatMissingData"] == "notBreaching", name


def test_the_dead_letter_alarm_watches_the_delivery_queues_redrive_target(
    alarms: dict[str, dict[str, Any]], template: Template
) -> None:
    alarm = alarms["DeliveryDeadLetterAlarm"]
    redrive = template.resources["DeliveryQueue"].properties["RedrivePolicy"]
    (target, _) = redrive["deadLetterTargetArn"]["Fn::GetAtt"]
    assert alarm["Namespace"] == "AWS/SQS"
    assert alarm["MetricName"] == "ApproximateNumberOfMessagesVisible"
    assert alarm["Dimensions"] == [
        {"Name": "QueueName", "Value": {"Fn::GetAtt": [target, "QueueName"]}}
    ]
    assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (1, "GreaterThanOrEqualToThreshold")
    assert "content-service replay delivery-dlq" in alarm["AlarmDescription"]


@pytest.mark.parametrize(
    ("function", "alarm", "command"),
    [
        ("FanoutFunction", "FanoutFailureAlarm", "content-service replay fanout-failures"),
        ("PurgeFunction", "PurgeFailureAlarm", "content-service replay purge-failures"),
    ],
)
def test_a_stream_consumer_s_failure_destination_is_watched_and_names_its_replay(
    alarms: dict[str, dict[str, Any]], template: Template, function: str, alarm: str, command: str
) -> None:
    (outbox,) = template.functions[function].events.values()
    assert outbox.properties["Stream"] == {"Fn::GetAtt": ["EventsTable", "StreamArn"]}
    destination = outbox.properties["DestinationConfig"]["OnFailure"]["Destination"]
    (queue, _) = destination["Fn::GetAtt"]

    failures = alarms[alarm]
    assert (failures["Namespace"], failures["MetricName"]) == (
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
    )
    assert failures["Dimensions"] == [
        {"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}
    ]
    assert (failures["Threshold"], failures["ComparisonOperator"]) == (
        1,
        "GreaterThanOrEqualToThreshold",
    )
    assert command in " ".join(failures["AlarmDescription"].split())


def test_the_fan_out_s_stream_lag_is_watched(alarms: dict[str, dict[str, Any]]) -> None:
    lag = alarms["FanoutIteratorAgeAlarm"]
    assert (lag["Namespace"], lag["MetricName"], lag["Statistic"]) == (
        "AWS/Lambda",
        "IteratorAge",
        "Maximum",
    )
    assert lag["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": "FanoutFunction"}}]
    # Milliseconds: five minutes behind, far inside the stream's 24-hour retention.
    assert (lag["Threshold"], lag["ComparisonOperator"]) == (300_000, "GreaterThanThreshold")


def test_the_auto_disable_alarm_fires_on_the_metric_the_delivery_handler_emits(
    alarms: dict[str, dict[str, Any]], emitted: list[dict[str, Any]]
) -> None:
    alarm = alarms["EndpointAutoDisabledAlarm"]
    assert alarm["MetricName"] == "EndpointsAutoDisabled"
    assert _custom_metric_emitted(emitted, alarm)
    assert (alarm["Statistic"], alarm["Threshold"], alarm["ComparisonOperator"]) == (
        "Sum",
        1,
        "GreaterThanOrEqualToThreshold",
    )


def test_the_dead_rate_alarm_divides_metrics_the_delivery_handler_emits(
    alarms: dict[str, dict[str, Any]], emitted: list[dict[str, Any]]
) -> None:
    alarm = alarms["HighDeadRateAlarm"]
    inputs = {m["Id"]: m for m in alarm["Metrics"] if "MetricStat" in m}
    assert {i["MetricStat"]["Metric"]["MetricName"] for i in inputs.values()} == {
        "DeliveriesDead",
        "DeliveriesSucceeded",
    }
    for metric in inputs.values():
        assert metric["ReturnData"] is False
        assert _custom_metric_emitted(emitted, metric["MetricStat"]["Metric"])
    (rate,) = [m for m in alarm["Metrics"] if "Expression" in m]
    assert rate["ReturnData"] is True
    expression = " ".join(rate["Expression"].split())
    assert expression == (
        "IF((FILL(dead, 0) + FILL(succeeded, 0)) >= 20, "
        "FILL(dead, 0) / (FILL(dead, 0) + FILL(succeeded, 0)), 0)"
    )
    assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (0.25, "GreaterThanThreshold")
