"""Delivery rows: the fan-out that makes them from outbox events (matching, the outbox's
pending marks), the deliveries table and its log, the attempt statistics, and what keeps rows
moving when something is lost: the sweep, recovery jobs, resume and the failure queues' replay.

Other packages import only the names below; each loads its module on first use (D146).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .attempt_stats import VERDICTS, AttemptStats, Bucket, Tally, bin_value, latency_bin
    from .delivery_log import LogSearch, Page, decode_cursor, encode_cursor, log_filters
    from .delivery_rows import (
        SHARDS,
        STATUSES,
        AttemptRecord,
        Claim,
        DeliveryRow,
        NotClaimed,
        Outcome,
        fanout_delivery_id,
        is_recovery_key,
        recovery_key,
        shard_of,
    )
    from .delivery_store import PRUNE_CONTROL_ID, DeliveryStore
    from .fanout import ENQUEUE_GRACE_SECONDS, FanOut
    from .matching import matches
    from .outbox_store import OutboxStore
    from .recovery import (
        DEFAULT_STATUSES,
        RECOVERABLE_STATUSES,
        Recovery,
        RecoveryRunner,
        RecoveryStore,
        StepReport,
        new_recovery,
        redelivery_id,
    )
    from .replay import DeliveryDlqReplay, FanoutFailureReplay
    from .resume import resume_after_restart
    from .sweeper import OUTBOX_GRACE_SECONDS, SWEEP_GRACE_SECONDS, Sweeper

__all__ = [
    "DEFAULT_STATUSES",
    "ENQUEUE_GRACE_SECONDS",
    "OUTBOX_GRACE_SECONDS",
    "PRUNE_CONTROL_ID",
    "RECOVERABLE_STATUSES",
    "SHARDS",
    "STATUSES",
    "SWEEP_GRACE_SECONDS",
    "VERDICTS",
    "AttemptRecord",
    "AttemptStats",
    "Bucket",
    "Claim",
    "DeliveryDlqReplay",
    "DeliveryRow",
    "DeliveryStore",
    "FanOut",
    "FanoutFailureReplay",
    "LogSearch",
    "NotClaimed",
    "OutboxStore",
    "Outcome",
    "Page",
    "Recovery",
    "RecoveryRunner",
    "RecoveryStore",
    "StepReport",
    "Sweeper",
    "Tally",
    "bin_value",
    "decode_cursor",
    "encode_cursor",
    "fanout_delivery_id",
    "is_recovery_key",
    "latency_bin",
    "log_filters",
    "matches",
    "new_recovery",
    "recovery_key",
    "redelivery_id",
    "resume_after_restart",
    "shard_of",
]

_MODULES = {
    "resume_after_restart": "resume",
    "AttemptRecord": "delivery_rows",
    "AttemptStats": "attempt_stats",
    "Bucket": "attempt_stats",
    "Claim": "delivery_rows",
    "DEFAULT_STATUSES": "recovery",
    "DeliveryDlqReplay": "replay",
    "DeliveryRow": "delivery_rows",
    "DeliveryStore": "delivery_store",
    "ENQUEUE_GRACE_SECONDS": "fanout",
    "FanOut": "fanout",
    "FanoutFailureReplay": "replay",
    "LogSearch": "delivery_log",
    "NotClaimed": "delivery_rows",
    "OUTBOX_GRACE_SECONDS": "sweeper",
    "OutboxStore": "outbox_store",
    "Outcome": "delivery_rows",
    "PRUNE_CONTROL_ID": "delivery_store",
    "Page": "delivery_log",
    "RECOVERABLE_STATUSES": "recovery",
    "Recovery": "recovery",
    "RecoveryRunner": "recovery",
    "RecoveryStore": "recovery",
    "SHARDS": "delivery_rows",
    "STATUSES": "delivery_rows",
    "SWEEP_GRACE_SECONDS": "sweeper",
    "StepReport": "recovery",
    "Sweeper": "sweeper",
    "Tally": "attempt_stats",
    "VERDICTS": "attempt_stats",
    "bin_value": "attempt_stats",
    "decode_cursor": "delivery_log",
    "encode_cursor": "delivery_log",
    "fanout_delivery_id": "delivery_rows",
    "is_recovery_key": "delivery_rows",
    "latency_bin": "attempt_stats",
    "log_filters": "delivery_log",
    "matches": "matching",
    "new_recovery": "recovery",
    "recovery_key": "delivery_rows",
    "redelivery_id": "recovery",
    "shard_of": "delivery_rows",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, _MODULES)
