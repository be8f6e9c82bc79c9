"""docs/benchmarks.md's table is rendered from bench/results/latest.json, never typed by hand.

The generator (`python -m bench.report`) runs as `make bench` runs it, in a process of its own:
tests and the bench import nothing from each other.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from infra import REPO_ROOT

BEGIN = "<!-- bench-table:begin (written by bench/report.py from latest.json) -->"
END = "<!-- bench-table:end -->"
DOC = f"# Benchmarks\n\nProse stays.\n\n{BEGIN}\nstale figures 1 2 3\n{END}\n\nAfter.\n"
LATEST = {
    "commit": "abc1234",
    "at": "2026-11-26T10:52:02Z",
    "machine": {"python": "3.11.7", "platform": "Linux", "cpu": "AMD EPYC", "cores": 2},
    "rows": [
        {
            "benchmark": "cold_start",
            "case": "ApiFunction",
            "metric": "import time",
            "value": 338.26960499982306,
            "unit": "ms",
            "target": "<= 600",
            "meets_target": True,
        },
        {
            "benchmark": "cold_start",
            "case": "ApiFunction",
            "metric": "  the same with tracing on",
            "value": 342.6563680000072,
            "unit": "ms",
            "target": "",
            "meets_target": None,
        },
        {
            "benchmark": "webhooks",
            "case": "1 event",
            "metric": "requests | at the wire",
            "value": 1120,
            "unit": "req",
            "target": "<= 100",
            "meets_target": False,
        },
    ],
}
TABLE = """Run of every suite at commit `abc1234`, 2026-11-26T10:52:02Z: AMD EPYC, 2 cores, \
Python 3.11.7, Linux.

| Benchmark | Case | Metric | Value | Unit | Target | Met |
|---|---|---|--:|---|---|---|
| cold_start | ApiFunction | import time | 338.27 | ms | <= 600 | yes |
|  |  | · the same with tracing on | 342.656 | ms |  |  |
| webhooks | 1 event | requests \\| at the wire | 1,120 | req | <= 100 | MISSED |"""


def _report(*args: str) -> subprocess.CompletedProcess[str]:
    return _python_m("bench.report", *args)


def _python_m(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_table_between_the_markers_is_rendered_from_the_json(tmp_path: Path) -> None:
    latest, doc = tmp_path / "latest.json", tmp_path / "benchmarks.md"
    latest.write_text(json.dumps(LATEST))
    doc.write_text(DOC)
    assert _report(str(latest), str(doc)).returncode == 0
    assert doc.read_text() == DOC.replace("stale figures 1 2 3", TABLE)
    assert _report("--check", str(latest), str(doc)).returncode == 0


def test_without_a_full_run_the_table_says_so(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC)
    assert _report(str(tmp_path / "missing.json"), str(doc)).returncode == 0
    between = doc.read_text().split(BEGIN)[1].split(END)[0]
    assert between.strip() == (
        "No run of every suite is recorded yet: `make bench` writes the table here."
    )


def test_a_stale_table_fails_the_check_and_is_left_alone(tmp_path: Path) -> None:
    latest, doc = tmp_path / "latest.json", tmp_path / "benchmarks.md"
    latest.write_text(json.dumps(LATEST))
    doc.write_text(DOC)
    result = _report("--check", str(latest), str(doc))
    assert result.returncode == 1
    assert "python -m bench.report" in result.stdout
    assert doc.read_text() == DOC


def test_the_committed_table_is_the_one_latest_json_renders() -> None:
    result = _report("--check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_bench_names_its_suites_and_refuses_an_unknown_one_readably() -> None:
    helped = _python_m("bench", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "cold_start" in helped.stdout
    assert "audit_writes" in helped.stdout
    refused = _python_m("bench", "edge", "nosuch")
    assert refused.returncode == 2
    assert "no suite named nosuch" in refused.stderr
