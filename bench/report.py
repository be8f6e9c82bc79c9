"""Benchmark rows, the printed table and the JSON written under bench/results/."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

RESULTS_DIR = Path(__file__).parent / "results"


@dataclass(frozen=True)
class Row:
    """One measured figure. `target` is the figure the project promises, if any."""

    benchmark: str
    case: str
    metric: str
    value: float
    unit: str
    target: str = ""
    meets_target: bool | None = None


def median_seconds(run: Callable[[], object], repeat: int = 7, warmup: int = 1) -> float:
    """Median wall time of `run` over `repeat` runs after `warmup` unmeasured ones."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def render_table(rows: Sequence[Row]) -> str:
    headers = ("benchmark", "case", "metric", "value", "unit", "target", "ok")
    lines = [
        (
            r.benchmark,
            r.case,
            r.metric,
            f"{r.value:,.3f}".rstrip("0").rstrip("."),
            r.unit,
            r.target,
            "" if r.meets_target is None else ("yes" if r.meets_target else "MISSED"),
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(headers)]
    out = [" | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    out.append("-+-".join("-" * w for w in widths))
    out.extend(" | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines)
    return "\n".join(out)


def machine() -> dict[str, str | int | None]:
    cpu = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
    }


def write_results(rows: Sequence[Row], *, complete: bool = True) -> Path:
    """Writes a timestamped copy; a run of every suite (`complete`) is also `latest.json`,
    the figures the README quotes, so a run of one suite never replaces them."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = ""
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    document = {
        "commit": commit,
        "at": at,
        "machine": machine(),
        "rows": [asdict(r) for r in rows],
    }
    path = RESULTS_DIR / f"{at.replace(':', '')}-{commit or 'nocommit'}.json"
    path.write_text(json.dumps(document, indent=2))
    if complete:
        (RESULTS_DIR / "latest.json").write_text(json.dumps(document, indent=2))
    return path
