"""A batch of the events-table stream as its consumers (the fan-out, the edge purge) read it:
record by record, each the outbox event it inserts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from content_service.observability import logger, metrics
from content_service.storage.outbox_event import MalformedEvent, OutboxEvent


def process_batch(
    event: dict[str, Any],
    context: LambdaContext,
    record_handler: Callable[[DynamoDBRecord], None],
) -> PartialItemFailureResponse:
    """`record_handler` on each record of the batch, in order; the answer reports the records
    it raised on (Powertools' partial batch response), so the stream retries from the first."""
    processor = BatchProcessor(event_type=EventType.DynamoDBStreams)
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )


def inserted_event(
    record: DynamoDBRecord, *, malformed_metric: str | None = None
) -> OutboxEvent | None:
    """The event `record` inserts; None for a modify or a remove, and for an insert that is not
    an outbox event: that one is logged (and counted as `malformed_metric`, if given) and
    skipped, since retrying it could never succeed."""
    if record.event_name != DynamoDBRecordEventName.INSERT:
        return None
    try:
        return OutboxEvent.from_item(record.dynamodb.new_image if record.dynamodb else {})
    except MalformedEvent as error:
        logger.error("skipping a record that is not an outbox event", extra={"why": str(error)})
        if malformed_metric is not None:
            metrics.add_metric(name=malformed_metric, unit=MetricUnit.Count, value=1)
        return None
