"""The one place the delivery worker and the recovery runner are built.

The delivery handler, the benchmark and the tests all build them here, so none of them can
drift from how production wires the stores, the queue and the seams (`wiring.Dependencies`:
clock, jitter, and how a wait for an endpoint's turn sleeps). Kept apart from `services.py`
because it loads the sender: the fan-out and the scheduler import the stores and send nothing.
The notices, the EventBridge sender and the recovery runner are built (and their modules
loaded) when a batch first needs one, not with every batch (D146).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from content_service.settings import Settings

from . import services
from .sending import DeliveryWorker, Sender
from .wiring import Dependencies

if TYPE_CHECKING:
    from .deliveries import RecoveryRunner


def delivery_worker(settings: Settings, sender: Sender, deps: Dependencies) -> DeliveryWorker:
    """A worker for one batch, sending through `sender` (pinned to the batch)."""
    return DeliveryWorker(
        options=settings.webhooks,
        deliveries=services.delivery_store(settings),
        endpoints=services.endpoint_store(settings),
        queue=services.delivery_queue(settings),
        sender=sender,
        clock=deps.clock,
        rng=deps.rng,
        notices=functools.cache(lambda: services.endpoint_notices(settings, deps.clock)),
        limiter=services.rate_limiter(settings),
        bus=functools.cache(lambda: services.event_bus(settings)),
        stats=services.attempt_stats(settings),
        sleep=deps.sleep,
    )


def recovery_runner(settings: Settings, worker: DeliveryWorker) -> RecoveryRunner:
    """The recovery runner of a batch, on the worker's stores, queue and clock (built when a
    message names a recovery job: the only time its module is needed)."""
    from .deliveries import ENQUEUE_GRACE_SECONDS, RecoveryRunner

    return RecoveryRunner(
        recoveries=services.recovery_store(settings),
        deliveries=worker.deliveries,
        endpoints=worker.endpoints,
        queue=worker.queue,
        clock=worker.clock,
        retention_days=settings.webhooks.retention_days,
        enqueue_grace_seconds=ENQUEUE_GRACE_SECONDS,
    )
