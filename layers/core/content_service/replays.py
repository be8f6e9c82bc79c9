"""`content-service replay ...`: each failure queue's messages driven through the code that
failed on them (docs/webhooks.md, "Failure queues and alarms"; docs/api.md, "Purge on
publish"). Each command answers the replay's report; the CLI prints it. Each loads its
capability's modules when it runs, so the CLI's other commands do not pay for them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from content_service.clock import SystemClock
from content_service.settings import Settings, SettingsError

if TYPE_CHECKING:
    from content_service.storage.failed_batches import FailureQueue

Replay = Callable[[argparse.Namespace, Settings], dict[str, Any]]


def _queue(settings: Settings, url: str, args: argparse.Namespace) -> FailureQueue:
    from content_service.storage import aws
    from content_service.storage.failed_batches import FailureQueue

    return FailureQueue(aws.sqs(settings), url, execute=args.execute)


def fanout_failures(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from content_service.storage import aws
    from content_service.webhooks import services
    from content_service.webhooks.deliveries import FanoutFailureReplay

    replay = FanoutFailureReplay(
        queue=_queue(settings, settings.tables.fanout_failure_queue_url, args),
        streams=aws.dynamodbstreams(settings),
        fanout=services.fan_out(settings, SystemClock()),
        endpoints=services.endpoint_store(settings),
        execute=args.execute,
    )
    return replay.run(args.limit).to_json()


def delivery_dlq(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from content_service.webhooks import services
    from content_service.webhooks.deliveries import DeliveryDlqReplay

    replay = DeliveryDlqReplay(
        queue=_queue(settings, settings.tables.delivery_dlq_url, args),
        deliveries=services.delivery_store(settings),
        delivery_queue=services.delivery_queue(settings),
        execute=args.execute,
    )
    return replay.run(args.limit).to_json()


def purge_failures(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from content_service.edge import purgers
    from content_service.edge.purge_replay import PurgeFailureReplay
    from content_service.storage import aws

    edge = purgers.purger(settings)
    if edge is None:
        raise SettingsError(
            "no edge to purge is configured: set EDGE_PURGE_URL or EDGE_DISTRIBUTION_ID"
        )
    replay = PurgeFailureReplay(
        queue=_queue(settings, settings.tables.purge_failure_queue_url, args),
        streams=aws.dynamodbstreams(settings),
        edge=edge,
        execute=args.execute,
    )
    return replay.run(args.limit).to_json()


REPLAYS: tuple[tuple[str, Replay, str], ...] = (
    ("fanout-failures", fanout_failures, "stream batches the fan-out gave up on"),
    ("delivery-dlq", delivery_dlq, "delivery messages in the dead-letter queue"),
    ("purge-failures", purge_failures, "stream batches the edge purge gave up on"),
)
"""Each command's name, what runs it, and what its queue holds (the help text)."""
