"""What the local stack's journal costs an entry create: p50 and p99, journal on and off.

The same stack, the same content type, the same HTTP client: `POST /api/v1/content/{type}`
through uvicorn, the app, the recording proxy and moto, whose acknowledged writes are appended
to the journal and fsynced before moto answers (infra/moto_journal.py). The journal is switched
off by unregistering the stack's tables from it and on again, in alternating blocks, so both
modes see the same machine state; the ratio of the two is the figure (target: at most 1.3).
"""

from __future__ import annotations

import statistics
import time

import httpx

from bench.post_workspace import writer_workspace
from bench.report import Row
from infra import moto_journal
from infra.durable_state import DurableState
from infra.local_stack import LocalStack

BENCHMARK = "durability"
BLOCKS = 12
PER_BLOCK = 40
TARGET_RATIO = 1.3


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(stack: LocalStack) -> list[Row]:
    state = stack.durable_state
    if state is None or stack.base_url is None:
        return []
    _, token = writer_workspace("bench", "durability", "note")
    tables = [(table.name, logical) for logical, table in state.tables.items()]
    with httpx.Client(
        base_url=stack.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    ) as client:
        samples, journaled = _measure(client, state, tables)
    return _rows(samples, journaled)


def _measure(
    client: httpx.Client, state: DurableState, tables: list[tuple[str, str]]
) -> tuple[dict[bool, list[float]], int]:
    """Create latencies with the journal on and off (alternating blocks), and the bytes the
    journal grew by while on."""
    samples: dict[bool, list[float]] = {True: [], False: []}
    journaled = 0
    body = {"values": {"title": "A note", "body": "Some text. " * 40}}
    for _ in range(20):  # warm-up: imports, caches, the connection
        client.post("/api/v1/content/note", json=body)
    try:
        for block in range(BLOCKS):
            journal = block % 2 == 0
            if journal:
                moto_journal.register(state, tables)
            else:
                moto_journal.unregister(state)
            before = state.journal_bytes
            for _ in range(PER_BLOCK):
                started = time.perf_counter()
                response = client.post("/api/v1/content/note", json=body)
                samples[journal].append(time.perf_counter() - started)
                if response.status_code != 201:
                    raise RuntimeError(f"create answered {response.status_code}")
            if journal:
                journaled += state.journal_bytes - before
            elif state.journal_bytes != before:
                raise RuntimeError("the journal grew while it was off")
    finally:
        moto_journal.register(state, tables)
    return samples, journaled


def _rows(samples: dict[bool, list[float]], journaled: int) -> list[Row]:
    rows = []
    figures: dict[tuple[bool, str], float] = {}
    for journal, name in ((True, "journal on"), (False, "journal off")):
        for label, value in (
            ("p50", statistics.median(samples[journal])),
            ("p99", _percentile(samples[journal], 0.99)),
        ):
            figures[(journal, label)] = value
            rows.append(Row(BENCHMARK, f"entry create, {name}", label, value * 1000, "ms"))
    rows.append(
        Row(
            BENCHMARK,
            "entry create, journal on",
            "journal bytes per create",
            journaled / len(samples[True]),
            "B",
        )
    )
    for label in ("p50", "p99"):
        ratio = figures[(True, label)] / figures[(False, label)]
        rows.append(
            Row(
                BENCHMARK,
                "entry create, journal on / off",
                f"{label} ratio",
                ratio,
                "x",
                target=f"<= {TARGET_RATIO}",
                meets_target=ratio <= TARGET_RATIO,
            )
        )
    return rows
