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

    from .deliveries import AttemptStats, DeliveryStore, FanOut, OutboxStore, RecoveryStore, Sweeper
    from .endpoints import EndpointStore
    from .operations import AlarmTopic, EndpointNotices
    from .sending import DeliveryQueue, EventBusSender, RateLimiter


def endpoint_store(settings: Settings) -> EndpointStore:
    from .endpoints import EndpointStore

    return EndpointStore(aws.dynamodb(settings), settings.tables.endpoints)


def delivery_store(settings: Settings) -> DeliveryStore:
    from .deliveries import DeliveryStore

    return DeliveryStore(aws.dynamodb(settings), settings.tables.deliveries)


def delivery_queue(settings: Settings) -> DeliveryQueue:
    from .sending import DeliveryQueue

    return DeliveryQueue(aws.sqs(settings), settings.tables.delivery_queue_url)


def outbox_store(settings: Settings) -> OutboxStore:
    from .deliveries import OutboxStore

    return OutboxStore(aws.dynamodb(settings), settings.tables.events)


def alarm_topic(settings: Settings) -> AlarmTopic | None:
    """The alarm topic, when the template set one (only an operational notice is published)."""
    if not settings.alarm_topic_arn:
        return None
    from .operations import AlarmTopic

    return AlarmTopic(aws.sns(settings), settings.alarm_topic_arn)


def fan_out(settings: Settings, clock: Clock) -> FanOut:
    from .deliveries import FanOut

    topic = alarm_topic(settings)
    return FanOut(
        delivery_store(settings),
        delivery_queue(settings),
        outbox_store(settings),
        clock,
        announce=topic.announce if topic is not None else None,
    )


def sweeper(settings: Settings, clock: Clock) -> Sweeper:
    from .deliveries import Sweeper

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
    from .deliveries import RecoveryStore

    return RecoveryStore(aws.dynamodb(settings), settings.tables.deliveries)


def endpoint_notices(settings: Settings, clock: Clock) -> EndpointNotices:
    from .operations import EndpointNotices

    return EndpointNotices(
        aws.dynamodb(settings), endpoint_store(settings), settings.tables.events, clock
    )


def rate_limiter(settings: Settings) -> RateLimiter:
    """The endpoints' rate windows live in the deliveries table (one item per endpoint)."""
    from .sending import RateLimiter

    return RateLimiter(aws.dynamodb(settings), settings.tables.deliveries)


def event_bus(settings: Settings) -> EventBusSender:
    """The sender of EventBridge deliveries: the allow-listed buses, a client bounded by
    `timeoutMs` (made only when a bus is first put to)."""
    from .sending import EventBusSender

    return EventBusSender(
        lambda: aws.events(settings, settings.webhooks.timeout_ms / 1000),
        settings.webhooks.eventbridge_buses,
    )


def attempt_stats(settings: Settings) -> AttemptStats:
    """The hourly attempt counters of the health chart (in the deliveries table)."""
    from .deliveries import AttemptStats

    return AttemptStats(aws.dynamodb(settings), settings.tables.deliveries)
