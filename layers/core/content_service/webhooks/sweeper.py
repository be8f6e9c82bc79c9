"""The scheduler's two jobs: the minute sweep and the hourly prune.

Sweep: every non-terminal row sits in the sparse `bySweep` index with a `sweepAt` saying when it
needs looking at if nothing else happens: a pending row `ENQUEUE_GRACE_SECONDS` after it was
created (its message was lost), a delivering row when its claim expires (its worker died), a
failed row at its `nextAttemptAt` (plus a grace when a delayed message is already on its way).
The sweep queues every row whose `sweepAt` has come and moves `sweepAt` on by the grace with a
condition on the value it read, so each row is queued at most once per grace period and a claim
or an outcome made meanwhile wins. The row's own claim condition decides what happens next.

Prune: terminal rows sit in the sparse `byFinish` index; those finished more than
`retentionDays` ago are deleted (0 keeps them forever). A control item makes the prune run at
most once per clock hour however often it is invoked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from content_service.clock import Clock, iso_utc
from content_service.settings import WebhookOptions

from .deliveries import SHARDS, DeliveryStore
from .fanout import ENQUEUE_GRACE_SECONDS
from .queue import DeliveryQueue

SWEEP_GRACE_SECONDS = ENQUEUE_GRACE_SECONDS
MAX_SWEEP_ROWS = 20_000
MAX_PRUNE_ROWS = 200_000


@dataclass(frozen=True)
class SweepReport:
    requeued: int
    skipped: str | None = None
    truncated: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "job": "sweep",
            "requeued": self.requeued,
            "skipped": self.skipped,
            "truncated": self.truncated,
        }


@dataclass(frozen=True)
class PruneReport:
    deleted: int
    skipped: str | None = None
    truncated: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "job": "prune",
            "deleted": self.deleted,
            "skipped": self.skipped,
            "truncated": self.truncated,
        }


def _no_deadline() -> bool:
    return False


@dataclass
class Sweeper:
    options: WebhookOptions
    deliveries: DeliveryStore
    queue: DeliveryQueue
    clock: Clock

    def sweep(self, out_of_time: Callable[[], bool] = _no_deadline) -> SweepReport:
        if self.options.delivery_interval_ms == 0:
            # Queue-but-never-send: the fan-out has queued every row once; queuing them again
            # each minute would only pile up messages nobody reads.
            return SweepReport(0, skipped="deliveryIntervalMs is 0: nothing is sent")
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
