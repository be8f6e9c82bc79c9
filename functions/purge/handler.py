"""Events-table stream -> edge purges (docs/api.md, "Caching").

Thin: Powertools parses the batch, the core says what each outbox event means at the edge
(`edge.changes`), and the batch's changes go to the configured purger in one call at the end.
If the purge fails, the first record with a change is reported failed, so the stream retries
from it (the records before it are checkpointed) and no purge is forgotten. A record that is
not an outbox event is logged and skipped: retrying it could never succeed. Without a purger
(`EDGE_PURGE_URL` unset) the batch is read and nothing is sent.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from content_service import runtime
from content_service.edge import purgers
from content_service.edge.changes import EdgeChange, PurgeFailed, edge_change, tags_of
from content_service.observability import logger, metrics
from content_service.storage.outbox_stream import inserted_event, process_batch
from content_service.tracing import tracer


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> Any:
    edge = purgers.purger(runtime.settings())
    pending: list[tuple[str, EdgeChange]] = []

    def record_handler(record: DynamoDBRecord) -> None:
        metrics.add_metric(name="PurgeRecords", unit=MetricUnit.Count, value=1)
        if edge is None:
            return
        outbox = inserted_event(record)
        change = edge_change(outbox) if outbox is not None else None
        if change is not None and record.dynamodb is not None:
            pending.append((record.dynamodb.sequence_number or "", change))

    response = process_batch(event, context, record_handler)
    if edge is None or not pending:
        return response
    changes = [change for _, change in pending]
    try:
        edge.purge(changes)
    except PurgeFailed as error:
        logger.error(
            "purge failed; retrying from the batch's first change", extra={"why": str(error)}
        )
        metrics.add_metric(name="EdgePurgeFailures", unit=MetricUnit.Count, value=1)
        return {"batchItemFailures": [{"itemIdentifier": pending[0][0]}]}
    logger.info("purged", extra={"changes": len(changes), "tags": len(tags_of(changes))})
    metrics.add_metric(name="EdgePurges", unit=MetricUnit.Count, value=1)
    return response
