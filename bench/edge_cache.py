"""Reads through a shared cache, and what the per-token limiter costs.

Debian's nginx plays CloudFront in front of the local stack (`harness.edge_cache`, keyed
as the template's cache policies), with the service's default `CONTENT_CACHE_SECONDS` (60):

1. `CLIENTS` read tokens each make `READS` reads spread over `HOT_URLS` hot URLs (REST lists
   and entries, GraphQL over GET); the figure is how many of every 1,000 client reads reached
   the service, counted at the storage wire (each request the service answers reads its
   token's item once: a strongly consistent GetItem of `TOKEN#...`), so nothing the cache says
   about itself is trusted;
2. the median time of a hit (served by nginx) against a miss (a URL no one asked before, so
   nginx asks the service), both through nginx over loopback;
3. the limiter: DynamoDB requests per request on the rate-limits table (a token with a
   `rateLimit`), and all DynamoDB requests of an entry read without and with it.

On the local stack a miss pays the emulator (milliseconds per DynamoDB request); on AWS a
miss is API Gateway, Lambda and DynamoDB (docs/scaling.md, "Reads at the edge").
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import httpx

from bench.report import Row
from content_service import runtime
from content_service.content.schema import FieldSpec, TypeDefinition, create_type
from content_service.identity.tokens import TokenSpec, authenticate_token, create_token
from content_service.identity.workspaces import create_workspace
from harness.edge_cache import SERVED_FROM_CACHE, EdgeCache
from harness.seeding import seed_published
from infra.local_stack import LocalStack
from infra.request_recorder import RecordedCall

BENCHMARK = "edge_cache"
CLIENTS = 5
READS = 1_000
HOT_URLS = 10
LATENCY_SAMPLES = 41
TARGET_PER_1000 = 100.0
"""The tests' bar: at least 90% of reads are hits."""


def _world() -> tuple[str, list[str], list[str]]:
    slug = f"bench-edge-{uuid.uuid4().hex[:8]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    writer, _ = create_token(TokenSpec(name="writer", workspace_id=workspace.id, access="full"))
    create_type(
        authenticate_token(writer),
        workspace.id,
        TypeDefinition("post", fields=(FieldSpec("title", "string"), FieldSpec("body", "text"))),
    )
    ids = seed_published(
        workspace.id, "post", [({"title": f"Post {i}", "body": "x" * 500}, {}) for i in range(30)]
    )
    readers = [
        create_token(TokenSpec(name=f"reader {i}", workspace_id=workspace.id, access="read"))[0]
        for i in range(CLIENTS)
    ]
    graphql = "/api/v1/graphql?query=" + "%7B+posts+%7B+total+items+%7B+title+%7D+%7D+%7D"
    urls = [
        "/api/v1/content/post",
        "/api/v1/content/post?pageSize=10",
        "/api/v1/content/post?sort=title",
        "/api/v1/content/post?fields=title",
        *(f"/api/v1/content/post/{entry_id}" for entry_id in ids[:5]),
        graphql,
    ]
    assert len(urls) == HOT_URLS
    return workspace.id, urls, readers


def _token_reads(calls: list[RecordedCall], table: str) -> int:
    return sum(
        1
        for c in calls
        if c.operation == "GetItem"
        and c.table == table
        and str(c.body.get("Key", {}).get("pk", {}).get("S", "")).startswith("TOKEN#")
    )


def _through_the_cache(
    stack: LocalStack, edge: EdgeCache, urls: list[str], readers: list[str]
) -> list[Row]:
    assert stack.recorder is not None
    assert stack.settings is not None
    rng = random.Random(25)
    clients = [
        httpx.Client(base_url=edge.url, headers={"Authorization": f"Bearer {t}"}, timeout=30)
        for t in readers
    ]
    statuses: dict[str, int] = {}
    with stack.recorder.capture() as calls:
        for _ in range(READS):
            answer = rng.choice(clients).get(rng.choice(urls))
            assert answer.status_code == 200, answer.text
            status = answer.headers["x-cache-status"]
            statuses[status] = statuses.get(status, 0) + 1
    reached = _token_reads(list(calls), stack.settings.tables.schema)
    said_miss = sum(n for s, n in statuses.items() if s not in SERVED_FROM_CACHE)
    per_1000 = reached * 1000 / READS
    hit, miss = _latencies(clients[0], urls)
    for client in clients:
        client.close()
    case = f"{CLIENTS} read tokens x {HOT_URLS} hot URLs, {READS:,} reads, s-maxage 60"
    return [
        Row(
            BENCHMARK,
            case,
            "requests reaching the service per 1,000 client reads",
            per_1000,
            "requests",
            target=f"<= {TARGET_PER_1000:.0f}",
            meets_target=per_1000 <= TARGET_PER_1000,
        ),
        Row(BENCHMARK, case, "  misses nginx reported", said_miss * 1000 / READS, "requests"),
        Row(BENCHMARK, "through nginx", "p50 of a hit", hit * 1000, "ms"),
        Row(BENCHMARK, "through nginx", "p50 of a miss", miss * 1000, "ms"),
        Row(BENCHMARK, "through nginx", "miss / hit", miss / hit, "x"),
    ]


def _latencies(client: httpx.Client, urls: list[str]) -> tuple[float, float]:
    """Medians of a hit (an entry, cached by now) and a miss (the same entry under a query
    string never asked before, so nginx asks the service)."""
    hits, misses = [], []
    entry = urls[4]
    for _ in range(LATENCY_SAMPLES):
        started = time.perf_counter()
        answer = client.get(entry)
        hits.append(time.perf_counter() - started)
        assert answer.headers["x-cache-status"] == "HIT", answer.headers
        started = time.perf_counter()
        answer = client.get(f"{entry}?fields=title,body&bench={uuid.uuid4().hex}")
        misses.append(time.perf_counter() - started)
        assert answer.headers["x-cache-status"] == "MISS", answer.headers
    return statistics.median(hits), statistics.median(misses)


def _limiter_cost(
    stack: LocalStack, base_url: str, urls: list[str], workspace_id: str
) -> list[Row]:
    assert stack.recorder is not None
    assert stack.settings is not None
    tables = stack.settings.tables
    rows = []
    counts = {}
    for label, rate in (("off", None), ("on", 1000)):
        token, _ = create_token(
            TokenSpec(name=label, workspace_id=workspace_id, access="read", rate_limit=rate)
        )
        with httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30
        ) as client:
            client.get(urls[4])
            with stack.recorder.capture() as calls:
                for _ in range(20):
                    assert client.get(urls[4]).status_code == 200
        dynamodb = [c for c in calls if c.target.startswith("DynamoDB_")]
        on_limits = [c for c in dynamodb if tables.rate_limits in c.tables]
        counts[label] = len(dynamodb) / 20
        if label == "on":
            rows.append(
                Row(
                    BENCHMARK,
                    "limiter (a token with rateLimit)",
                    "DynamoDB requests per API request on the rate-limits table",
                    len(on_limits) / 20,
                    "requests",
                    target="1",
                    meets_target=len(on_limits) == 20,
                )
            )
    for label in ("off", "on"):
        rows.append(
            Row(
                BENCHMARK,
                "limiter (a token with rateLimit)",
                f"DynamoDB requests per entry read, limiter {label}",
                counts[label],
                "requests",
            )
        )
    return rows


def run(stack: LocalStack) -> list[Row]:
    assert stack.base_url is not None
    workspace_id, urls, readers = _world()
    with (
        tempfile.TemporaryDirectory(prefix="bench-nginx-") as directory,
        EdgeCache(Path(directory), stack.base_url) as edge,
    ):
        rows = _through_the_cache(stack, edge, urls, readers)
    return rows + _limiter_cost(stack, stack.base_url, urls, workspace_id)
