"""Replaying the webhooks' two failure queues through the same code paths, idempotently.

- The fan-out's OnFailure queue describes stream batches that exhausted their retries
  (`storage.failed_batches` reads them back). The replay fans out each outbox event again: rows
  that exist are not made twice (deterministic ids) and an endpoint created after the event gets
  none. Records past the stream's 24-hour retention cannot be read back; their events still
  carry the fan-out marker, so the minute sweep's reconciliation fans them out.
- The delivery DLQ holds `{"deliveryId"}` messages a consumer failed on five times. The replay
  queues each unfinished delivery (or recovery job) again on the delivery queue; the row's claim
  decides, so a finished row is never sent twice.

Both run as a dry run unless `execute` is set (`storage.failed_batches`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service.storage.failed_batches import (
    FailureQueue,
    ReplayReport,
    inserted_outbox_event,
    read_batch,
)
from content_service.storage.outbox_event import MalformedEvent

from ..endpoints import Endpoint, EndpointStore
from ..sending import DeliveryQueue, MalformedMessage, parse_message
from .delivery_rows import TERMINAL, is_recovery_key
from .delivery_store import DeliveryStore
from .fanout import FanOut

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient

UNREADABLE = "left to the sweep: stream records unreadable"


@dataclass
class FanoutFailureReplay:
    queue: FailureQueue
    streams: DynamoDBStreamsClient
    fanout: FanOut
    endpoints: EndpointStore
    execute: bool = False

    def run(self, limit: int = 1000) -> ReplayReport:
        report = ReplayReport("fanout-failures", self.execute)
        loaded: list[list[Endpoint]] = []
        for message in self.queue.messages(limit):
            records = read_batch(self.streams, message, report, UNREADABLE)
            if records is not None:
                if not loaded:
                    loaded.append(self.endpoints.all())
                events = [self._replay(record, loaded[0]) for record in records]
                report.add(message, "fan out", events=events)
            self.queue.done(message)
        return report

    def _replay(self, record: dict[str, Any], endpoints: Sequence[Endpoint]) -> dict[str, Any]:
        try:
            event = inserted_outbox_event(record)
        except MalformedEvent as error:
            return {"eventId": None, "action": "skip", "why": str(error)}
        if event is None:
            return {"sequenceNumber": record["dynamodb"]["SequenceNumber"], "action": "skip"}
        rows = self.fanout.rows_for(event, endpoints)
        summary: dict[str, Any] = {"eventId": event.id, "kind": event.kind, "matched": len(rows)}
        if self.execute:
            result = self.fanout.fan_out(event, endpoints)
            summary.update(inserted=len(result.inserted), existing=len(result.existing))
        return summary


@dataclass
class DeliveryDlqReplay:
    queue: FailureQueue
    deliveries: DeliveryStore
    delivery_queue: DeliveryQueue
    execute: bool = False

    def run(self, limit: int = 1000) -> ReplayReport:
        report = ReplayReport("delivery-dlq", self.execute)
        for message in self.queue.messages(limit):
            try:
                delivery_id = parse_message(message.get("Body", ""))
            except MalformedMessage as error:
                report.add(message, "drop: names no delivery", why=str(error))
                self.queue.done(message)
                continue
            action, status = self._decide(delivery_id)
            report.add(message, action, deliveryId=delivery_id, status=status)
            self.queue.done(message)
        return report

    def _decide(self, delivery_id: str) -> tuple[str, str | None]:
        """What to do with a dead-lettered id; queues it again when that is the answer."""
        if is_recovery_key(delivery_id):  # a recovery job's step: the job decides
            status: str | None = "recovery"
        else:
            row = self.deliveries.get(delivery_id)
            if row is None:
                return "drop: no such delivery", None
            if row.status in TERMINAL:
                return f"drop: already {row.status}", row.status
            status = row.status
        if self.execute:
            self.delivery_queue.enqueue([delivery_id])
        return "requeue", status
