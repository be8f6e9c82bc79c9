"""Content lists: DynamoDB requests, bytes read and time, observed at the storage boundary.

Through real HTTP against the local stack (moto in server mode), with every DynamoDB request
counted by the recording proxy (`infra.request_recorder`):

1. A list of 10, 50 and 100 posts with two relations expanded (`author` many-to-one, `tags`
   many-to-many): the requests must not grow with the number of rows.
2. Lists of one type at 1,000, 10,000 and 100,000 entries (the type grows from one size to the
   next; each entry carries ~1 KB of rich text; 80 % published, a tenth of those `changed`):
   "published, newest first, page of 20" and "sorted by a sortable field, eq on another
   sortable field" (a read token), "a page of changed entries" (a full token's preview),
   each held to at most 4 requests and 64 KB, and requests, bytes read and service time
   constant within 10 % across the sizes; and, for comparison, a list the index cannot serve
   (filtered and sorted in memory), which the read budget refuses past 10,000 entries.

Service time is the median of interleaved runs (shuffled rounds, the in-memory case apart) with
the storage answers replayed by the proxy:
the service's own cost (HTTP, token, the type and counts, the index page, the entries, JSON),
not moto's. Seeding builds items with the service's own builders (`entry_item`, the list
index's `index_state`), so they have exactly the stored shape, and loads them into the
in-process emulator (`Emulator.load`, moto's own put_item without HTTP).
"""

from __future__ import annotations

import dataclasses
import gc
import json
import math
import os
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from bench.report import Row, median_seconds
from content_service import runtime
from content_service.clock import iso_utc
from content_service.content.entries import StoredEntry
from content_service.content.lists import READ_BUDGET
from content_service.content.requests import RelationChange, WriteRequest
from content_service.content.schema import (
    ContentType,
    FieldSpec,
    TypeDefinition,
    create_type,
    get_type,
)
from content_service.content.writes import Versions, create_entry
from content_service.identity.principal import TokenCaller
from content_service.identity.tokens import TokenSpec, authenticate_token, create_token
from content_service.identity.workspaces import create_workspace
from harness.seeding import bulk_put_chunks, changed_entry, stored_entry
from infra.emulator import Emulator
from infra.local_stack import LocalStack
from infra.request_recorder import RecordedCall, RequestRecorder

BENCHMARK = "content_lists"
RELATION_SIZES = (10, 50, 100)
LIST_SIZES = (1_000, 10_000, 100_000)
RECORD = "record"
CATEGORIES = ("news", "guide", "review", "opinion", "event")
RICH_TEXT = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 18 + "</p>"
SEED_CHUNK = 10_000
# Of the published entries, the share with a newer draft (`changed`).
CHANGED_SHARE = 0.1
REPLAY_WARMUP = 2
REPLAY_ROUNDS = 61


def list_sizes() -> tuple[int, ...]:
    """LIST_SIZES, or `BENCH_LIST_SIZES` (comma list, ascending) for a one-off run."""
    raw = os.environ.get("BENCH_LIST_SIZES")
    return tuple(int(n) for n in raw.split(",")) if raw else LIST_SIZES


def _dynamodb(calls: list[RecordedCall]) -> list[RecordedCall]:
    return [c for c in calls if c.target.startswith("DynamoDB_")]


def _client(base_url: str, token: str) -> httpx.Client:
    # A connection per request: the local uvicorn socket otherwise adds delayed-ACK stalls
    # (~40 ms) on kept-alive connections that API Gateway never would.
    return httpx.Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {token}", "Connection": "close"},
        timeout=120,
    )


def _workspace() -> tuple[str, str, TokenCaller]:
    slug = f"bench-{uuid.uuid4().hex[:10]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    token, _ = create_token(TokenSpec(name="bench", workspace_id=workspace.id, access="full"))
    return workspace.id, token, authenticate_token(token)


def _timed(
    recorder: RequestRecorder, request: Callable[[], object], repeat: int
) -> tuple[list[RecordedCall], float, float]:
    """One run against the emulator (its calls and seconds), then the median seconds of
    `repeat` runs with those storage answers replayed by the proxy: the service's own cost
    (HTTP, auth, decoding, filtering, sorting, JSON) without moto's, whose Query walks the
    whole table on every page."""
    with recorder.capture() as calls:
        started = time.perf_counter()
        request()
        live = time.perf_counter() - started
    with recorder.replay(calls):
        replayed = median_seconds(request, repeat=repeat, warmup=1)
    return calls, live, replayed


def _time_rows(
    case: str, calls: list[RecordedCall], live: float, replayed: float, **target: Any
) -> list[Row]:
    storage = sum(c.elapsed for c in _dynamodb(calls))
    return [
        Row(BENCHMARK, case, "time per list against moto (1 run)", live * 1000, "ms"),
        Row(BENCHMARK, case, "  of which moto answering", storage * 1000, "ms"),
        Row(
            BENCHMARK,
            case,
            "median time per list, storage replayed",
            replayed * 1000,
            "ms",
            **target,
        ),
    ]


def _breakdown(case: str, calls: list[RecordedCall]) -> list[Row]:
    """One row per operation, and the keys each BatchGetItem asked for, in order."""
    rows = [
        Row(BENCHMARK, case, f"  {operation}", count, "requests")
        for operation, count in sorted(Counter(c.operation for c in calls).items())
    ]
    batches = [c for c in calls if c.operation == "BatchGetItem"]
    rows.extend(
        Row(BENCHMARK, case, f"    keys in BatchGetItem {i}", c.batch_keys(), "keys")
        for i, c in enumerate(batches, start=1)
    )
    return rows


def relation(name: str, target: str, cardinality: str) -> FieldSpec:
    return FieldSpec(name=name, type="relation", target=target, cardinality=cardinality)


def define_post(caller: TokenCaller, workspace_id: str, *more: FieldSpec) -> None:
    """The benchmarks' `post` type: a title, a rich-text body and the fields `more` adds."""
    fields = (FieldSpec("title", "string"), FieldSpec("body", "richtext"), *more)
    create_type(caller, workspace_id, TypeDefinition("post", fields=fields))


def relations_case(base_url: str, recorder: RequestRecorder) -> list[Row]:
    workspace_id, token, caller = _workspace()
    create_type(
        caller, workspace_id, TypeDefinition("author", fields=(FieldSpec("name", "string"),))
    )
    create_type(caller, workspace_id, TypeDefinition("tag", fields=(FieldSpec("label", "string"),)))
    define_post(
        caller,
        workspace_id,
        relation("author", "author", "many-to-one"),
        relation("tags", "tag", "many-to-many"),
    )

    def write(type_name: str, values: dict[str, Any], **links: list[str]) -> str:
        return create_entry(
            WriteRequest(
                caller=caller,
                workspace_id=workspace_id,
                content_type=type_name,
                values=values,
                relations={k: RelationChange(link=tuple(v)) for k, v in links.items()},
            )
        ).id

    authors = [write("author", {"name": f"author {i}"}) for i in range(5)]
    tags = [write("tag", {"label": f"tag {i}"}) for i in range(12)]
    for i in range(max(RELATION_SIZES)):
        write(
            "post",
            {"title": f"post {i}", "body": RICH_TEXT},
            author=[authors[i % len(authors)]],
            tags=[tags[i % len(tags)], tags[(i + 5) % len(tags)], tags[(i + 7) % len(tags)]],
        )

    rows: list[Row] = []
    counts: list[int] = []
    with _client(base_url, token) as client:
        for size in RELATION_SIZES:
            params: dict[str, str | int] = {"pageSize": size, "expand": "author,tags"}

            def run(params: dict[str, str | int] = params) -> None:
                client.get("/api/v1/content/post", params=params).raise_for_status()

            with recorder.capture() as calls:
                body = client.get("/api/v1/content/post", params=params).json()
            assert len(body["items"]) == size
            assert all(len(e["relations"]["tags"]) == 3 for e in body["items"])
            observed = _dynamodb(calls)
            counts.append(len(observed))
            case = f"{size} posts, expand author,tags"
            rows.extend(
                [
                    requests_row(BENCHMARK, case, len(observed), "same for 10, 50, 100"),
                    *_breakdown(case, observed),
                    *_time_rows(case, *_timed(recorder, run, repeat=7)),
                ]
            )
    constant = len(set(counts)) == 1
    return [
        dataclasses.replace(r, meets_target=constant) if r.metric == "DynamoDB requests" else r
        for r in rows
    ]


def _record_type(caller: TokenCaller, workspace_id: str) -> ContentType:
    create_type(
        caller,
        workspace_id,
        TypeDefinition(
            RECORD,
            fields=(
                FieldSpec("title", "string"),
                FieldSpec("rank", "integer"),
                FieldSpec("price", "float", sortable=True),
                FieldSpec("category", "enum", values=CATEGORIES, sortable=True),
                FieldSpec("hot", "boolean"),
                FieldSpec("at", "datetime"),
                FieldSpec("body", "richtext"),
            ),
        ),
    )
    content_type = get_type(workspace_id, RECORD)
    assert content_type is not None
    return content_type


def _seed(
    workspace_id: str, content_type: ContentType, start: int, stop: int, emulator: Emulator
) -> None:
    """Entries `start` to `stop` of the stored shape, with their list index and count items,
    loaded into the in-process emulator (`harness.seeding.bulk_put`)."""
    rng = random.Random(stop)
    keys = {f.name: f.key for f in content_type.fields}
    base = 1_700_000_000.0

    def entry(i: int) -> StoredEntry | Versions:
        values: dict[str, Any] = {
            keys["title"]: f"Entry {i:07d} " + rng.choice(["alpha", "gamma", "delta"]),
            keys["rank"]: rng.randrange(0, 1000),
            keys["price"]: round(rng.uniform(100, 999), 2),
            keys["category"]: rng.choice(CATEGORIES),
            keys["hot"]: rng.random() < 0.5,
            keys["at"]: iso_utc(base + rng.randrange(0, 10_000_000)),
            keys["body"]: RICH_TEXT,
        }
        stored = stored_entry(
            workspace_id,
            content_type,
            values,
            entry_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            stamp=iso_utc(base + i),
            published=rng.random() < 0.8,
        )
        if stored.is_live and rng.random() < CHANGED_SHARE:
            live = {**values, keys["title"]: f"Entry {i:07d} (as published)"}
            return changed_entry(content_type, stored, live)
        return stored

    bulk_put_chunks(
        workspace_id, content_type, (start, stop), entry, chunk=SEED_CHUNK, emulator=emulator
    )


@dataclass(frozen=True)
class _Case:
    name: str
    token: str  # "read" or "full"
    params: dict[str, str | int]
    bounded: bool = True
    """Held to the targets: at most 4 requests, 64 KB, figures constant across sizes."""


@dataclass
class StorageCalls:
    """The storage (DynamoDB) calls a measured request made, and what they add up to."""

    calls: list[RecordedCall]

    @property
    def requests(self) -> int:
        return len(_dynamodb(self.calls))

    @property
    def bytes_read(self) -> int:
        return sum(c.response_bytes for c in _dynamodb(self.calls))


class Sampled(Protocol):
    """Storage figures with the replayed service times of the same request."""

    @property
    def requests(self) -> int: ...

    @property
    def bytes_read(self) -> int: ...

    samples: list[float]


@dataclass
class _Observed(StorageCalls):
    status: int
    total: int | None
    live: float
    samples: list[float] = field(default_factory=list)


CASES = (
    _Case("published, newest first, page of 20", "read", {"pageSize": 20}),
    _Case(
        "sorted by a sortable field, eq on another sortable field",
        "read",
        {
            "pageSize": 20,
            "sort": "-price",
            "filter": json.dumps({"field": "category", "op": "eq", "value": "news"}),
        },
    ),
    _Case(
        "a page of changed entries (preview), newest first",
        "full",
        {
            "pageSize": 20,
            "filter": json.dumps({"field": "status", "op": "eq", "value": "changed"}),
        },
    ),
    _Case(
        "filtered and sorted in memory (fields not sortable)",
        "full",
        {
            "pageSize": 20,
            "sort": "-rank,title",
            "filter": json.dumps(
                {
                    "and": [
                        {"field": "hot", "op": "eq", "value": True},
                        {"field": "rank", "op": "gte", "value": 250},
                    ]
                }
            ),
            "fields": "title,price,rank,category",
        },
        bounded=False,
    ),
)


def _observe(client: httpx.Client, path: str, case: _Case, recorder: RequestRecorder) -> _Observed:
    with recorder.capture() as calls:
        started = time.perf_counter()
        response = client.get(path, params=case.params)
        live = time.perf_counter() - started
    if response.status_code == 200:
        body = response.json()
        assert len(body["items"]) == 20
        assert RICH_TEXT[:40] in response.text or "fields" in case.params
        return _Observed(list(calls), 200, int(body["total"]), live)
    assert response.status_code == 400, response.text
    return _Observed(list(calls), 400, None, live)


def _replayed(
    clients: dict[str, httpx.Client],
    path: str,
    observed: dict[tuple[str, int], _Observed],
    recorder: RequestRecorder,
) -> None:
    """Service time: every (case, size) run with its recorded storage answers, in rounds that
    take each once, in a shuffled order, so load on the machine falls on every size alike.
    The bounded cases have their own rounds: after the in-memory case (megabytes of answers
    parsed) the next request pays for its garbage, whichever size it is."""
    rng = random.Random(REPLAY_ROUNDS)
    for bounded in (True, False):
        runs = [
            (case, seen)
            for (name, _size), seen in observed.items()
            for case in CASES
            if case.name == name and case.bounded == bounded and seen.status == 200
        ]
        gc.collect()
        for round_number in range(REPLAY_WARMUP + REPLAY_ROUNDS):
            rng.shuffle(runs)
            for case, seen in runs:
                with recorder.replay(seen.calls):
                    started = time.perf_counter()
                    clients[case.token].get(path, params=case.params)
                    elapsed = time.perf_counter() - started
                if round_number >= REPLAY_WARMUP:
                    seen.samples.append(elapsed)


def _spread(values: list[float]) -> float:
    """max / min: 1.0 is constant."""
    return max(values) / min(values) if min(values) > 0 else math.inf


def requests_row(
    benchmark: str, label: str, requests: int, target: str = "", meets: bool | None = None
) -> Row:
    """A case's row of DynamoDB requests, against its target (none: "")."""
    return Row(
        benchmark,
        label,
        "DynamoDB requests",
        requests,
        "requests",
        target=target,
        meets_target=meets,
    )


def _case_rows(case: _Case, observed: dict[int, _Observed]) -> list[Row]:
    rows: list[Row] = []
    for size, seen in observed.items():
        label = f"{case.name}, {size:,} entries"
        if seen.status != 200:
            rows.append(
                Row(
                    BENCHMARK,
                    label,
                    f"refused: over the read budget of {READ_BUDGET:,} entries (400)",
                    seen.requests,
                    "requests",
                )
            )
            continue
        meets = seen.requests <= 4 if case.bounded else None
        target = "<= 4" if case.bounded else ""
        rows.append(requests_row(BENCHMARK, label, seen.requests, target, meets))
        rows.extend(_breakdown(label, _dynamodb(seen.calls)))
        by_operation: Counter[str] = Counter()
        for call in _dynamodb(seen.calls):
            by_operation[call.operation] += call.response_bytes
        rows.extend(
            Row(BENCHMARK, label, f"  bytes read by {operation}", read, "bytes")
            for operation, read in sorted(by_operation.items())
        )
        rows.append(
            Row(
                BENCHMARK,
                label,
                "bytes read",
                seen.bytes_read,
                "bytes",
                target="<= 64 KB" if case.bounded else "",
                meets_target=seen.bytes_read <= 64 * 1024 if case.bounded else None,
            )
        )
        rows.append(Row(BENCHMARK, label, "total", seen.total or 0, "entries"))
        rows.append(
            Row(
                BENCHMARK,
                label,
                "rich text read",
                sum(c.raw_response.count(RICH_TEXT[:40].encode()) for c in _dynamodb(seen.calls)),
                "entries",
            )
        )
        rows.append(
            Row(BENCHMARK, label, "time per list against moto (1 run)", seen.live * 1000, "ms")
        )
        storage = sum(c.elapsed for c in _dynamodb(seen.calls))
        rows.append(Row(BENCHMARK, label, "  of which moto answering", storage * 1000, "ms"))
        rows.append(
            Row(
                BENCHMARK,
                label,
                "median time per list, storage replayed",
                statistics.median(seen.samples) * 1000,
                "ms",
            )
        )
    served = [s for s in observed.values() if s.status == 200]
    if case.bounded and len(served) > 1:
        sizes = ", ".join(f"{size:,}" for size in observed)
        rows.extend(spread_rows(BENCHMARK, f"{case.name}, across {sizes} entries", served))
    return rows


def spread_rows(benchmark: str, case: str, measured: Sequence[Sampled]) -> list[Row]:
    """Each storage figure's largest / smallest across list sizes: held to 1.10 (a list's
    cost does not grow with the number of entries)."""
    spreads = {
        "requests": _spread([float(s.requests) for s in measured]),
        "bytes read": _spread([float(s.bytes_read) for s in measured]),
        "service time (median, storage replayed)": _spread(
            [statistics.median(s.samples) for s in measured]
        ),
    }
    return [
        Row(
            benchmark,
            case,
            f"{metric}: largest / smallest",
            spread,
            "ratio",
            target="<= 1.10",
            meets_target=spread <= 1.10,
        )
        for metric, spread in spreads.items()
    ]


def lists_case(
    base_url: str, stack: LocalStack, recorder: RequestRecorder, progress: Callable[[str], None]
) -> list[Row]:
    """The two lists a frontend runs all day, and one the index cannot serve, at each size of
    one type, the type growing from one size to the next."""
    workspace_id, full_token, caller = _workspace()
    read_token, _ = create_token(TokenSpec(name="read", workspace_id=workspace_id, access="read"))
    content_type = _record_type(caller, workspace_id)
    path = f"/api/v1/content/{RECORD}"
    observed: dict[tuple[str, int], _Observed] = {}
    seeded = 0
    with _client(base_url, full_token) as full, _client(base_url, read_token) as read:
        clients = {"full": full, "read": read}
        for size in list_sizes():
            _seed(workspace_id, content_type, seeded, size, stack.emulator)
            seeded = size
            progress(f"seeded {size:,} entries")
            for case in CASES:
                observed[(case.name, size)] = _observe(clients[case.token], path, case, recorder)
            progress(f"listed {size:,} entries")
        _replayed(clients, path, observed, recorder)
    rows: list[Row] = []
    for case in CASES:
        rows.extend(
            _case_rows(
                case, {size: seen for (name, size), seen in observed.items() if name == case.name}
            )
        )
    return rows


def _progress(message: str, started: float) -> None:
    print(f"  content_lists: {message} ({time.perf_counter() - started:.1f} s)", file=sys.stderr)


def run(stack: LocalStack) -> list[Row]:
    assert stack.base_url is not None, "the bench needs the API"
    started = time.perf_counter()
    recorder = stack.recorder
    assert recorder is not None, "the bench counts requests with the stack's recorder"
    rows = relations_case(stack.base_url, recorder)
    _progress("relations case done", started)
    rows += lists_case(stack.base_url, stack, recorder, lambda m: _progress(m, started))
    return rows
