"""Fan-out (docs/webhooks.md, "Fan-out"): an outbox event becomes one pending row per matching
endpoint.

Rows are inserted with a frozen id (derived from endpoint and event, so a repeated stream record
finds them already there) and a frozen body, then their ids are queued, then the event's
fan-out marker is removed. Nothing is sent here. An endpoint takes only events that occurred
after it was created, so a late fan-out (the sweep's reconciliation, a replayed
failure queue) never gives a new endpoint an old entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from content_service.clock import Clock, iso_utc
from content_service.storage.outbox_event import OutboxEvent

from ..endpoints import OPERATIONAL_KINDS, Endpoint
from ..sending import DeliveryQueue
from .delivery_rows import DeliveryRow
from .delivery_store import DeliveryStore
from .matching import matches
from .outbox_store import OutboxStore

# A pending row whose message went missing (a crash between insert and enqueue, a purged
# queue) is re-enqueued by the minute sweep once this long has passed without a claim. Long
# enough that a queue backlog is not duplicated, short enough that a loss is noticed soon.
ENQUEUE_GRACE_SECONDS = 300


@dataclass
class FanOutResult:
    event_id: str
    matched: int = 0
    inserted: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    requests: int = 0


def existed_at(endpoint: Endpoint, occurred_at: str) -> bool:
    """Whether the endpoint was created before the event occurred (both ISO, sortable)."""
    return not endpoint.created_at or endpoint.created_at <= occurred_at


class FanOut:
    """`announce`, when given, hears every operational notice (the alarm topic) before the
    event is marked done, so it is announced again if the fan-out has to run again."""

    def __init__(
        self,
        deliveries: DeliveryStore,
        queue: DeliveryQueue,
        outbox: OutboxStore,
        clock: Clock,
        announce: Callable[[OutboxEvent], None] | None = None,
    ) -> None:
        self._deliveries = deliveries
        self._queue = queue
        self._outbox = outbox
        self._clock = clock
        self._announce = announce

    def rows_for(self, event: OutboxEvent, endpoints: Sequence[Endpoint]) -> list[DeliveryRow]:
        now = self._clock.now()
        created = iso_utc(now)
        sweep_at = iso_utc(now + ENQUEUE_GRACE_SECONDS)
        return [
            DeliveryRow.for_event(endpoint.id, event, created, sweep_at)
            for endpoint in endpoints
            if matches(endpoint, event) and existed_at(endpoint, event.occurred_at)
        ]

    def fan_out(self, event: OutboxEvent, endpoints: Sequence[Endpoint]) -> FanOutResult:
        """Inserts the rows that do not exist yet and queues every matching row's id.

        Ids of rows that already existed are queued again: when a stream record repeats it is
        usually because the first run died after inserting and before queuing. A duplicate
        message costs one failed claim, never a second attempt. The marker goes last, so an
        event whose fan-out died half-way is still found by the reconciliation.
        """
        rows = self.rows_for(event, endpoints)
        result = FanOutResult(event.id, matched=len(rows))
        if rows:
            inserted = self._deliveries.insert_new(rows)
            result.inserted, result.existing = inserted.inserted, inserted.existing
            result.requests = inserted.requests
            result.requests += self._queue.enqueue([row.id for row in rows])
        if self._announce is not None and event.kind in OPERATIONAL_KINDS:
            self._announce(event)
            result.requests += 1
        self._outbox.mark_fanned_out(event.id, iso_utc(self._clock.now()))
        result.requests += 1
        return result
