"""The scheduler's jobs: the minute sweep, the hourly prune, and resuming after a lost queue.

Sweep, first the outbox: every event whose fan-out has not completed `OUTBOX_GRACE_SECONDS`
after it occurred (still in the sparse `byPendingFanout` index: a stream batch that failed for
good, a stack restarted after a crash) is fanned out again. The deterministic delivery ids make
a second fan-out create no second row, and an endpoint created after the event gets none.

Then the deliveries: every non-terminal row sits in the sparse `bySweep` index with a `sweepAt`
saying when it needs looking at if nothing else happens: a pending row `ENQUEUE_GRACE_SECONDS`
after it was created (its message was lost), a delivering row when its claim expires (its worker
died), a failed row at its `nextAttemptAt` (plus a grace when a delayed message is on its way).
The sweep queues every row whose `sweepAt` has come and moves `sweepAt` on by the grace with a
condition on the value it read, so each row is queued at most once per grace period and a claim
or an outcome made meanwhile wins. The row's own claim condition decides what happens next.

Resume (run by the local stack after a restore, and by hand on AWS after a queue was purged):
every event still marked is fanned out now, whatever its age, and every unfinished row is queued
again with the delay its state implies; the row's claim decides what happens, as for any message.

Prune: terminal rows sit in the sparse `byFinish` index; those finished more than
`retentionDays` ago are deleted (0 keeps them forever). A control item makes the prune run at
most once per clock hour however often it is invoked.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from content_service import camel
from content_service.clock import Clock, iso_utc, parse_iso_utc
from content_service.settings import WebhookOptions

from ..endpoints import Endpoint, EndpointStore
from ..sending import MAX_DELAY_SECONDS, DeliveryQueue
from .delivery_rows import SHARDS, TERMINAL, DeliveryRow, is_recovery_key
from .delivery_store import DeliveryStore
from .fanout import ENQUEUE_GRACE_SECONDS, FanOut
from .outbox_store import OutboxStore

SWEEP_GRACE_SECONDS = ENQUEUE_GRACE_SECONDS
# Normally the stream's fan-out marks an event within seconds; on AWS a failing batch is
# retried (with backoff) for minutes before it goes to the failure queue.
OUTBOX_GRACE_SECONDS = 300
MAX_SWEEP_ROWS = 20_000
MAX_RECONCILED_EVENTS = 5_000
MAX_PRUNE_ROWS = 200_000


@dataclass(frozen=True)
class SweepReport:
    requeued: int
    fanned_out: int = 0
    skipped: str | None = None
    truncated: bool = False
    job: str = "sweep"

    def to_json(self) -> dict[str, object]:
        return camel.dump(self, ("job", "requeued", "fanned_out", "skipped", "truncated"))


@dataclass(frozen=True)
class PruneReport:
    deleted: int
    skipped: str | None = None
    truncated: bool = False

    def to_json(self) -> dict[str, object]:
        return {"job": "prune", **camel.dump(self, camel.field_names(PruneReport))}


def _no_deadline() -> bool:
    return False


@dataclass
class _Reconciled:
    fanned_out: int = 0
    truncated: bool = False
    endpoints: list[Endpoint] | None = field(default=None, repr=False)


@dataclass
class Sweeper:
    options: WebhookOptions
    deliveries: DeliveryStore
    queue: DeliveryQueue
    clock: Clock
    outbox: OutboxStore
    endpoints: EndpointStore
    fanout: FanOut

    def sweep(self, out_of_time: Callable[[], bool] = _no_deadline) -> SweepReport:
        reconciled = self.reconcile_outbox(OUTBOX_GRACE_SECONDS, out_of_time)
        if self.options.delivery_interval_ms == 0:
            # Queue-but-never-send: the fan-out has queued every row once; queuing them again
            # each minute would only pile up messages nobody reads.
            return SweepReport(
                0,
                reconciled.fanned_out,
                skipped="deliveryIntervalMs is 0: nothing is sent",
                truncated=reconciled.truncated,
            )
        requeued = self._requeue_due(out_of_time)
        return SweepReport(
            requeued.requeued,
            reconciled.fanned_out,
            truncated=reconciled.truncated or requeued.truncated,
        )

    def resume(self) -> SweepReport:
        """After the queue lost its messages: fan out every marked event, queue every row.

        Each unfinished row is queued with the delay its state implies, as the lost message
        had: a pending row now, a failed row at its `nextAttemptAt`, a claimed row when its
        claim expires (its worker is gone). A wait longer than SQS allows stays the sweep's.
        """
        reconciled = self.reconcile_outbox(0, _no_deadline)
        if self.options.delivery_interval_ms == 0:
            return SweepReport(
                0, reconciled.fanned_out, skipped="deliveryIntervalMs is 0", job="resume"
            )
        now = self.clock.now()
        queued: list[tuple[str, int]] = []
        for shard in range(SHARDS):
            for delivery_id in self.deliveries.unfinished(f"{shard:02d}"):
                if is_recovery_key(delivery_id):  # a recovery job: its next step, now
                    queued.append((delivery_id, 0))
                    continue
                row = self.deliveries.get(delivery_id)
                if row is None or row.status in TERMINAL:
                    continue
                wait = max(0.0, self._due_at(row) - now)
                if wait <= MAX_DELAY_SECONDS:
                    queued.append((delivery_id, math.ceil(wait)))
        if queued:
            self.queue.enqueue_delayed(queued)
        return SweepReport(len(queued), reconciled.fanned_out, job="resume")

    def _due_at(self, row: DeliveryRow) -> float:
        if row.status == "failed" and row.next_attempt_at:
            return parse_iso_utc(row.next_attempt_at)
        if row.status == "delivering" and row.claimed_at:
            return parse_iso_utc(row.claimed_at) + self.options.claim_timeout_ms / 1000
        return self.clock.now()

    def reconcile_outbox(
        self, grace_seconds: float, out_of_time: Callable[[], bool]
    ) -> _Reconciled:
        """Fans out again every event still marked `grace_seconds` after it occurred."""
        result = _Reconciled()
        before = iso_utc(self.clock.now() - grace_seconds)
        for pending in self.outbox.pending(before):
            if out_of_time() or result.fanned_out >= MAX_RECONCILED_EVENTS:
                result.truncated = True
                break
            if pending.event is None:
                self.outbox.mark_fanned_out(
                    pending.id, iso_utc(self.clock.now()), skipped=pending.problem
                )
                continue
            if result.endpoints is None:
                result.endpoints = self.endpoints.all()
            self.fanout.fan_out(pending.event, result.endpoints)
            result.fanned_out += 1
        return result

    def _requeue_due(self, out_of_time: Callable[[], bool]) -> SweepReport:
        now = self.clock.now()
        now_iso = iso_utc(now)
        next_iso = iso_utc(now + SWEEP_GRACE_SECONDS)
        due: list[str] = []
        truncated = False
        for shard in range(SHARDS):
            if out_of_time() or len(due) >= MAX_SWEEP_ROWS:
                truncated = True
                break
            for delivery_id, seen in self.deliveries.due_for_sweep(f"{shard:02d}", now_iso):
                if self.deliveries.postpone_sweep(delivery_id, seen, next_iso):
                    due.append(delivery_id)
                if len(due) >= MAX_SWEEP_ROWS:
                    break
        if due:
            self.queue.enqueue(due)
        return SweepReport(len(due), truncated=truncated)

    def prune(self, out_of_time: Callable[[], bool] = _no_deadline) -> PruneReport:
        days = self.options.retention_days
        if days == 0:
            return PruneReport(0, skipped="retentionDays is 0: deliveries are kept forever")
        now = self.clock.now()
        if not self.deliveries.take_prune_slot(int(now // 3600), iso_utc(now)):
            return PruneReport(0, skipped="already pruned this hour")
        cutoff = iso_utc(now - days * 86400)
        deleted = 0
        truncated = False
        for shard in range(SHARDS):
            if out_of_time() or deleted >= MAX_PRUNE_ROWS:
                truncated = True
                break
            ids = list(self.deliveries.finished_before(f"{shard:02d}", cutoff))
            deleted += self.deliveries.delete_many(ids)
        return PruneReport(deleted, truncated=truncated)
