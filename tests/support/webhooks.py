"""Helpers for the webhook tests (their fixtures are in tests/support/webhook_fixtures.py).

- `Hooks`: the webhooks API through an admin client, deleting what it created afterwards.
- `Receiving`: a fresh workspace, `Hooks` and a receiver it may deliver to (the `receiving`
  fixture).
- `ENVELOPE_FIELDS`: the fields of every delivery's body, in order (docs/api.md).
- `write_event`: puts an outbox event into the events table, exactly as the content
  capability's write does, for the stream to carry to the fan-out.
- `make_worker`, `sender_for`: the delivery core as the handler builds it.
- `stripe_accepts`: a received delivery's `X-Service-Signature` verifies with a secret, by
  Stripe's own verifier (code independent of ours).
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import httpx
import stripe

from content_service import runtime
from content_service.clock import iso_utc
from content_service.settings import Settings
from content_service.storage import aws
from content_service.storage.dynamo import encode
from content_service.storage.outbox_event import OutboxEvent, fanout_shard
from content_service.webhooks import services, wiring, workers
from content_service.webhooks.deliveries import DeliveryRow
from content_service.webhooks.endpoints import Endpoint
from content_service.webhooks.sending import DeliveryWorker, Sender, message_body
from harness.receiver import Received, Receiver
from harness.webhooks import FakeClock
from infra.lambda_runtime import FunctionRuntime
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.resolver import FakeResolver

# docs/api.md, "What a receiver gets": the same fields for every kind, in this order.
ENVELOPE_FIELDS = ["id", "event", "eventId", "occurredAt", "workspaceId", "actor", "data"]


def stripe_accepts(request: Received, secret: str) -> bool:
    """The request carries `X-Service-Signature` and Stripe's verifier accepts it with `secret`
    (five minutes' tolerance, as Stripe's default)."""
    header = request.header("X-Service-Signature")
    assert header is not None, "the delivery has no X-Service-Signature"
    try:
        stripe.WebhookSignature.verify_header(request.body.decode(), header, secret, 300)
    except stripe.SignatureVerificationError:
        return False
    return True


@dataclass
class Hooks:
    """The webhooks API through a signed-in admin client; cleans up what it creates."""

    client: httpx.Client
    created: list[str] = field(default_factory=list)

    def create(self, url: str | None, **fields: Any) -> dict[str, Any]:
        """An endpoint; `url` None for one with no URL (an EventBridge endpoint)."""
        request = fields if url is None else {"url": url, **fields}
        response = self.client.post("/api/webhooks", json=request)
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        self.created.append(body["id"])
        return body

    def get(self, endpoint_id: str) -> dict[str, Any]:
        response = self.client.get(f"/api/webhooks/{endpoint_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def patch(self, endpoint_id: str, **fields: Any) -> dict[str, Any]:
        response = self.client.patch(f"/api/webhooks/{endpoint_id}", json=fields)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def deliveries(self, endpoint_id: str, **query: Any) -> list[dict[str, Any]]:
        response = self.client.get(f"/api/webhooks/{endpoint_id}/deliveries", params=query)
        assert response.status_code == 200, response.text
        items: list[dict[str, Any]] = response.json()["items"]
        return items

    def delivery(self, endpoint_id: str, delivery_id: str) -> dict[str, Any]:
        response = self.client.get(f"/api/webhooks/{endpoint_id}/deliveries/{delivery_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def cleanup(self) -> None:
        for endpoint_id in self.created:
            self.client.delete(f"/api/webhooks/{endpoint_id}")
            purge_endpoint(endpoint_id)


class Receiving(NamedTuple):
    """A fresh workspace, the webhooks API and a receiver on 127.0.0.1 it may deliver to."""

    workspace: WorkspaceAccess
    hooks: Hooks
    receiver: Receiver


def settings() -> Settings:
    return runtime.settings()


def outbox_event(
    *,
    workspace_id: str | None,
    kind: str = "entry.created",
    content_type: str = "post",
    title: str = "Hello",
    actor: dict[str, str] | None = None,
    event_id: str | None = None,
    entry_id: str | None = None,
    occurred_at: str | None = None,
) -> dict[str, Any]:
    """An outbox event in the shape the content capability writes (storage/outbox_event.py)."""
    event_id = event_id or str(uuid.uuid4())
    return {
        "id": event_id,
        "kind": kind,
        "occurredAt": occurred_at or iso_utc(time.time()),
        "workspaceId": workspace_id,
        "actor": actor,
        "data": {
            "kind": "content_entry",
            "id": entry_id or str(uuid.uuid4()),
            "contentType": content_type,
            "title": title,
        },
        "fanoutShard": fanout_shard(event_id),
    }


def write_event(**fields: Any) -> dict[str, Any]:
    """Writes an outbox event into the events table; the stream carries it to the fan-out."""
    event = outbox_event(**fields)
    item = dict(event)
    if item["workspaceId"] is None:
        del item["workspaceId"]
    current = settings()
    aws.dynamodb(current).put_item(TableName=current.tables.events, Item=encode(item, sparse=True))
    return event


def write_events(count: int, **fields: Any) -> list[dict[str, Any]]:
    """`count` outbox events written 25 to a BatchWriteItem (a burst, quickly)."""
    events = [outbox_event(**fields) for _ in range(count)]
    current = settings()
    items = [{k: v for k, v in e.items() if v is not None} for e in events]
    for start in range(0, len(items), 25):
        requests: Any = {
            current.tables.events: [
                {"PutRequest": {"Item": encode(item, sparse=True)}}
                for item in items[start : start + 25]
            ]
        }
        while requests:
            answer = aws.dynamodb(current).batch_write_item(RequestItems=requests)
            requests = answer.get("UnprocessedItems") or {}
    return events


def row(delivery_id: str) -> DeliveryRow:
    found = services.delivery_store(settings()).get(delivery_id)
    assert found is not None, f"no delivery row {delivery_id}"
    return found


def rows_for_endpoint(endpoint_id: str) -> list[DeliveryRow]:
    page = services.delivery_store(settings()).page_for_endpoint(endpoint_id, limit=100)
    return page.items


def make_worker(
    sender: Sender, clock: FakeClock, rng: random.Random | None = None
) -> DeliveryWorker:
    """The delivery core as the delivery handler builds it, with injected time and jitter."""
    deps = wiring.Dependencies(clock=clock, rng=rng or random.Random(7), sleep=clock.advance)
    return workers.delivery_worker(settings(), sender, deps)


def sender_for(resolver: FakeResolver | None = None) -> Sender:
    deps = wiring.dependencies()
    if resolver is not None:
        deps = wiring.Dependencies(clock=deps.clock, rng=deps.rng, resolver=resolver)
    return wiring.make_sender(settings().webhooks, deps)


WaitFor = Callable[[], bool]


def seed_rows(
    endpoint_id: str,
    clock: FakeClock,
    *,
    count: int = 1,
    kind: str = "entry.created",
    workspace_id: str | None = None,
    step_seconds: float = 1.0,
) -> list[DeliveryRow]:
    """Inserts pending rows for an endpoint through the fan-out core, without queuing them.

    Each row belongs to a new event; the clock moves `step_seconds` between rows so the log's
    order is the insertion order. Nothing is put on the queue, so no later `drain()` of another
    test sends these rows.
    """
    current = settings()
    endpoint = services.endpoint_store(current).get(endpoint_id)
    assert endpoint is not None
    fanout = services.fan_out(current, clock)
    created: list[DeliveryRow] = []
    for _ in range(count):
        event = OutboxEvent.from_item(
            outbox_event(workspace_id=workspace_id or _first(endpoint.workspaces), kind=kind)
        )
        rows = fanout.rows_for(event, [endpoint])
        assert len(rows) == 1, "the endpoint does not match the seeded event"
        services.delivery_store(current).insert_new(rows)
        created.extend(rows)
        clock.advance(step_seconds)
    return created


def mark_failed(delivery_id: str, next_attempt_at: str | None = None) -> None:
    """Turns a seeded row into a `failed` one after a first attempt, its retry not yet due."""
    current = settings()
    when = next_attempt_at or iso_utc(time.time() + 3600)
    aws.dynamodb(current).update_item(
        TableName=current.tables.deliveries,
        Key={"id": {"S": delivery_id}},
        UpdateExpression="SET #s = :failed, attempts = :one, nextAttemptAt = :when",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={
            ":failed": {"S": "failed"},
            ":one": {"N": "1"},
            ":when": {"S": when},
        },
    )


def _first(values: tuple[str, ...]) -> str | None:
    return values[0] if values else None


# Hostile URLs (docs/webhooks.md, "SSRF defences"), each refused on create and again at send time.
# `{port}` is a local receiver's port, so a URL that slipped through would reach it; the second item
# gives the DNS answers for the host (None: a literal, decided without DNS); the third is a fragment
# of the refusal reason. Checked with allowInsecureUrls on, so http:// is refused for its address.
HOSTILE_URLS: list[tuple[str, list[str] | None, str]] = [
    ("http://127.0.0.1:{port}/hook", None, "loopback"),
    ("http://127.1:{port}/hook", None, "loopback"),
    ("http://2130706433:{port}/hook", None, "loopback"),
    ("http://0x7f000001:{port}/hook", None, "loopback"),
    ("http://0177.0.0.1:{port}/hook", None, "loopback"),
    ("http://0x7f.0.0.1:{port}/hook", None, "loopback"),
    ("http://127.0.0.1.:{port}/hook", None, "loopback"),
    ("http://localhost:{port}/hook", None, "loopback"),
    ("http://LOCALHOST.:{port}/hook", None, "loopback"),
    ("http://hooks.localhost:{port}/hook", None, "loopback"),
    ("http://[::1]:{port}/hook", None, "loopback"),
    ("http://[::ffff:127.0.0.1]:{port}/hook", None, "IPv4-mapped loopback"),
    ("http://[::ffff:7f00:1]:{port}/hook", None, "IPv4-mapped loopback"),
    ("http://[0:0:0:0:0:ffff:127.0.0.1]:{port}/hook", None, "IPv4-mapped loopback"),
    ("http://[64:ff9b::7f00:1]:{port}/hook", None, "NAT64 loopback"),
    ("http://[2002:7f00:1::]:{port}/hook", None, "6to4 loopback"),
    ("http://[::127.0.0.1]:{port}/hook", None, "IPv4-compatible loopback"),
    ("http://0.0.0.0:{port}/hook", None, "unspecified"),
    ("http://0:{port}/hook", None, "unspecified"),
    ("http://[::]:{port}/hook", None, "unspecified"),
    ("http://169.254.169.254/latest/meta-data/", None, "cloud metadata"),
    ("http://0xa9fea9fe/latest/meta-data/", None, "cloud metadata"),
    ("http://169.254.43518/latest/meta-data/", None, "cloud metadata"),
    ("http://[fd00:ec2::254]/latest/meta-data/", None, "cloud metadata"),
    ("http://[::ffff:169.254.169.254]/", None, "IPv4-mapped cloud metadata"),
    ("http://169.254.10.1/", None, "link-local"),
    ("http://[fe80::1]/", None, "link-local"),
    ("http://10.0.0.1/", None, "RFC 1918"),
    ("http://172.16.5.4/", None, "RFC 1918"),
    ("http://192.168.1.1/", None, "RFC 1918"),
    ("http://3232235777/", None, "RFC 1918"),
    ("http://[fc00::1]/", None, "unique local"),
    ("http://100.64.0.1/", None, "CGNAT"),
    ("http://192.0.2.10/", None, "TEST-NET-1"),
    ("http://198.51.100.10/", None, "TEST-NET-2"),
    ("http://203.0.113.10/", None, "TEST-NET-3"),
    ("http://198.18.0.1/", None, "benchmarking"),
    ("http://224.0.0.1/", None, "multicast"),
    ("http://[ff02::1]/", None, "multicast"),
    ("http://240.0.0.1/", None, "reserved"),
    ("http://255.255.255.255/", None, "broadcast"),
    ("http://rebind.test:{port}/hook", ["93.184.215.14", "127.0.0.1"], "loopback"),
    ("http://internal.test/hook", ["10.1.2.3"], "RFC 1918"),
    ("http://metadata.test/", ["169.254.169.254"], "cloud metadata"),
    ("http://v6loop.test:{port}/hook", ["::1"], "loopback"),
    ("http://mapped.test:{port}/hook", ["::ffff:127.0.0.1"], "IPv4-mapped loopback"),
    ("http://cgnat.test/hook", ["100.100.100.200"], "CGNAT"),
    ("http://ula.test/hook", ["2606:4700::1111", "fd12:3456::1"], "unique local"),
    ("http://user:secret@public.test:{port}/hook", ["93.184.215.14"], "user name or password"),
    ("http://public.test@127.0.0.1:{port}/hook", None, "user name or password"),
    ("gopher://127.0.0.1:{port}/hook", None, "scheme"),
]


def hostile_resolver(port: int) -> FakeResolver:
    """DNS answers for every named host of HOSTILE_URLS."""
    answers: dict[str, list[str]] = {}
    for template, resolved, _ in HOSTILE_URLS:
        if resolved is not None:
            host = template.format(port=port).split("/")[2].split(":")[0].split("@")[-1]
            answers[host] = resolved
    return FakeResolver(answers)


def drop_endpoint(endpoint_id: str) -> None:
    """Deletes the endpoint only (its rows stay, as after a DELETE through the API)."""
    services.endpoint_store(settings()).delete(endpoint_id)


def purge_endpoint(endpoint_id: str) -> None:
    """Test cleanup: the endpoint and all its delivery rows, so no later sweep hands them out."""
    delete_rows(r.id for r in all_rows_for_endpoint(endpoint_id))
    drop_endpoint(endpoint_id)


def all_rows_for_endpoint(endpoint_id: str) -> list[DeliveryRow]:
    store = services.delivery_store(settings())
    rows: list[DeliveryRow] = []
    cursor = None
    while True:
        page = store.page_for_endpoint(endpoint_id, limit=100, cursor=cursor)
        rows.extend(page.items)
        if page.next_cursor is None:
            return rows
        cursor = page.next_cursor


def delete_rows(ids: Iterable[str]) -> None:
    services.delivery_store(settings()).delete_many(list(ids))


def endpoint(endpoint_id: str) -> Endpoint:
    found = services.endpoint_store(settings()).get(endpoint_id)
    assert found is not None, f"no endpoint {endpoint_id}"
    return found


def function_runtime(stack: LocalStack, logical_id: str) -> FunctionRuntime:
    """The local stack's runtime of one template function (its handler, Lambda-like context)."""
    assert stack.pollers is not None
    candidates = [p.runtime for p in stack.pollers.streams]
    candidates += [p.runtime for p in stack.pollers.queues]
    if stack.pollers.schedules is not None:
        candidates += [s.runtime for s in stack.pollers.schedules.schedules.values()]
    for runtime_ in candidates:
        if runtime_.logical_id == logical_id:
            return runtime_
    raise AssertionError(f"no runtime for {logical_id}")


def stream_event(*items: dict[str, Any], event_name: str = "INSERT") -> dict[str, Any]:
    """A DynamoDB Streams batch as Lambda delivers it, one record per outbox item."""
    current = settings()
    records = []
    for index, item in enumerate(items):
        stored = {k: v for k, v in item.items() if v is not None}
        records.append(
            {
                "eventID": uuid.uuid4().hex,
                "eventName": event_name,
                "eventVersion": "1.1",
                "eventSource": "aws:dynamodb",
                "awsRegion": current.region,
                "dynamodb": {
                    "ApproximateCreationDateTime": int(time.time()),
                    "Keys": {"id": {"S": item["id"]}},
                    "NewImage": encode(stored, sparse=True),
                    "SequenceNumber": f"{index + 1:021d}",
                    "SizeBytes": 200,
                    "StreamViewType": "NEW_IMAGE",
                },
                "eventSourceARN": (
                    f"arn:aws:dynamodb:{current.region}:123456789012:table/"
                    f"{current.tables.events}/stream/2026-01-01T00:00:00.000"
                ),
            }
        )
    return {"Records": records}


def sqs_event(*delivery_ids: str) -> dict[str, Any]:
    """An SQS batch as Lambda delivers it, one message per delivery id."""
    current = settings()
    return {
        "Records": [
            {
                "messageId": str(uuid.uuid4()),
                "receiptHandle": uuid.uuid4().hex,
                "body": message_body(delivery_id),
                "attributes": {
                    "ApproximateReceiveCount": "1",
                    "SentTimestamp": str(int(time.time() * 1000)),
                    "SenderId": "AIDAEXAMPLE",
                    "ApproximateFirstReceiveTimestamp": str(int(time.time() * 1000)),
                },
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": f"arn:aws:sqs:{current.region}:123456789012:DeliveryQueue",
                "awsRegion": current.region,
            }
            for delivery_id in delivery_ids
        ]
    }


def enqueue(*delivery_ids: str) -> None:
    services.delivery_queue(settings()).enqueue(list(delivery_ids))


def drain(stack: LocalStack) -> int:
    """`stack.drain()` with room for a backlog other tests left on the stream or the queue."""
    return stack.drain(max_rounds=10_000)


def stream_state(stack: LocalStack, event_id: str) -> dict[str, Any]:
    """Where the fan-out's stream poller is, and where an event is, for a failure message."""
    assert stack.pollers is not None
    poller = stack.pollers.streams[0]
    shards = [(s.shard_id, s.checkpoint, s.pending is not None) for s in poller._shards or []]
    records = stack.emulator.dynamodbstreams().get_records(
        ShardIterator=stack.emulator.dynamodbstreams().get_shard_iterator(
            StreamArn=poller.stream_arn,
            ShardId=shards[0][0],
            ShardIteratorType="TRIM_HORIZON",
        )["ShardIterator"],
        Limit=1000,
    )["Records"]
    mine = [
        r["dynamodb"]["SequenceNumber"]
        for r in records
        if r["dynamodb"].get("Keys", {}).get("id", {}).get("S") == event_id
    ]
    failures = stack.emulator.sqs().get_queue_attributes(
        QueueUrl=poller.failure_queue_url or "",
        AttributeNames=["ApproximateNumberOfMessages"],
    )["Attributes"]
    return {
        "shards": shards,
        "event_sequence": mine,
        "last_sequence": records[-1]["dynamodb"]["SequenceNumber"] if records else None,
        "records": len(records),
        "failure_queue": failures,
        "settings": {"endpoint": settings().aws_endpoint_url, "events": settings().tables.events},
    }


NOTICE_SEQUENCE = ["endpoint.failing", "endpoint.disabled", "endpoint.recovered"]


def received_notices(watcher: Receiver, never_told: Iterable[str]) -> list[dict[str, Any]]:
    """The notices an all-workspaces receiver got about one endpoint that failed, was disabled
    and recovered, in that order; no raw body holds any of `never_told`."""
    bodies = [request.body.decode() for request in watcher.requests]
    for body in bodies:
        for secret in never_told:
            assert secret not in body
    received = [json.loads(body) for body in bodies]
    assert [notice["event"] for notice in received] == NOTICE_SEQUENCE
    return received
