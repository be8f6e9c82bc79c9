"""`make crash` (bench/crash.py) in small: three SIGKILLs and a SIGTERM of the local stack
while writers and deliveries run, then every check of the full run.

The stack runs as `make run` runs it, in a process of its own; the harness's writers keep a
ledger of every acknowledged write and two real receivers record every delivery. After each
restart every acknowledged write must read back; after the last, every event must have its
rows, every row be finished or scheduled, no receiver have heard of an entry that is gone, and
no (delivery, attempt) have been sent twice across the SIGTERM.
"""

from __future__ import annotations

import pytest

from bench.crash import CrashConfig, run_crash


@pytest.mark.slow
def test_three_kills_and_a_clean_stop_lose_nothing() -> None:
    # Scheduled publishing is left to `make crash`: its check waits for the stack's minute
    # scheduler, a minute this suite does not spend.
    report = run_crash(CrashConfig(kills=3, graceful=1, writers=3, schedules=False))
    assert report["problems"] == []
    assert report["writesAcknowledged"] > 0
    assert report["events"] >= report["writesAcknowledged"]
    assert report["rows"].get("succeeded", 0) > 0
    assert report["repeatedSends"]["afterGracefulStop"] == 0
    assert report["repeatedSends"]["withinOneRun"] == 0
