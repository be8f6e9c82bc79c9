"""Delivery queue -> claim, sign, POST, verdict.

Thin: Powertools parses the SQS batch; one pinned sender serves the whole batch (keep-alive per
host), the worker reads the batch's rows and endpoints up front, messages are handled serially
(docs/webhooks.md, "Delivery"), retries with short waits are queued again with a delay at the end. A
message naming a recovery job (`recovery#...`) runs one step of it instead. A message whose
processing raised (storage unavailable) is reported failed and comes back after the visibility
timeout; the claim makes that harmless. Imports no web framework, for the cold start, and loads
recovery, notices and EventBridge only when a batch needs them (D146).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from botocore.exceptions import BotoCoreError, ClientError

from content_service import runtime
from content_service.observability import logger, metrics
from content_service.tracing import tracer
from content_service.webhooks import wiring, workers
from content_service.webhooks.deliveries import is_recovery_key
from content_service.webhooks.sending import MalformedMessage, Report, parse_message

if TYPE_CHECKING:
    from content_service.webhooks.deliveries import StepReport

processor = BatchProcessor(event_type=EventType.SQS)

_METRICS = {
    "succeeded": "DeliveriesSucceeded",
    "failed": "DeliveriesFailed",
    "dead": "DeliveriesDead",
    "handed_over": "DeliveriesHandedOver",
    "throttled": "DeliveriesThrottled",
}


def _record_attempt(report: Report) -> None:
    """One log line per message (an attempt, or why none was made) and its metrics."""
    logger.info(
        "delivery attempt" if report.sent else "delivery processed",
        extra={
            "deliveryId": report.delivery_id,
            "endpointId": report.endpoint_id,
            "verdict": report.result,
            "attempt": report.attempt,
            "statusCode": report.status_code,
            "durationMs": report.duration_ms,
            "error": report.error,
        },
    )
    if report.result in _METRICS:
        metrics.add_metric(name=_METRICS[report.result], unit=MetricUnit.Count, value=1)
    if report.sent and report.duration_ms is not None:
        metrics.add_metric(
            name="AttemptLatency", unit=MetricUnit.Milliseconds, value=report.duration_ms
        )
    if report.endpoint_disabled:
        metrics.add_metric(name="EndpointsAutoDisabled", unit=MetricUnit.Count, value=1)


def _record_recovery(report: StepReport) -> None:
    logger.info(
        "recovery step",
        extra={
            "recoveryId": report.recovery_id,
            "result": report.result,
            "matched": report.matched,
            "queued": report.queued,
        },
    )
    if report.result == "skipped":
        return
    metrics.add_metric(name="RecoveryRedeliveries", unit=MetricUnit.Count, value=report.queued)
    if report.result == "completed":
        metrics.add_metric(name="RecoveriesCompleted", unit=MetricUnit.Count, value=1)


def _delivery_ids(records: list[dict[str, Any]]) -> list[str]:
    """The delivery ids the batch's messages name, in order (recovery jobs and malformed
    messages are left to the record handler)."""
    ids: list[str] = []
    for record in records:
        try:
            delivery_id = parse_message(str(record.get("body", "")))
        except MalformedMessage:
            continue
        if not is_recovery_key(delivery_id):
            ids.append(delivery_id)
    return ids


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> Any:
    settings = runtime.settings()
    records = event.get("Records") or []
    metrics.add_metric(name="DeliveryMessages", unit=MetricUnit.Count, value=len(records))
    if settings.webhooks.delivery_interval_ms == 0:
        # "0 queues but never sends": leave every message on the queue.
        logger.warning("deliveryIntervalMs is 0: not sending; messages stay queued")
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in records]}
    deps = wiring.dependencies()
    with wiring.make_sender(settings.webhooks, deps) as sender:
        worker = workers.delivery_worker(settings, sender, deps)

        try:
            worker.prepare(_delivery_ids(records))
        except (BotoCoreError, ClientError):
            # Each message then claims and reads its endpoint on its own, and fails alone.
            logger.warning("could not read the batch ahead", exc_info=True)

        def record_handler(record: SQSRecord) -> None:
            try:
                delivery_id = parse_message(record.body)
            except MalformedMessage as error:
                logger.error("dropping a message that names no delivery", extra={"why": str(error)})
                return
            logger.set_correlation_id(delivery_id)
            if is_recovery_key(delivery_id):
                _record_recovery(workers.recovery_runner(settings, worker).step(delivery_id))
            else:
                _record_attempt(worker.process(delivery_id))

        try:
            return process_partial_response(
                event=event, record_handler=record_handler, processor=processor, context=context
            )
        finally:
            worker.flush()
