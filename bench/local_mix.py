"""The local stack under a site's build: 28 clients for 60 s, on both process layouts.

What a developer points at `make run`: 16 writers creating entries, 8 GraphQL readers and 4 REST
list readers (pages of 20, read token), all at once, against a type seeded with 4,000 published
entries. Each layout is started exactly as `make run` starts it (`python -m infra.local_stack`,
journal on, pollers running) in a process tree of its own, on free ports and a fresh
`LOCAL_DIR`: first `LOCAL_LAYOUT=one-process` (the layout of earlier releases: emulator, API,
pollers and journal in one Python process), then the default layout (docs/decisions.md,
D81). Reported per layout: requests per second, p50 and p95 per kind, errors, the median of
an idle page of 20 at 4,000 entries (once the stack has settled after the seeding); and the
ratio of the two request rates, which holds on any machine because both run here in the same
run.

`python -m bench.local_mix --profile DIR` also records each layout's process tree with py-spy
(collapsed stacks, one file per layout) while the mix runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.report import Row
from content_service import runtime
from content_service.settings import Settings
from harness.ports import free_port
from harness.seeding import seed_published
from infra import REPO_ROOT

BENCHMARK = "local_mix"
TYPE = "post"
SEEDED = 4_000
WRITERS, GRAPHQL_READERS, LIST_READERS = 16, 8, 4
DURATION_S = 60.0
PAGE = 20
BODY = "<p>" + "A paragraph of the post, long enough to look like one. " * 16 + "</p>"
GRAPHQL = "query ($n: Int) { posts(pageSize: $n) { total items { id title publishedAt } } }"
LAYOUTS = ("one-process", "processes")
RATIO_TARGET = 3.0
READ_P50_TARGET_S = 1.0
IDLE_TARGET_MS = 50.0
SETTLED_CPU_S = 0.1
"""CPU seconds per second of the stack's processes under which it counts as idle."""


@dataclass
class Samples:
    """Latencies per kind of request, and what failed."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, elapsed: float, ok: bool) -> None:
        with self.lock:
            if ok:
                self.seconds.setdefault(kind, []).append(elapsed)
            else:
                self.errors[kind] = self.errors.get(kind, 0) + 1


@dataclass
class Outcome:
    layout: str
    elapsed_s: float
    samples: Samples
    idle_page_ms: float
    settled: bool
    """Whether the stack was idle when the idle page was measured."""
    load: tuple[float, float, float]
    cpu_s: float | None
    """CPU seconds the stack's processes used during the mix (None where /proc is not)."""

    @property
    def served(self) -> int:
        return sum(len(v) for v in self.samples.seconds.values())

    @property
    def rate(self) -> float:
        return self.served / self.elapsed_s


class Stack:
    """`python -m infra.local_stack` with a layout, in a process group of its own."""

    def __init__(self, layout: str, root: Path, profile: Path | None) -> None:
        self.local_dir = root / layout / ".local"
        self.local_dir.mkdir(parents=True)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log = root / f"{layout}.log"
        self.env = {
            **os.environ,
            "PORT": str(self.port),
            "MOTO_PORT": str(free_port()),
            "LOCAL_DIR": str(self.local_dir),
            "LOCAL_LAYOUT": layout,
            "LOG_LEVEL": "WARNING",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "POWERTOOLS_METRICS_DISABLED": "true",
        }
        command = [sys.executable, "-m", "infra.local_stack"]
        if profile is not None:
            profile.mkdir(parents=True, exist_ok=True)
            py_spy = Path(sys.executable).with_name("py-spy")
            command = [
                str(py_spy),
                "record",
                "--subprocesses",
                "--idle",
                "--format",
                "raw",
                "--rate",
                "50",
                "--output",
                str(profile / f"{layout}.txt"),
                "--",
                *command,
            ]
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                command, cwd=REPO_ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        self._wait_healthy()
        stack = json.loads((self.local_dir / "stack.json").read_text())
        self.stack_env: dict[str, str] = stack["env"]
        self.credentials = json.loads((self.local_dir / "bootstrap.json").read_text())

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the stack exited with {self.process.returncode}: {self.log}")
            if (self.local_dir / "stack.json").exists():
                try:
                    if httpx.get(f"{self.base_url}/healthz", timeout=2).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
            time.sleep(0.2)
        raise RuntimeError(f"the stack did not become healthy: {self.log}")

    def stop(self) -> int:
        """Ctrl-C, as a developer stops it; the exit status (0 is a clean stop)."""
        self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(10)


def _tree_cpu_seconds(pid: int) -> float | None:
    """User and system CPU of `pid` and its descendants, from /proc (Linux); None elsewhere."""
    proc = Path("/proc")
    if not (proc / str(pid)).is_dir():
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        try:
            fields = (proc / str(current) / "stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
            for task in (proc / str(current) / "task").iterdir():
                pending.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError, IndexError):
            continue
    return total


def _client(base_url: str, token: str) -> httpx.Client:
    return httpx.Client(
        base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=120
    )


def _prepare(stack: Stack) -> None:
    """The type over HTTP, then 4,000 published entries seeded at the storage (25 a request)."""
    token = stack.credentials["tokens"]["full"]
    with _client(stack.base_url, token) as client:
        created = client.post(
            "/api/v1/content-types",
            json={
                "name": TYPE,
                "titleField": "title",
                "fields": [
                    {"name": "title", "type": "string", "required": True},
                    {"name": "body", "type": "richtext"},
                ],
            },
        )
        created.raise_for_status()
    os.environ.update(stack.stack_env)  # the AWS clients read their credentials from it
    runtime.configure(Settings.from_env())
    workspace_id = stack.credentials["workspaceId"]
    start = time.time() - SEEDED
    for first in range(0, SEEDED, 500):
        rows: list[Any] = [
            ({"title": f"Seeded post {n}", "body": BODY}, {})
            for n in range(first, min(SEEDED, first + 500))
        ]
        seed_published(workspace_id, TYPE, rows, start=start + first)


def _settle(pid: int, limit_s: float = 120.0) -> bool:
    """Waits until the stack is idle: under a tenth of a core over one second. Seeding leaves
    work behind (the journal's fold in a child, D107), and a page measured meanwhile is not an
    idle page. False when it was still busy after `limit_s` (the idle row then says so)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        before = _tree_cpu_seconds(pid)
        time.sleep(1.0)
        after = _tree_cpu_seconds(pid)
        if before is None or after is None or after - before < SETTLED_CPU_S:
            return True
    return False


def _idle_page_ms(stack: Stack, rounds: int = 21) -> float:
    read = stack.credentials["tokens"]["read"]
    samples = []
    with _client(stack.base_url, read) as client:
        for n in range(rounds + 2):
            started = time.perf_counter()
            response = client.get(f"/api/v1/content/{TYPE}", params={"pageSize": PAGE})
            elapsed = time.perf_counter() - started
            response.raise_for_status()
            if n >= 2:  # the first two warm the caches and the connection
                samples.append(elapsed)
    return statistics.median(samples) * 1000


def _worker(
    kind: str,
    client: httpx.Client,
    request: Callable[[httpx.Client, int], httpx.Response],
    samples: Samples,
    deadline: float,
) -> None:
    n = 0
    while time.monotonic() < deadline:
        n += 1
        started = time.perf_counter()
        try:
            ok = request(client, n).status_code < 300
        except httpx.HTTPError:
            ok = False
        samples.add(kind, time.perf_counter() - started, ok)


def _create(client: httpx.Client, n: int) -> httpx.Response:
    title = f"Post {uuid.uuid4().hex[:8]} #{n}"
    return client.post(f"/api/v1/content/{TYPE}", json={"values": {"title": title, "body": BODY}})


def _graphql(client: httpx.Client, n: int) -> httpx.Response:
    response = client.post("/api/v1/graphql", json={"query": GRAPHQL, "variables": {"n": PAGE}})
    if response.status_code == 200 and response.json().get("errors"):
        return httpx.Response(500)
    return response


def _list(client: httpx.Client, n: int) -> httpx.Response:
    return client.get(f"/api/v1/content/{TYPE}", params={"pageSize": PAGE})


def _mix(stack: Stack, duration_s: float) -> tuple[Samples, float]:
    full, read = stack.credentials["tokens"]["full"], stack.credentials["tokens"]["read"]
    plan: list[tuple[str, str, Callable[[httpx.Client, int], httpx.Response]]] = [
        *[("create", full, _create)] * WRITERS,
        *[("graphql", read, _graphql)] * GRAPHQL_READERS,
        *[("list", read, _list)] * LIST_READERS,
    ]
    samples = Samples()
    clients = [_client(stack.base_url, token) for _, token, _ in plan]
    started = time.monotonic()
    deadline = started + duration_s
    threads = [
        threading.Thread(target=_worker, args=(kind, client, request, samples, deadline))
        for (kind, _, request), client in zip(plan, clients, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started  # until the last answer: requests in flight count
    for client in clients:
        client.close()
    return samples, elapsed


def run_layout(layout: str, root: Path, duration_s: float, profile: Path | None) -> Outcome:
    stack = Stack(layout, root, profile)
    try:
        _prepare(stack)
        settled = _settle(stack.process.pid)
        idle = _idle_page_ms(stack)
        before = _tree_cpu_seconds(stack.process.pid)
        samples, elapsed = _mix(stack, duration_s)
        after = _tree_cpu_seconds(stack.process.pid)
        load = os.getloadavg()
    finally:
        code = stack.stop()
    if code != 0:
        raise RuntimeError(f"{layout}: the stack exited with {code} after Ctrl-C: {stack.log}")
    cpu = after - before if after is not None and before is not None else None
    return Outcome(layout, elapsed, samples, idle, settled, load, cpu)


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def _layout_rows(outcome: Outcome) -> list[Row]:
    case = outcome.layout
    rows: list[Row] = [
        Row(BENCHMARK, case, "requests per second, all kinds", outcome.rate, "req/s"),
        Row(BENCHMARK, case, "requests answered in the run", outcome.served, "requests"),
        Row(BENCHMARK, case, "load average at the end (1 min)", outcome.load[0], ""),
    ]
    if outcome.cpu_s is not None and outcome.served:
        rows += [
            Row(BENCHMARK, case, "CPU of the stack's processes, in the mix", outcome.cpu_s, "s"),
            Row(
                BENCHMARK,
                case,
                "CPU of the stack's processes per request",
                outcome.cpu_s / outcome.served * 1000,
                "ms",
            ),
        ]
    for kind in ("create", "graphql", "list"):
        seconds = outcome.samples.seconds.get(kind, [])
        read = kind != "create"
        p50 = statistics.median(seconds) if seconds else 0.0
        target: dict[str, Any] = (
            {
                "target": f"< {READ_P50_TARGET_S:g} s",
                "meets_target": bool(seconds) and p50 < READ_P50_TARGET_S,
            }
            if read and case == "processes"
            else {}
        )
        rows += [
            Row(
                BENCHMARK,
                case,
                f"{kind}: requests per second",
                len(seconds) / outcome.elapsed_s,
                "req/s",
            ),
            Row(BENCHMARK, case, f"{kind}: p50", p50 * 1000, "ms", **target),
            Row(BENCHMARK, case, f"{kind}: p95", _percentile(seconds, 0.95) * 1000, "ms"),
            Row(
                BENCHMARK,
                case,
                f"{kind}: errors",
                outcome.samples.errors.get(kind, 0),
                "requests",
                target="0",
                meets_target=not outcome.samples.errors.get(kind),
            ),
        ]
    idle_target: dict[str, Any] = (
        {
            "target": f"< {IDLE_TARGET_MS:g} ms",
            "meets_target": outcome.idle_page_ms < IDLE_TARGET_MS,
        }
        if case == "processes"
        else {}
    )
    rows.append(
        Row(
            BENCHMARK,
            case,
            f"idle page of {PAGE} at {SEEDED:,} entries, median"
            + ("" if outcome.settled else " (the stack was still busy)"),
            outcome.idle_page_ms,
            "ms",
            **idle_target,
        )
    )
    return rows


def rows_of(outcomes: Sequence[Outcome]) -> list[Row]:
    rows = [row for outcome in outcomes for row in _layout_rows(outcome)]
    by_layout = {o.layout: o for o in outcomes}
    if set(LAYOUTS) <= set(by_layout) and by_layout["one-process"].rate > 0:
        ratio = by_layout["processes"].rate / by_layout["one-process"].rate
        rows.append(
            Row(
                BENCHMARK,
                "processes / one-process",
                "requests per second, ratio",
                ratio,
                "x",
                target=f">= {RATIO_TARGET:g} x",
                meets_target=ratio >= RATIO_TARGET,
            )
        )
    return rows


def measure(
    duration_s: float = DURATION_S,
    profile: Path | None = None,
    layouts: Sequence[str] = LAYOUTS,
) -> list[Row]:
    root = Path(tempfile.mkdtemp(prefix="local-mix-"))
    try:
        outcomes = []
        for layout in layouts:
            print(
                f"  {layout}: starting, seeding {SEEDED:,} entries, then the mix",
                file=sys.stderr,
                flush=True,
            )
            outcomes.append(run_layout(layout, root, duration_s, profile))
    except BaseException:
        print(f"kept the stacks' logs in {root}", file=sys.stderr)
        raise
    shutil.rmtree(root, ignore_errors=True)
    return rows_of(outcomes)


def run(stack: Any) -> list[Row]:
    """`make bench`: its own stacks (the shared one stays untouched and idle meanwhile)."""
    return measure()


def main(argv: Sequence[str]) -> int:
    from bench.report import render_table

    parser = argparse.ArgumentParser(
        prog="python -m bench.local_mix", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seconds", type=float, default=DURATION_S)
    parser.add_argument("--profile", type=Path, default=None, help="py-spy output folder")
    parser.add_argument("--layout", action="append", choices=LAYOUTS, help="one of them only")
    args = parser.parse_args(argv)
    print(render_table(measure(args.seconds, args.profile, args.layout or LAYOUTS)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
