"""Link-heavy writes killed with SIGKILL, then every entry's links against the reverse-link
index (`harness.crash_links`): a link never lacks its reverse item, since both are in one
transaction, and these small writes leave no stale one."""

from __future__ import annotations

import pytest

from harness.crash_links import LinkCrashConfig, run_links_crash


@pytest.mark.crash
@pytest.mark.slow
def test_kills_during_link_writes_leave_the_index_equal_to_the_links() -> None:
    report = run_links_crash(LinkCrashConfig())
    assert report["problems"] == []
    assert report["calls"] > 0
    assert report["links"] > 0
    assert report["refs"] == report["links"]
