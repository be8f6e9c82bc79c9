"""Uploads completed while the stack is killed with SIGKILL at each step of a completion
(`harness.crash_assets`): after the copy to `files/`, after the asset's write, after the
upload's deletion. Every acknowledged asset reads back with its file, every unanswered
completion retried answers one asset (201, never a 404 or a 5xx, never a second asset), no
asset is ready without its file object, and every acknowledged write has its event
(docs/assets.md, "Processing")."""

from __future__ import annotations

import pytest

from harness.crash_assets import AssetCrashConfig, run_assets_crash
from harness.journal_trigger import POINTS


@pytest.mark.crash
@pytest.mark.slow
def test_kills_at_each_step_of_a_completion_lose_no_asset_and_make_no_second() -> None:
    report = run_assets_crash(AssetCrashConfig(kills=3, points=tuple(POINTS)))
    assert report["problems"] == []
    # Each kill waited for its step's journal line: the stack died right after that step.
    assert report["killsAtTheirPoint"] == {
        "afterCopy": 1,
        "afterEntryWrite": 1,
        "afterUploadDeleted": 1,
    }
    # Each cycle ran until a completion was answered; a kill at a step of a completion leaves
    # that completion unanswered: retried after the restart, 201.
    assert report["completionsAcknowledged"] >= 3
    assert report["completionsRetried"] > 0
    assert report["assets"] == report["uploads"]
    assert report["events"] >= report["assets"]
