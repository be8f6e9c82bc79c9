"""Verdicts and the retry ladder (docs/webhooks.md, "Delivery") as pure functions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from content_service.webhooks.sending import (
    LADDER_SECONDS,
    RETRY_AFTER_CAP_SECONDS,
    SendResult,
    judge,
    ladder_seconds,
    retry_wait,
)


def result(status: int | None, retry_after: int | None = None) -> SendResult:
    return SendResult(status, 5, "", None if status else "connection refused", retry_after)


def test_the_ladder_is_the_spec_s() -> None:
    assert LADDER_SECONDS == (10, 60, 300, 1800, 7200)
    assert sum(LADDER_SECONDS) / 3600 == pytest.approx(2.6, abs=0.1)
    assert ladder_seconds(9) == 7200
    with pytest.raises(ValueError, match="from 1"):
        ladder_seconds(0)


@pytest.mark.parametrize(
    ("status", "verdict"),
    [
        (200, "succeeded"),
        (201, "succeeded"),
        (204, "succeeded"),
        (299, "succeeded"),
        (300, "failed"),
        (301, "failed"),
        (302, "failed"),
        (304, "failed"),
        (307, "failed"),
        (308, "failed"),
        (400, "dead"),
        (401, "dead"),
        (403, "dead"),
        (404, "dead"),
        (405, "dead"),
        (408, "failed"),
        (409, "dead"),
        (410, "dead"),
        (413, "dead"),
        (422, "dead"),
        (429, "failed"),
        (499, "dead"),
        (500, "failed"),
        (502, "failed"),
        (503, "failed"),
        (504, "failed"),
        (599, "failed"),
        (None, "failed"),
    ],
)
def test_verdicts(status: int | None, verdict: str) -> None:
    assert judge(result(status), 1, 6, random.Random(1)).verdict == verdict


@pytest.mark.parametrize("status", [None, 301, 408, 429, 500])
def test_a_retryable_failure_of_the_last_attempt_is_dead(status: int | None) -> None:
    assert judge(result(status), 5, 6, random.Random(1)).verdict == "failed"
    last = judge(result(status), 6, 6, random.Random(1))
    assert last.verdict == "dead"
    assert last.wait_seconds is None
    assert "attempt 6 of 6" in last.reason


@given(attempt=st.integers(1, 5), seed=st.integers(0, 2**32))
def test_jitter_stays_within_twenty_percent(attempt: int, seed: int) -> None:
    wait = retry_wait(attempt, None, random.Random(seed))
    step = LADDER_SECONDS[attempt - 1]
    assert 0.8 * step <= wait <= 1.2 * step


def test_jitter_uses_the_whole_window() -> None:
    rng = random.Random(3)
    waits = [retry_wait(1, None, rng) for _ in range(2000)]
    assert min(waits) < 8.1
    assert max(waits) > 11.9


@given(attempt=st.integers(1, 5), retry_after=st.integers(0, 10**9), seed=st.integers(0, 999))
def test_retry_after_is_honoured_capped_and_never_shortens_the_ladder(
    attempt: int, retry_after: int, seed: int
) -> None:
    wait = judge(result(429, retry_after), attempt, 6, random.Random(seed)).wait_seconds
    assert wait is not None
    step = LADDER_SECONDS[attempt - 1]
    assert wait >= 0.8 * step
    assert wait >= min(retry_after, RETRY_AFTER_CAP_SECONDS)
    assert wait <= max(1.2 * step, RETRY_AFTER_CAP_SECONDS)


def test_retry_after_counts_only_for_408_and_429() -> None:
    assert judge(result(408, 600), 1, 6, random.Random(1)).wait_seconds == 600
    assert judge(result(429, 600), 1, 6, random.Random(1)).wait_seconds == 600
    wait = judge(result(503, 600), 1, 6, random.Random(1)).wait_seconds
    assert wait is not None
    assert wait <= 12
