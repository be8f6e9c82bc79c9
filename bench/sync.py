"""Sync: an initial sync and a delta, DynamoDB requests and bytes at the storage boundary.

Through real HTTP against the local stack (a read token), every DynamoDB request counted by the
recording proxy, as `bench.content_lists` measures:

1. An initial sync of 1,000 and then 10,000 published articles (seeded in their stored shape),
   following every `nextPageUrl`: its pages, requests and bytes, reported as measured (it is a
   walk through the lists: it grows with the workspace by design).
2. Then 10 edits among them (each a PATCH and a publish through the API: 20 writes, 20 change
   items) and the delta from the initial sync's `nextSyncUrl`: its requests and bytes. Held to
   the same requests at 1,000 and 10,000 articles and bytes within 10 % (docs/content.md, "The
   change log": a delta reads the changes, never the workspace).
"""

from __future__ import annotations

import dataclasses
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from bench.content_lists import (
    RICH_TEXT,
    SEED_CHUNK,
    StorageCalls,
    _client,
    _spread,
    _workspace,
)
from bench.report import Row
from content_service import runtime
from content_service.clock import iso_utc
from content_service.content.entries import StoredEntry
from content_service.content.schema import (
    ContentType,
    FieldSpec,
    TypeDefinition,
    create_type,
    get_type,
)
from content_service.identity.tokens import TokenSpec, create_token
from harness.seeding import bulk_put_chunks, stored_entry
from infra.emulator import Emulator
from infra.local_stack import LocalStack
from infra.request_recorder import RequestRecorder

BENCHMARK = "sync"
SIZES = (1_000, 10_000)
EDITS = 10


@contextmanager
def _settled_at_once() -> Iterator[None]:
    """Deltas answer changes as soon as they are made (`SYNC_SETTLE_MS` 0), so the suite need
    not wait five seconds before each delta; what a delta reads is the same."""
    before = runtime.settings()
    delivery = dataclasses.replace(before.delivery, sync_settle_ms=0)
    runtime.configure(dataclasses.replace(before, delivery=delivery))
    try:
        yield
    finally:
        runtime.configure(before)


def _seed(
    workspace_id: str, article: ContentType, span: tuple[int, int], emulator: Emulator
) -> None:
    keys = {f.name: f.key for f in article.fields}

    def entry(i: int) -> StoredEntry:
        return stored_entry(
            workspace_id,
            article,
            {keys["title"]: f"Article {i:07d}", keys["body"]: RICH_TEXT},
            entry_id=str(uuid.UUID(int=i + 1, version=4)),
            stamp=iso_utc(1_700_000_000.0 + i),
        )

    bulk_put_chunks(workspace_id, article, span, entry, chunk=SEED_CHUNK, emulator=emulator)


@dataclasses.dataclass
class _Synced(StorageCalls):
    """A sync followed to its `nextSyncUrl`: every storage call, page and entry."""

    pages: int
    entries: list[dict[str, Any]]
    next_sync: str
    seconds: float


def _sync(client: httpx.Client, recorder: RequestRecorder, url: str) -> _Synced:
    pages: list[dict[str, Any]] = []
    started = time.perf_counter()
    with recorder.capture() as calls:
        while True:
            response = client.get(url)
            response.raise_for_status()
            pages.append(response.json())
            if "nextSyncUrl" in pages[-1]:
                break
            url = pages[-1]["nextPageUrl"]
    entries = [e for p in pages for e in p["entries"]]
    elapsed = time.perf_counter() - started
    return _Synced(list(calls), len(pages), entries, pages[-1]["nextSyncUrl"], elapsed)


def _edit(client: httpx.Client, ids: list[str], size: int) -> None:
    """A new title for each (one an earlier size edited too gets another), then published."""
    for entry_id in ids:
        path = f"/api/v1/content/article/{entry_id}"
        title = {"title": f"Edited at {size:,}"}
        client.patch(path, json={"values": title}).raise_for_status()
        client.post(f"{path}/publish").raise_for_status()


def _rows(case: str, synced: _Synced, **target: Any) -> list[Row]:
    return [
        Row(BENCHMARK, case, "pages", synced.pages, "pages"),
        Row(BENCHMARK, case, "entries answered", len(synced.entries), "entries"),
        Row(BENCHMARK, case, "DynamoDB requests", synced.requests, "requests", **target),
        Row(BENCHMARK, case, "bytes read", synced.bytes_read, "bytes"),
        Row(BENCHMARK, case, "time, against moto", synced.seconds * 1000, "ms"),
    ]


def _spread_rows(deltas: dict[int, _Synced]) -> list[Row]:
    sizes = ", ".join(f"{s:,}" for s in deltas)
    case = f"delta after {EDITS} edits, across {sizes} articles"
    requests = _spread([float(d.requests) for d in deltas.values()])
    read = _spread([float(d.bytes_read) for d in deltas.values()])
    return [
        Row(
            BENCHMARK,
            case,
            "requests: largest / smallest",
            requests,
            "ratio",
            target="= 1.00",
            meets_target=requests == 1.0,
        ),
        Row(
            BENCHMARK,
            case,
            "bytes read: largest / smallest",
            read,
            "ratio",
            target="<= 1.10",
            meets_target=read <= 1.10,
        ),
    ]


def _progress(message: str) -> None:
    print(f"  sync: {message}", file=sys.stderr, flush=True)


def run(stack: LocalStack) -> list[Row]:
    assert stack.base_url is not None
    assert stack.recorder is not None
    workspace_id, full_token, caller = _workspace()
    read_token, _ = create_token(TokenSpec(name="read", workspace_id=workspace_id, access="read"))
    fields = (FieldSpec("title", "string"), FieldSpec("body", "richtext"))
    create_type(caller, workspace_id, TypeDefinition("article", fields=fields))
    article = get_type(workspace_id, "article")
    assert article is not None
    rows: list[Row] = []
    deltas: dict[int, _Synced] = {}
    seeded = 0
    with (
        _settled_at_once(),
        _client(stack.base_url, read_token) as read,
        _client(stack.base_url, full_token) as full,
    ):
        for size in SIZES:
            _seed(workspace_id, article, (seeded, size), stack.emulator)
            seeded = size
            initial = _sync(read, stack.recorder, "/api/v1/sync?initial=true")
            assert len(initial.entries) == size, len(initial.entries)
            _progress(f"initial sync of {size:,} articles done")
            edited = [e["id"] for e in initial.entries[:: size // EDITS]][:EDITS]
            _edit(full, edited, size)
            delta = _sync(read, stack.recorder, initial.next_sync)
            assert sorted(e["id"] for e in delta.entries) == sorted(edited)
            deltas[size] = delta
            rows += _rows(f"initial sync, {size:,} articles", initial)
            rows += _rows(f"delta after {EDITS} edits, {size:,} articles", delta)
    return rows + _spread_rows(deltas)
