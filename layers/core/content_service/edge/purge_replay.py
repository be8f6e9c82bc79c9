"""Replaying the purges the edge never confirmed (docs/api.md, "Purge on publish").

When the purge function exhausts its retries on a stream batch (the edge refused or did not
answer eleven times), Lambda puts the batch's description in its OnFailure queue and moves on:
without a replay, the answers those changes altered would be served until their `s-maxage`
ran out (a day with purge on). The replay reads each batch back from the stream and purges its
changes through the configured edge, exactly as the function would have. A purge is
idempotent, so replaying a batch twice costs a second purge and nothing else. A batch past the
stream's 24 hours cannot be read back: the report says so, and those answers age out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service.edge.changes import EdgeChange, PurgeFailed, Purger, edge_change, tags_of
from content_service.storage.failed_batches import (
    FailureQueue,
    ReplayReport,
    inserted_outbox_event,
    read_batch,
)
from content_service.storage.outbox_event import MalformedEvent

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient

UNREADABLE = "left to age out: stream records unreadable"


@dataclass
class PurgeFailureReplay:
    queue: FailureQueue
    streams: DynamoDBStreamsClient
    edge: Purger
    execute: bool = False

    def run(self, limit: int = 1000) -> ReplayReport:
        report = ReplayReport("purge-failures", self.execute)
        for message in self.queue.messages(limit):
            records = read_batch(self.streams, message, report, UNREADABLE)
            if records is not None and not self._purged(message, _changes(records), report):
                continue  # the edge still refuses: the message stays for the next replay
            self.queue.done(message)
        return report

    def _purged(
        self, message: dict[str, Any], changes: list[EdgeChange], report: ReplayReport
    ) -> bool:
        tags = tags_of(changes)
        if self.execute and changes:
            try:
                self.edge.purge(changes)
            except PurgeFailed as error:
                report.add(message, "kept: the edge did not confirm", tags=tags, why=str(error))
                return False
        report.add(message, "purge" if changes else "drop: nothing cached changed", tags=tags)
        return True


def _changes(records: list[dict[str, Any]]) -> list[EdgeChange]:
    """The edge changes of the records' outbox events; other records change nothing."""
    changes: list[EdgeChange] = []
    for record in records:
        try:
            event = inserted_outbox_event(record)
        except MalformedEvent:
            continue
        change = edge_change(event) if event is not None else None
        if change is not None:
            changes.append(change)
    return changes
