"""Webhook delivery benchmarks: one consumer's throughput, its overhead over the floor, and the
AWS requests a wide fan-out costs.

- Throughput: the delivery core exactly as the delivery handler runs it (one pinned sender per
  batch of 20, the batch's rows and endpoints read up front, serial sends, each claim checked
  against the endpoint's version, sign, POST, outcome recorded with the next claim) against a
  keep-alive receiver on 127.0.0.1, on moto in server mode.
- Floor: in the same run and against the same receiver and emulator, what a delivery costs
  with a claim, one POST and an outcome write of their own, and nothing else (no endpoint read,
  no signing). The ratio time-per-delivery / floor is the price of everything else.
- Round trips: the DynamoDB requests the worker makes per delivery, counted at the wire by the
  stack's recording proxy (every request of the bench's clients passes through it), against
  the floor's two.
- Fan-out: one outbox event matching 1,000 endpoints, through the real fan-out handler, with
  every AWS request counted at the wire by a recording proxy between the clients and moto
  (the stack's own `recorder` when it has one, else one started here).
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.report import Row
from content_service import runtime
from content_service.clock import SystemClock, iso_utc
from content_service.settings import Settings
from content_service.storage import aws
from content_service.storage.dynamo import encode
from content_service.storage.outbox_event import OutboxEvent
from content_service.webhooks import services, wiring, workers
from content_service.webhooks.deliveries import Claim, DeliveryRow, Outcome
from content_service.webhooks.endpoints import Endpoint, mint_secret
from content_service.webhooks.sending import request_headers
from infra.local_stack import LocalStack
from infra.request_recorder import RequestRecorder

BENCH = "webhooks"
BATCH = 20
BATCHES = 15
FANOUT_ENDPOINTS = 1000
RATIO_TARGET = 1.15
ROUND_TRIPS_TARGET = 2.0


class _KeepAliveHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    connections = 0

    def setup(self) -> None:
        type(self).connections += 1
        super().setup()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def _receiver() -> Iterator[tuple[str, type[_KeepAliveHandler]]]:
    handler = type("Handler", (_KeepAliveHandler,), {"connections": 0})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", handler
    finally:
        server.shutdown()
        server.server_close()


def _event(workspace: str) -> OutboxEvent:
    return OutboxEvent(
        id=str(uuid.uuid4()),
        kind="entry.published",
        occurred_at=iso_utc(time.time()),
        workspace_id=workspace,
        actor=None,
        data={
            "kind": "content_entry",
            "id": str(uuid.uuid4()),
            "contentType": "post",
            "title": "x",
        },
    )


def _seed(settings: Settings, endpoint: Endpoint, count: int) -> list[DeliveryRow]:
    fanout = services.fan_out(settings, SystemClock())
    rows = [
        row
        for _ in range(count)
        for row in fanout.rows_for(_event(endpoint.workspaces[0]), [endpoint])
    ]
    services.delivery_store(settings).insert_new(rows)
    return rows


def _deliver(settings: Settings, rows: list[DeliveryRow]) -> float:
    """Seconds the delivery core takes for `rows`, batch by batch, as the handler runs it."""
    deps = dataclasses.replace(wiring.dependencies(), rng=random.Random(1))
    started = time.perf_counter()
    for start in range(0, len(rows), BATCH):
        with wiring.make_sender(settings.webhooks, deps) as sender:
            worker = workers.delivery_worker(settings, sender, deps)
            batch = rows[start : start + BATCH]
            worker.prepare([row.id for row in batch])
            for row in batch:
                report = worker.process(row.id)
                if report.result != "succeeded":
                    raise RuntimeError(f"benchmark delivery {row.id} ended {report.result}")
            worker.flush()
    return time.perf_counter() - started


def _floor(settings: Settings, endpoint: Endpoint, rows: list[DeliveryRow]) -> float:
    """Seconds for the irreducible work: claim write, one POST, outcome write, per row."""
    store = services.delivery_store(settings)
    clock = SystemClock()
    headers = request_headers(
        event="entry.published",
        delivery_id="d",
        event_id="e",
        workspace_id=None,
        attempt=1,
        secret=endpoint.signing_secret(),
        body=b"{}",
        timestamp=int(time.time()),
        custom={},
    )
    started = time.perf_counter()
    for start in range(0, len(rows), BATCH):
        with wiring.make_sender(settings.webhooks, wiring.dependencies()) as sender:
            for row in rows[start : start + BATCH]:
                now = clock.now()
                claim = store.claim(row.id, iso_utc(now), iso_utc(now - 30), iso_utc(now + 30))
                result = sender.post(endpoint.url, row.body_bytes, headers)
                if not isinstance(claim, Claim) or not result.ok:
                    raise RuntimeError("floor measurement failed")
                store.finish(
                    claim, Outcome(status="succeeded", now_iso=iso_utc(clock.now()), log=())
                )
    return time.perf_counter() - started


def _dynamodb_requests(calls: list[Any]) -> int:
    return sum(1 for call in calls if call.target.startswith("DynamoDB"))


def _throughput(stack: LocalStack, settings: Settings) -> list[Row]:
    """Batches of the real path and of the floor, interleaved so drift hits both alike."""
    assert stack.recorder is not None, "the bench's stack records storage requests"
    with _receiver() as (url, handler):
        endpoint = Endpoint(
            id=str(uuid.uuid4()),
            url=url,
            secret=mint_secret(),
            workspaces=(str(uuid.uuid4()),),
            created_at=iso_utc(time.time()),
            updated_at=iso_utc(time.time()),
        )
        endpoints = services.endpoint_store(settings)
        endpoints.insert(endpoint)
        try:
            _deliver(settings, _seed(settings, endpoint, BATCH))  # warm-up
            _floor(settings, endpoint, _seed(settings, endpoint, BATCH))
            handler.connections = 0
            full: list[float] = []
            floor: list[float] = []
            requests = [0, 0]
            for _ in range(BATCHES):
                rows = _seed(settings, endpoint, 2 * BATCH)
                with stack.recorder.capture() as calls:
                    full.append(_deliver(settings, rows[:BATCH]))
                requests[0] += _dynamodb_requests(calls)
                with stack.recorder.capture() as calls:
                    floor.append(_floor(settings, endpoint, rows[BATCH:]))
                requests[1] += _dynamodb_requests(calls)
            connections = handler.connections
        finally:
            endpoints.delete(endpoint.id)
    per_delivery = sum(full) / (BATCHES * BATCH)
    per_floor = sum(floor) / (BATCHES * BATCH)
    ratio = statistics.median(f / g for f, g in zip(full, floor, strict=True))
    round_trips = requests[0] / (BATCHES * BATCH)
    case = f"1 consumer, {BATCHES} batches of {BATCH} to 1 endpoint, keep-alive receiver"
    return [
        Row(BENCH, case, "deliveries per second", 1 / per_delivery, "1/s"),
        Row(BENCH, case, "time per delivery", per_delivery * 1000, "ms"),
        Row(BENCH, case, "floor: claim + POST + outcome", per_floor * 1000, "ms"),
        Row(
            BENCH,
            case,
            "time per delivery / floor (median of batches)",
            ratio,
            "x",
            target=f"<= {RATIO_TARGET}",
            meets_target=ratio <= RATIO_TARGET,
        ),
        Row(
            BENCH,
            case,
            "DynamoDB round trips per delivery",
            round_trips,
            "req",
            target=f"<= {ROUND_TRIPS_TARGET:g}",
            meets_target=round_trips <= ROUND_TRIPS_TARGET,
        ),
        Row(
            BENCH,
            case,
            "  floor's DynamoDB round trips per delivery",
            requests[1] / (BATCHES * BATCH),
            "req",
        ),
        Row(BENCH, case, "TCP connections per batch", connections / (2 * BATCHES), "conn"),
    ]


def _fanout_runtime(stack: LocalStack) -> Any:
    assert stack.pollers is not None
    for poller in stack.pollers.streams:
        if poller.runtime.logical_id == "FanoutFunction":
            return poller.runtime
    raise RuntimeError("the stack has no fan-out poller")


def _stream_event(event: OutboxEvent, settings: Settings) -> dict[str, Any]:
    image = {
        "id": event.id,
        "kind": event.kind,
        "occurredAt": event.occurred_at,
        "workspaceId": event.workspace_id,
        "data": event.data,
    }
    return {
        "Records": [
            {
                "eventID": uuid.uuid4().hex,
                "eventName": "INSERT",
                "eventVersion": "1.1",
                "eventSource": "aws:dynamodb",
                "awsRegion": settings.region,
                "dynamodb": {
                    "Keys": {"id": {"S": event.id}},
                    "NewImage": encode(image, sparse=True),
                    "SequenceNumber": "1",
                    "SizeBytes": 300,
                    "StreamViewType": "NEW_IMAGE",
                },
                "eventSourceARN": f"arn:aws:dynamodb:{settings.region}:123456789012:table/"
                f"{settings.tables.events}/stream/bench",
            }
        ]
    }


def _fanout_requests(stack: LocalStack, settings: Settings) -> list[Row]:
    workspace = str(uuid.uuid4())
    now = iso_utc(time.time())
    endpoints = [
        Endpoint(
            id=str(uuid.uuid4()),
            url="https://hooks.example.com/in",
            secret=mint_secret(),
            workspaces=(workspace,),
            created_at=now,
            updated_at=now,
        )
        for _ in range(FANOUT_ENDPOINTS)
    ]
    client = aws.dynamodb(settings)
    table = settings.tables.endpoints
    for start in range(0, len(endpoints), 25):
        client.batch_write_item(
            RequestItems={
                table: [
                    {"PutRequest": {"Item": encode(e.to_values(), sparse=True)}}
                    for e in endpoints[start : start + 25]
                ]
            }
        )
    sqs = aws.sqs(settings)
    scratch = sqs.create_queue(QueueName=f"bench-fanout-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    own_recorder = stack.recorder is None
    recorder = stack.recorder or RequestRecorder(stack.emulator.endpoint_url).start()
    # The handler's clients go through the recorder; its deliveries go to a scratch queue that
    # nothing consumes, so the 1,000 rows are never sent anywhere.
    measured = dataclasses.replace(
        settings,
        aws_endpoint_url=recorder.url,
        tables=dataclasses.replace(settings.tables, delivery_queue_url=scratch),
    )
    event = _event(workspace)
    try:
        runtime.configure(measured)
        with recorder.capture() as calls:
            started = time.perf_counter()
            response = _fanout_runtime(stack).invoke(_stream_event(event, measured))
            elapsed = time.perf_counter() - started
        if response != {"batchItemFailures": []}:
            raise RuntimeError(f"fan-out failed: {response}")
    finally:
        runtime.configure(settings)
        if own_recorder:
            recorder.stop()
        sqs.delete_queue(QueueUrl=scratch)
        for start in range(0, len(endpoints), 25):
            client.batch_write_item(
                RequestItems={
                    table: [
                        {"DeleteRequest": {"Key": {"id": {"S": e.id}}}}
                        for e in endpoints[start : start + 25]
                    ]
                }
            )
    by_operation = Counter(call.operation for call in calls)
    case = f"1 event -> {FANOUT_ENDPOINTS} matching endpoints"
    counted_by = "the stack's recorder" if not own_recorder else "a recording proxy"
    rows = [Row(BENCH, case, f"AWS requests (at the wire, {counted_by})", len(calls), "req")]
    rows += [
        Row(BENCH, case, f"  {operation}", count, "req")
        for operation, count in sorted(by_operation.items())
    ]
    # On AWS a 100-put transaction takes tens of milliseconds; moto deep-copies the table once
    # per item, so this time measures the emulator more than the fan-out.
    rows.append(Row(BENCH, case, "fan-out time (handler on moto)", elapsed * 1000, "ms"))
    return rows


def run(stack: LocalStack) -> list[Row]:
    base = runtime.settings()
    local = dataclasses.replace(
        base,
        webhooks=dataclasses.replace(
            base.webhooks, allow_insecure_urls=True, allow_private_networks=True
        ),
    )
    runtime.configure(local)
    try:
        # The fan-out first, on a small deliveries table: moto copies the whole table for each
        # item of a transaction, so its time (not its request count) grows with the table.
        fanout = _fanout_requests(stack, local)
        return _throughput(stack, local) + fanout
    finally:
        runtime.configure(base)
