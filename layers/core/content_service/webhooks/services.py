"""The webhook stores and queue for a Settings, on the process's shared AWS clients.

Each factory imports its class when it is called, not at import: a handler loads only what it
builds (the fan-out no sender, no sweep, no notices; a delivery no fan-out and no sweep), which
keeps each worker's cold start near its libraries' floor (D146).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.storage import aws

if TYPE_CHECKING:
    from content_service.clock import Clock
    from content_service.settings import Settings

    from .alarm_topic import AlarmTopic
    from .attempt_stats import AttemptStats
    from .delivery_store import DeliveryStore
    from .endpoint_store import EndpointStore
    from .event_bus import EventBusSender
    from .fanout import FanOut
    from .notices import EndpointNotices
    from .outbox_store import OutboxStore
    from .queue import DeliveryQueue
    from .rate_limit import RateLimiter
    from .recovery import RecoveryStore
    from .sweeper import Sweeper


def endpoint_store(settings: Settings) -> EndpointStore:
    from .endpoint_store import EndpointStore

    return EndpointStore(aws.dynamodb(settings), settings.tables.endpoints)


def delivery_store(settings: Settings) -> DeliveryStore:
    from .delivery_store import DeliveryStore

    return DeliveryStore(aws.dynamodb(settings), settings.tables.deliveries)


def delivery_queue(settings: Settings) -> DeliveryQueue:
    from .queue import DeliveryQueue

    return DeliveryQueue(aws.sqs(settings), settings.tables.delivery_queue_url)


def outbox_store(settings: Settings) -> OutboxStore:
    from .outbox_store import OutboxStore

    return OutboxStore(aws.dynamodb(settings), settings.tables.events)


def alarm_topic(settings: Settings) -> AlarmTopic | None:
    """The alarm topic, when the template set one (only an operational notice is published)."""
    if not settings.alarm_topic_arn:
        return None
    from .alarm_topic import AlarmTopic

    return AlarmTopic(aws.sns(settings), settings.alarm_topic_arn)


def fan_out(settings: Settings, clock: Clock) -> FanOut:
    from .fanout import FanOut

    topic = alarm_topic(settings)
    return FanOut(
        delivery_store(settings),
        delivery_queue(settings),
        outbox_store(settings),
        clock,
        announce=topic.announce if topic is not None else None,
    )


def sweeper(settings: Settings, clock: Clock) -> Sweeper:
    from .sweeper import Sweeper

    return Sweeper(
        options=settings.webhooks,
        deliveries=delivery_store(settings),
        queue=delivery_queue(settings),
        clock=clock,
        outbox=outbox_store(settings),
        endpoints=endpoint_store(settings),
        fanout=fan_out(settings, clock),
    )


def recovery_store(settings: Settings) -> RecoveryStore:
    from .recovery import RecoveryStore

    return RecoveryStore(aws.dynamodb(settings), settings.tables.deliveries)


def endpoint_notices(settings: Settings, clock: Clock) -> EndpointNotices:
    from .notices import EndpointNotices

    return EndpointNotices(
        aws.dynamodb(settings), endpoint_store(settings), settings.tables.events, clock
    )


def rate_limiter(settings: Settings) -> RateLimiter:
    """The endpoints' rate windows live in the deliveries table (one item per endpoint)."""
    from .rate_limit import RateLimiter

    return RateLimiter(aws.dynamodb(settings), settings.tables.deliveries)


def event_bus(settings: Settings) -> EventBusSender:
    """The sender of EventBridge deliveries: the allow-listed buses, a client bounded by
    `timeoutMs` (made only when a bus is first put to)."""
    from .event_bus import EventBusSender

    return EventBusSender(
        lambda: aws.events(settings, settings.webhooks.timeout_ms / 1000),
        settings.webhooks.eventbridge_buses,
    )


def attempt_stats(settings: Settings) -> AttemptStats:
    """The hourly attempt counters of the health chart (in the deliveries table)."""
    from .attempt_stats import AttemptStats

    return AttemptStats(aws.dynamodb(settings), settings.tables.deliveries)
