"""Replaying the two failure queues through the same code paths, idempotently.

- The fan-out's OnFailure queue holds Lambda's description of a stream batch that exhausted its
  retries (`DDBStreamBatchInfo`: shard, first and last sequence number), not the records. The
  replay reads that range back from the stream and fans out each outbox event again: rows that
  exist are not made twice (deterministic ids) and an endpoint created after the event gets
  none. Records past the stream's 24-hour retention cannot be read back; their events still
  carry the fan-out marker, so the minute sweep's reconciliation fans them out.
- The delivery DLQ holds `{"deliveryId"}` messages a consumer failed on five times. The replay
  queues each unfinished delivery (or recovery job) again on the delivery queue; the row's claim
  decides, so a finished row is never sent twice.

Both run as a dry run unless `execute` is set: they report what they would do and leave every
message in its queue (received with no visibility timeout, so nothing is hidden from others).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from content_service.storage.dynamo import decode
from content_service.storage.json_values import NotJson, plain
from content_service.storage.outbox_event import MalformedEvent, OutboxEvent

from ..endpoints import Endpoint, EndpointStore
from ..sending import DeliveryQueue, MalformedMessage, parse_message
from .delivery_rows import TERMINAL, is_recovery_key
from .delivery_store import DeliveryStore
from .fanout import FanOut

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient
    from mypy_boto3_sqs import SQSClient

_RECEIVE_LIMIT = 10
_EXECUTE_VISIBILITY_SECONDS = 300
_EMPTY_READS = 3


@dataclass
class ReplayReport:
    queue: str
    execute: bool
    items: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        actions: dict[str, int] = {}
        for item in self.items:
            actions[item["action"]] = actions.get(item["action"], 0) + 1
        return {
            "queue": self.queue,
            "dryRun": not self.execute,
            "messages": len(self.items),
            "actions": actions,
            "items": self.items,
        }


class FailureQueue:
    """Reads a queue's messages once each; deletes one only when told to."""

    def __init__(self, sqs: SQSClient, url: str, *, execute: bool) -> None:
        if not url:
            raise ValueError("the failure queue's URL is not configured")
        self._sqs = sqs
        self._url = url
        self._execute = execute

    def messages(self, limit: int) -> Iterator[dict[str, Any]]:
        seen: set[str] = set()
        while len(seen) < limit:
            response = self._sqs.receive_message(
                QueueUrl=self._url,
                MaxNumberOfMessages=min(_RECEIVE_LIMIT, limit - len(seen)),
                VisibilityTimeout=_EXECUTE_VISIBILITY_SECONDS if self._execute else 0,
                WaitTimeSeconds=0,
            )
            fresh = [m for m in response.get("Messages", []) if m["MessageId"] not in seen]
            if not fresh:
                return
            for message in fresh:
                seen.add(message["MessageId"])
                yield dict(message)

    def done(self, message: dict[str, Any]) -> None:
        if self._execute:
            self._sqs.delete_message(QueueUrl=self._url, ReceiptHandle=message["ReceiptHandle"])


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
            try:
                batch = json.loads(message["Body"])["DDBStreamBatchInfo"]
                records = list(self._records(batch))
            except (ValueError, KeyError, TypeError):
                report.items.append(_item(message, "drop: not a stream batch description"))
                self.queue.done(message)
                continue
            except ClientError as error:
                why = error.response.get("Error", {}).get("Code", "unreadable")
                report.items.append(
                    _item(message, "left to the sweep: stream records unreadable", error=why)
                )
                self.queue.done(message)
                continue
            if not loaded:
                loaded.append(self.endpoints.all())
            events = [self._replay(record, loaded[0]) for record in records]
            report.items.append(_item(message, "fan out", events=events))
            self.queue.done(message)
        return report

    def _records(self, batch: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The batch's records, read back from the stream by sequence number."""
        first, last = int(batch["startSequenceNumber"]), int(batch["endSequenceNumber"])
        iterator: str | None = self.streams.get_shard_iterator(
            StreamArn=str(batch["streamArn"]),
            ShardId=str(batch["shardId"]),
            ShardIteratorType="AT_SEQUENCE_NUMBER",
            SequenceNumber=str(batch["startSequenceNumber"]),
        ).get("ShardIterator")
        empty = 0
        while iterator is not None and empty < _EMPTY_READS:
            response = self.streams.get_records(ShardIterator=iterator, Limit=1000)
            records = response.get("Records", [])
            empty = 0 if records else empty + 1
            for record in records:
                number = int(record["dynamodb"]["SequenceNumber"])
                if number > last:
                    return
                if number >= first:
                    yield dict(record)
            iterator = response.get("NextShardIterator")

    def _replay(self, record: dict[str, Any], endpoints: Sequence[Endpoint]) -> dict[str, Any]:
        image = record.get("dynamodb", {}).get("NewImage")
        if record.get("eventName") != "INSERT" or not image:
            return {"sequenceNumber": record["dynamodb"]["SequenceNumber"], "action": "skip"}
        try:
            event = OutboxEvent.from_item(plain(decode(image)))
        except (MalformedEvent, NotJson) as error:
            return {"eventId": None, "action": "skip", "why": str(error)}
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
                report.items.append(_item(message, "drop: names no delivery", why=str(error)))
                self.queue.done(message)
                continue
            action, status = self._decide(delivery_id)
            report.items.append(_item(message, action, deliveryId=delivery_id, status=status))
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


def _item(message: dict[str, Any], action: str, **details: Any) -> dict[str, Any]:
    return {"messageId": message["MessageId"], "action": action, **details}
