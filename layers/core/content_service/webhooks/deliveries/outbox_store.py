"""The events table as the fan-out sees it: events whose fan-out has not completed, and the mark.

An event leaves the sparse `byPendingFanout` index when its marker is removed, which the
fan-out does once every delivery row of the event exists and its id is queued. What remains in
the index after a grace period is an event whose fan-out never completed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service.storage.dynamo import conditional, decode, pages, values
from content_service.storage.json_values import plain
from content_service.storage.outbox_event import (
    FANOUT_SHARDS,
    PENDING_FANOUT_INDEX,
    MalformedEvent,
    OutboxEvent,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


@dataclass(frozen=True)
class PendingEvent:
    """A marked event; `event` is None when the item is not a well-formed event (`problem`)."""

    id: str
    event: OutboxEvent | None
    problem: str | None = None


class OutboxStore:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def pending(self, before_iso: str) -> Iterator[PendingEvent]:
        """Every event still marked that occurred before `before_iso`, oldest first per shard.

        Nothing could ever fan out a marked item that is not a well-formed event: the caller
        marks it done instead, with the problem.
        """
        for shard in range(FANOUT_SHARDS):
            kwargs: dict[str, Any] = {
                "TableName": self._table,
                "IndexName": PENDING_FANOUT_INDEX,
                "KeyConditionExpression": "fanoutShard = :shard AND occurredAt < :before",
                "ExpressionAttributeValues": values(shard=f"{shard:02d}", before=before_iso),
            }
            for page in pages("query", kwargs, self._client):
                for raw in page.get("Items", []):
                    item = plain(decode(raw))
                    try:
                        event = OutboxEvent.from_item(item)
                    except MalformedEvent as error:
                        yield PendingEvent(str(item.get("id", "")), None, str(error))
                    else:
                        yield PendingEvent(event.id, event)

    def mark_fanned_out(self, event_id: str, now_iso: str, skipped: str | None = None) -> None:
        """Removes the marker; an event already gone (its TTL passed) needs nothing."""
        expression = "REMOVE fanoutShard SET fannedOutAt = :now"
        names: dict[str, Any] = values(now=now_iso)
        if skipped is not None:
            expression += ", fanoutSkipped = :why"
            names.update(values(why=skipped))
        conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": event_id}},
            UpdateExpression=expression,
            ConditionExpression="attribute_exists(id)",
            ExpressionAttributeValues=names,
        )
