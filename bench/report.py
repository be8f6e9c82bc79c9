"""Benchmark rows, the printed table, the JSON written under bench/results/, and the table of
docs/benchmarks.md rendered from `latest.json` (so no figure there is typed by hand)."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).parent / "results"
LATEST = RESULTS_DIR / "latest.json"
BENCHMARKS_DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
TABLE_BEGIN = "<!-- bench-table:begin (written by bench/report.py from latest.json) -->"
TABLE_END = "<!-- bench-table:end -->"


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


def _value(value: float) -> str:
    return f"{value:,.3f}".rstrip("0").rstrip(".")


def _verdict(meets_target: bool | None) -> str:
    return "" if meets_target is None else ("yes" if meets_target else "MISSED")


def render_table(rows: Sequence[Row]) -> str:
    headers = ("benchmark", "case", "metric", "value", "unit", "target", "ok")
    lines = [
        (
            r.benchmark,
            r.case,
            r.metric,
            _value(r.value),
            r.unit,
            r.target,
            _verdict(r.meets_target),
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
    the figures docs/benchmarks.md shows, so a run of one suite never replaces them."""
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
        LATEST.write_text(json.dumps(document, indent=2))
    return path


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _metric(metric: str) -> str:
    """A sub-row's metric is indented in the JSON; markdown drops spaces, so a dot per level."""
    depth = (len(metric) - len(metric.lstrip(" "))) // 2
    return "· " * depth + metric.strip()


def render_markdown(document: dict[str, Any] | None) -> str:
    """The markdown of a `latest.json` document: where it ran, then one table row per figure
    (a case named once for its run of rows). None: no full run is recorded yet."""
    if document is None:
        return "No run of every suite is recorded yet: `make bench` writes the table here."
    where = document.get("machine", {})
    lines = [
        f"Run of every suite at commit `{document.get('commit') or 'unknown'}`, "
        f"{document.get('at', '')}: {where.get('cpu') or 'unknown CPU'}, "
        f"{where.get('cores')} cores, Python {where.get('python')}, {where.get('platform')}.",
        "",
        "| Benchmark | Case | Metric | Value | Unit | Target | Met |",
        "|---|---|---|--:|---|---|---|",
    ]
    previous: tuple[str, str] = ("", "")
    for row in document.get("rows", []):
        named = (row["benchmark"], row["case"])
        benchmark = "" if named[0] == previous[0] else named[0]
        case = "" if named == previous else named[1]
        previous = named
        cells = (
            benchmark,
            case,
            _metric(row["metric"]),
            _value(row["value"]),
            row["unit"],
            row.get("target", ""),
            _verdict(row.get("meets_target")),
        )
        lines.append("| " + " | ".join(_cell(str(c)) for c in cells) + " |")
    return "\n".join(lines)


def render_doc(text: str, document: dict[str, Any] | None) -> str:
    """`text` with what lies between the table markers replaced by `document`'s table."""
    begin, end = text.find(TABLE_BEGIN), text.find(TABLE_END)
    if begin < 0 or end < begin:
        raise ValueError(f"the table markers are missing: {TABLE_BEGIN} ... {TABLE_END}")
    head, tail = text[: begin + len(TABLE_BEGIN)], text[end:]
    return f"{head}\n{render_markdown(document)}\n{tail}"


def load_latest(latest: Path = LATEST) -> dict[str, Any] | None:
    if not latest.exists():
        return None
    document: dict[str, Any] = json.loads(latest.read_text(encoding="utf-8"))
    return document


def update_doc(doc: Path = BENCHMARKS_DOC, latest: Path = LATEST, *, check: bool = False) -> bool:
    """Rewrites docs/benchmarks.md's table from `latest.json` (`make bench` calls it); True when
    the table was already current. With `check`, only says so."""
    text = doc.read_text(encoding="utf-8")
    rendered = render_doc(text, load_latest(latest))
    if rendered != text and not check:
        doc.write_text(rendered, encoding="utf-8")
    return rendered == text


def main(argv: Sequence[str]) -> int:
    """`python -m bench.report [--check] [LATEST DOC]`: --check exits 1 if the table is stale."""
    check = "--check" in argv
    paths = [Path(a) for a in argv if a != "--check"]
    latest, doc = paths if paths else (LATEST, BENCHMARKS_DOC)
    current = update_doc(doc, latest, check=check)
    if check and not current:
        print(f"{doc}: its table is not the one {latest} renders; run python -m bench.report")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
