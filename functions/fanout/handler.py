"""Events-table stream -> delivery rows and queued ids.

Thin: Powertools parses the batch, the core matches and inserts, failures are reported per
record (a transient error replays from that record only; rows are idempotent). A record that
is not an outbox event is logged and skipped: retrying it could never succeed. Imports no web
framework, for the cold start.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from content_service import runtime
from content_service.observability import logger, metrics
from content_service.storage.outbox_stream import inserted_event, process_batch
from content_service.tracing import tracer
from content_service.webhooks import services, wiring

# Every invocation fans out: its module loads at init, not with the first record (D146).
from content_service.webhooks.deliveries import FanOut
from content_service.webhooks.endpoints import Endpoint


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> Any:
    settings = runtime.settings()
    fanout: FanOut = services.fan_out(settings, wiring.dependencies().clock)
    endpoint_store = services.endpoint_store(settings)
    loaded: list[list[Endpoint]] = []

    def endpoints() -> list[Endpoint]:
        # One consistent scan per batch, only when a record needs it.
        if not loaded:
            loaded.append(endpoint_store.all())
        return loaded[0]

    def record_handler(record: DynamoDBRecord) -> None:
        metrics.add_metric(name="OutboxRecords", unit=MetricUnit.Count, value=1)
        outbox = inserted_event(record, malformed_metric="OutboxRecordsMalformed")
        if outbox is None:
            return
        logger.set_correlation_id(outbox.id)
        result = fanout.fan_out(outbox, endpoints())
        logger.info(
            "fanned out",
            extra={
                "eventId": outbox.id,
                "kind": outbox.kind,
                "matched": result.matched,
                "inserted": len(result.inserted),
                "existing": len(result.existing),
            },
        )
        metrics.add_metric(name="RowsFannedOut", unit=MetricUnit.Count, value=len(result.inserted))

    return process_batch(event, context, record_handler)
