"""A kill of the local stack aimed at the moment an endpoint is disabled (its transition
committed), before its notice is sent: the notice arrives after the restart, once
(`harness.crash.run_notice_crash`)."""

from __future__ import annotations

import pytest

from harness.crash import CrashConfig, run_notice_crash


@pytest.mark.crash
@pytest.mark.slow
def test_a_kill_after_the_transition_loses_no_notice() -> None:
    report = run_notice_crash(CrashConfig())
    assert report["problems"] == []
    assert report["killedBeforeTheNotice"] is True
    assert report["notices"]["endpoint.disabled"] == 1
    assert report["disabledNoticesHeard"] >= 1
