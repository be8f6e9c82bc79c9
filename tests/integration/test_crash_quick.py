"""`make crash` (harness/crash.py) in small: three SIGKILLs and a SIGTERM of the local stack
while writers and deliveries run, then every check of the full run.

The stack runs as `make run` runs it, in a process group of its own; the SIGTERM goes to the
whole group, as systemd's stop sends it, and must stop the stack cleanly: exit 0, no traceback,
a last snapshot saved (the saved-state line). The harness's writers keep a
ledger of every acknowledged write and real receivers record every delivery. After each
restart every acknowledged write must read back, and the rotated endpoint still holds its older
secret; after the last, every event must have its rows, every row be finished or scheduled, no
receiver have heard of an entry that is gone, no (delivery, attempt) have been sent twice across
the SIGTERM, each of the 410 endpoint's transitions have exactly one notice the watcher heard,
and every delivery to the rotated endpoint verify with both its secrets. The kill aimed at a
notice is in tests/integration/test_crash_notice.py (a file of its own, so the two long runs
go to two test workers).
"""

from __future__ import annotations

import pytest

from harness.crash import CrashConfig, run_crash


@pytest.mark.crash
@pytest.mark.slow
def test_three_kills_and_a_clean_stop_lose_nothing() -> None:
    # Scheduled publishing is left to `make crash`: its check waits for the stack's minute
    # scheduler, a minute this suite does not spend.
    report = run_crash(CrashConfig(kills=3, graceful=1, writers=3, schedules=False))
    assert report["problems"] == []
    assert report["writesAcknowledged"] > 0
    assert report["objectsAcknowledged"] > 0
    assert report["events"] >= report["writesAcknowledged"]
    assert report["rows"].get("succeeded", 0) > 0
    assert report["repeatedSends"]["afterGracefulStop"] == 0
    assert report["repeatedSends"]["withinOneRun"] == 0
    # The 410 endpoint got well past 20 deliveries: failing, then disabled, each announced once.
    assert report["notices"] == {
        "endpoint.failing": 1,
        "endpoint.disabled": 1,
        "endpoint.recovered": 0,
    }
    assert report["rotatedDeliveriesVerified"] > 0
