"""The webhook stores and queue for a Settings, on the process's shared AWS clients."""

from __future__ import annotations

from content_service.settings import Settings
from content_service.storage import aws

from .deliveries import DeliveryStore
from .endpoint_store import EndpointStore
from .queue import DeliveryQueue
from .recovery import RecoveryStore


def endpoint_store(settings: Settings) -> EndpointStore:
    return EndpointStore(aws.dynamodb(settings), settings.tables.endpoints)


def delivery_store(settings: Settings) -> DeliveryStore:
    return DeliveryStore(aws.dynamodb(settings), settings.tables.deliveries)


def delivery_queue(settings: Settings) -> DeliveryQueue:
    return DeliveryQueue(aws.sqs(settings), settings.tables.delivery_queue_url)


def recovery_store(settings: Settings) -> RecoveryStore:
    return RecoveryStore(aws.dynamodb(settings), settings.tables.deliveries)
