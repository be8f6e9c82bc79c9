"""AWS clients built once per process from Settings.

boto3 clients are thread-safe and expensive to create (~50 ms), so each (service, endpoint,
region) gets exactly one, reused across invocations and threads.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config

from content_service.settings import Settings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient
    from mypy_boto3_sqs import SQSClient

_lock = threading.Lock()
_clients: dict[tuple[str, str | None, str], Any] = {}

_CONFIG = Config(retries={"max_attempts": 5, "mode": "standard"}, max_pool_connections=32)


def _client(service: str, settings: Settings) -> Any:
    key = (service, settings.aws_endpoint_url, settings.region)
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = boto3.session.Session().client(
                service,  # type: ignore[call-overload]
                region_name=settings.region,
                endpoint_url=settings.aws_endpoint_url,
                config=_CONFIG,
            )
            _clients[key] = client
        return client


def dynamodb(settings: Settings) -> DynamoDBClient:
    client: DynamoDBClient = _client("dynamodb", settings)
    return client


def sqs(settings: Settings) -> SQSClient:
    client: SQSClient = _client("sqs", settings)
    return client


def dynamodbstreams(settings: Settings) -> DynamoDBStreamsClient:
    client: DynamoDBStreamsClient = _client("dynamodbstreams", settings)
    return client
