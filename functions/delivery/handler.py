"""Delivery queue -> claim, sign, POST, verdict (ARCHITECTURE.md: functions/delivery).

Thin: Powertools parses the SQS batch; one pinned sender serves the whole batch (keep-alive per
host), messages are handled serially (spec 8.4.3), retries with short waits are queued again
with a delay at the end. A message whose processing raised (storage unavailable) is reported
failed and comes back after the visibility timeout; the claim makes that harmless. Imports no
web framework, for the cold start.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from content_service import runtime
from content_service.observability import logger, metrics, tracer
from content_service.webhooks import services, wiring
from content_service.webhooks.delivery import DeliveryWorker
from content_service.webhooks.queue import MalformedMessage, parse_message

processor = BatchProcessor(event_type=EventType.SQS)

_METRICS = {
    "succeeded": "DeliveriesSucceeded",
    "failed": "DeliveriesFailed",
    "dead": "DeliveriesDead",
}


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
        worker = DeliveryWorker(
            options=settings.webhooks,
            deliveries=services.delivery_store(settings),
            endpoints=services.endpoint_store(settings),
            queue=services.delivery_queue(settings),
            sender=sender,
            clock=deps.clock,
            rng=deps.rng,
        )

        def record_handler(record: SQSRecord) -> None:
            try:
                delivery_id = parse_message(record.body)
            except MalformedMessage as error:
                logger.error("dropping a message that names no delivery", extra={"why": str(error)})
                return
            logger.set_correlation_id(delivery_id)
            report = worker.process(delivery_id)
            logger.info(
                "delivery processed",
                extra={
                    "deliveryId": delivery_id,
                    "result": report.result,
                    "attempt": report.attempt,
                    "statusCode": report.status_code,
                },
            )
            if report.result in _METRICS:
                metrics.add_metric(name=_METRICS[report.result], unit=MetricUnit.Count, value=1)
            if report.endpoint_disabled:
                metrics.add_metric(name="EndpointsAutoDisabled", unit=MetricUnit.Count, value=1)

        try:
            return process_partial_response(
                event=event, record_handler=record_handler, processor=processor, context=context
            )
        finally:
            worker.flush()
