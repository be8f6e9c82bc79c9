"""Failure queues and the stream batches their messages describe, for the replay commands.

A consumer of the events stream that exhausts its retries (the webhook fan-out, the edge purge)
leaves in its OnFailure queue Lambda's description of the batch (`DDBStreamBatchInfo`: stream,
shard, first and last sequence number), not the records. A replay reads that range back from
the stream (which keeps records 24 hours) and runs the consumer's own code on each outbox event
again. Every replay is a dry run unless told to execute: it reports what it would do and leaves
each message in its queue (received with no visibility timeout, so nothing is hidden).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from content_service.storage.dynamo import decode
from content_service.storage.json_values import NotJson, plain
from content_service.storage.outbox_event import MalformedEvent, OutboxEvent

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient
    from mypy_boto3_sqs import SQSClient

_RECEIVE_LIMIT = 10
_EXECUTE_VISIBILITY_SECONDS = 300
_EMPTY_READS = 3


@dataclass
class ReplayReport:
    """What a replay did (or would do) with each message, and how often each action came."""

    queue: str
    execute: bool
    items: list[dict[str, Any]] = field(default_factory=list)

    def add(self, message: dict[str, Any], action: str, **details: Any) -> None:
        self.items.append({"messageId": message["MessageId"], "action": action, **details})

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


def _batch_records(streams: DynamoDBStreamsClient, message: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of the batch a failure message describes, read back from the stream by
    sequence number. Raises ValueError, KeyError or TypeError when the message describes no
    batch, and botocore's ClientError when the stream no longer holds the records."""
    batch = json.loads(message["Body"])["DDBStreamBatchInfo"]
    first, last = int(batch["startSequenceNumber"]), int(batch["endSequenceNumber"])
    iterator: str | None = streams.get_shard_iterator(
        StreamArn=str(batch["streamArn"]),
        ShardId=str(batch["shardId"]),
        ShardIteratorType="AT_SEQUENCE_NUMBER",
        SequenceNumber=str(batch["startSequenceNumber"]),
    ).get("ShardIterator")
    records: list[dict[str, Any]] = []
    empty = 0
    while iterator is not None and empty < _EMPTY_READS:
        response = streams.get_records(ShardIterator=iterator, Limit=1000)
        page = response.get("Records", [])
        empty = 0 if page else empty + 1
        for record in page:
            number = int(record["dynamodb"]["SequenceNumber"])
            if number > last:
                return records
            if number >= first:
                records.append(dict(record))
        iterator = response.get("NextShardIterator")
    return records


def read_batch(
    streams: DynamoDBStreamsClient, message: dict[str, Any], report: ReplayReport, unreadable: str
) -> list[dict[str, Any]] | None:
    """The records of the batch `message` describes; None, with the reason in `report` (the
    action `unreadable` when the stream no longer holds them), when there are none to replay."""
    try:
        return _batch_records(streams, message)
    except (ValueError, KeyError, TypeError):
        report.add(message, "drop: not a stream batch description")
    except ClientError as error:
        why = error.response.get("Error", {}).get("Code", "unreadable")
        report.add(message, unreadable, error=why)
    return None


def inserted_outbox_event(record: dict[str, Any]) -> OutboxEvent | None:
    """The outbox event a stream record read back inserts; None for any other record. Raises
    MalformedEvent when the item is not an outbox event."""
    image = record.get("dynamodb", {}).get("NewImage")
    if record.get("eventName") != "INSERT" or not image:
        return None
    try:
        return OutboxEvent.from_item(plain(decode(image)))
    except NotJson as error:
        raise MalformedEvent(str(error)) from error
