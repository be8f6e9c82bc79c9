"""AWS clients built once per process from Settings, all from one botocore session.

boto3 clients are thread-safe and expensive to create, so each (service, endpoint,
region) gets exactly one, reused across invocations and threads. They share one botocore
session: every session loads and parses botocore's endpoint and service data again, so a
session per client (boto3's default) or per connection (PynamoDB's) pays that more than once.
PynamoDB's identity models send through this module's DynamoDB client too
(`storage.binding`), and the session key is read with this module's SSM client.

`on_client_created` hands every client built afterwards to a hook: the local stack and the tests
hold the app's DynamoDB and SQS requests to AWS's own rules that way (`infra/request_check.py`),
which Lambda never does and the layer does not ship.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config

from content_service.settings import Settings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient
    from mypy_boto3_kms import KMSClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_ssm import SSMClient

_lock = threading.Lock()
_session: boto3.session.Session | None = None
_clients: dict[tuple[str, str | None, str, int, float | None, int | None], Any] = {}
ClientHook = Callable[[Any], None]
_client_hooks: list[ClientHook] = []

_CONFIG = Config(retries={"max_attempts": 5, "mode": "standard"}, max_pool_connections=32)
# boto3 presigns S3 with SigV2 in us-east-1 unless told, and S3 refuses SigV2 for new buckets.
_S3_CONFIG = Config(signature_version="s3v4")


def session() -> boto3.session.Session:
    """The process's one boto3 session (over its one botocore session)."""
    global _session
    with _lock:
        if _session is None:
            _session = boto3.session.Session()
        return _session


def on_client_created(hook: ClientHook) -> None:
    """Calls `hook` with each client this process builds from now on (a hook given twice is
    kept once). A client built before a hook was added is not handed out after it."""
    with _lock:
        if hook not in _client_hooks:
            _client_hooks.append(hook)


def client_at(
    service: str,
    region: str,
    endpoint_url: str | None,
    timeout_s: float | None = None,
    attempts: int | None = None,
) -> Any:
    """The shared client; with `timeout_s`, one whose connect and read are bounded by it (a
    delivery's send must end within the endpoint's timeout, as an HTTP send does), and with
    `attempts`, one that tries a call at most that often (so the bound holds in all)."""
    config = _CONFIG
    if timeout_s is not None:
        config = _CONFIG.merge(Config(connect_timeout=timeout_s, read_timeout=timeout_s))
    if attempts is not None:
        config = config.merge(Config(retries={"max_attempts": attempts, "mode": "standard"}))
    if service == "s3":
        config = config.merge(_S3_CONFIG)
    shared = session()
    with _lock:
        key = (service, endpoint_url, region, len(_client_hooks), timeout_s, attempts)
        client = _clients.get(key)
        if client is None:
            # boto3 sessions are not thread-safe: clients are created under the lock.
            client = shared.client(
                service,  # type: ignore[call-overload]
                region_name=region,
                endpoint_url=endpoint_url,
                config=config,
            )
            for hook in _client_hooks:
                hook(client)
            _clients[key] = client
        return client


def dynamodb(settings: Settings) -> DynamoDBClient:
    client: DynamoDBClient = client_at("dynamodb", settings.region, settings.aws_endpoint_url)
    return client


def sqs(settings: Settings) -> SQSClient:
    client: SQSClient = client_at("sqs", settings.region, settings.aws_endpoint_url)
    return client


def ssm(settings: Settings) -> SSMClient:
    client: SSMClient = client_at("ssm", settings.region, settings.aws_endpoint_url)
    return client


def kms(settings: Settings) -> KMSClient:
    client: KMSClient = client_at("kms", settings.region, settings.aws_endpoint_url)
    return client


def dynamodbstreams(settings: Settings) -> DynamoDBStreamsClient:
    client: DynamoDBStreamsClient = client_at(
        "dynamodbstreams", settings.region, settings.aws_endpoint_url
    )
    return client


def sns(settings: Settings) -> Any:
    """The SNS client (the alarm topic's operational notices)."""
    return client_at("sns", settings.region, settings.aws_endpoint_url)


def events(settings: Settings, timeout_s: float) -> Any:
    """The EventBridge client of deliveries to event buses, bounded by `timeoutMs`."""
    return client_at("events", settings.region, settings.aws_endpoint_url, timeout_s)


def cloudfront(settings: Settings) -> Any:
    """The CloudFront client of the edge purge's invalidations (a global service)."""
    return client_at("cloudfront", settings.region, settings.aws_endpoint_url)


def s3(settings: Settings) -> S3Client:
    """The client of the assets bucket (SigV4: see `_S3_CONFIG`)."""
    client: S3Client = client_at("s3", settings.region, settings.aws_endpoint_url)
    return client


def lambda_(settings: Settings, timeout_s: float, attempts: int) -> Any:
    """The Lambda client of synchronous invokes: each attempt bounded by `timeout_s`."""
    return client_at("lambda", settings.region, settings.aws_endpoint_url, timeout_s, attempts)
