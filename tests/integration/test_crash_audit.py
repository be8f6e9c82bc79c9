"""Writes of every audited kind killed with SIGKILL, then the audit log against what the
writes left (`harness.crash_audit`): each record is in its change's transaction, so no change
is kept without its record and no record without its change."""

from __future__ import annotations

import pytest

from harness.crash_audit import AuditCrashConfig, run_audit_crash


@pytest.mark.crash
@pytest.mark.slow
def test_kills_during_writes_leave_the_records_equal_to_the_changes() -> None:
    report = run_audit_crash(AuditCrashConfig())
    assert report["problems"] == []
    assert report["calls"] > 0
    assert min(report[kind] for kind in ("notes", "types", "tokens", "endpoints")) > 0
