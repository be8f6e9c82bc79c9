"""What the delivery function tells operators: one structured log line per attempt (delivery
id, endpoint id, verdict) and Powertools metrics in CloudWatch's embedded metric format, for
deliveries by verdict, attempt latency, auto-disabled endpoints and recoveries.

The handler runs as Lambda would run it (the local stack's runtime of the template's
DeliveryFunction) on the samples under events/; its standard output is read as CloudWatch would.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from content_service.webhooks.deliveries import recovery_key
from content_service.webhooks.endpoints import EndpointRegistry
from content_service.webhooks.sending import message_body
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock, store_endpoint
from infra.local_stack import LocalStack
from tests.support.settings import webhook_options
from tests.support.webhooks import function_runtime, purge_endpoint, seed_rows, settings

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")

EVENTS = Path(__file__).resolve().parents[2] / "events"


def sample(name: str) -> Any:
    return json.loads((EVENTS / name).read_text(encoding="utf-8"))


@contextmanager
def printed(capsys: pytest.CaptureFixture[str]) -> Iterator[list[str]]:
    """What the handler prints: its log lines (the Powertools logger's stream, swapped for a
    buffer) and its metrics (EMF, printed to standard output)."""
    buffer = io.StringIO()
    handlers = [
        h
        for h in logging.getLogger("content-service").handlers
        if isinstance(h, logging.StreamHandler)
    ]
    before = [h.setStream(buffer) for h in handlers]
    capsys.readouterr()
    out: list[str] = []
    try:
        yield out
    finally:
        for handler, stream in zip(handlers, before, strict=True):
            handler.setStream(stream)
        out.append(buffer.getvalue() + capsys.readouterr().out)


def _output(text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(log lines, EMF metric blobs) among the JSON lines the handler printed."""
    logs, blobs = [], []
    for line in text.splitlines():
        try:
            parsed = json.loads(line)
        except ValueError:
            continue
        if isinstance(parsed, dict) and "_aws" in parsed:
            blobs.append(parsed)
        elif isinstance(parsed, dict) and "message" in parsed:
            logs.append(parsed)
    return logs, blobs


def _metrics(blobs: list[dict[str, Any]]) -> dict[str, tuple[str, list[float], list[list[str]]]]:
    """Metric name -> (unit, values, dimension sets), over every blob."""
    found: dict[str, tuple[str, list[float], list[list[str]]]] = {}
    for blob in blobs:
        for directive in blob["_aws"]["CloudWatchMetrics"]:
            for metric in directive["Metrics"]:
                value = blob[metric["Name"]]
                values = value if isinstance(value, list) else [value]
                unit, before, dims = found.get(metric["Name"], (metric["Unit"], [], []))
                found[metric["Name"]] = (unit, before + values, dims + directive["Dimensions"])
    return found


def test_each_attempt_logs_one_line_and_the_verdicts_are_metrics(
    stack: LocalStack, receiver: Receiver, clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = store_endpoint(receiver.url())
    try:
        with webhook_options(auto_disable_after=1):
            rows = seed_rows(endpoint.id, clock, count=2)
            receiver.respond(Answer(200), Answer(404))
            event = sample("delivery-sqs-batch.json")
            for record, seeded in zip(event["Records"], rows, strict=True):
                record["body"] = message_body(seeded.id)
            with printed(capsys) as out:
                response = function_runtime(stack, "DeliveryFunction").invoke(event)
        assert response == {"batchItemFailures": []}
        logs, blobs = _output(out[0])
        attempts = [line for line in logs if line["message"] == "delivery attempt"]
        assert sorted((a["deliveryId"], a["verdict"]) for a in attempts) == sorted(
            zip([r.id for r in rows], ["succeeded", "dead"], strict=True)
        )
        for line in attempts:
            assert line["endpointId"] == endpoint.id
            assert line["attempt"] == 1
            assert isinstance(line["durationMs"], int)
        metrics = _metrics(blobs)
        assert metrics["DeliveriesSucceeded"][:2] == ("Count", [1.0])
        assert metrics["DeliveriesDead"][:2] == ("Count", [1.0])
        assert metrics["EndpointsAutoDisabled"][:2] == ("Count", [1.0])
        unit, latencies, dimensions = metrics["AttemptLatency"]
        assert unit == "Milliseconds"
        assert len(latencies) == 2
        assert dimensions == [["service"]]
        assert all(blob["service"] == "content-service" for blob in blobs)
    finally:
        purge_endpoint(endpoint.id)


def test_a_recovery_message_runs_a_step_and_counts_it(
    stack: LocalStack, receiver: Receiver, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = store_endpoint(receiver.url())
    try:
        recovery = EndpointRegistry(settings()).recover(
            endpoint.id, "2026-01-01T00:00:00Z", None, None
        )
        event = sample("delivery-sqs-recovery.json")
        event["Records"][0]["body"] = message_body(recovery_key(recovery.id))
        with printed(capsys) as out:
            response = function_runtime(stack, "DeliveryFunction").invoke(event)
        assert response == {"batchItemFailures": []}
        logs, blobs = _output(out[0])
        (step,) = [line for line in logs if line["message"] == "recovery step"]
        assert (step["recoveryId"], step["result"]) == (recovery.id, "completed")
        metrics = _metrics(blobs)
        assert metrics["RecoveriesCompleted"][:2] == ("Count", [1.0])
        assert metrics["RecoveryRedeliveries"][:2] == ("Count", [0.0])
        done = EndpointRegistry(settings()).recovery(endpoint.id, recovery.id)
        assert done.status == "completed"
    finally:
        purge_endpoint(endpoint.id)


def test_the_recovery_sample_names_a_recovery_job() -> None:
    (record,) = sample("delivery-sqs-recovery.json")["Records"]
    assert json.loads(record["body"])["deliveryId"].startswith("recovery#")
