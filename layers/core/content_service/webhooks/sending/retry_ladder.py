"""Verdicts and the retry ladder (docs/webhooks.md, "Delivery").

After attempt n the wait is the ladder's n-th step jittered by +/-20 %; after attempt
`maxAttempts` (6) a retryable failure is dead. 408 and 429 honour `Retry-After`, capped at one
hour: the wait is the larger of the jittered step and the capped `Retry-After`, so a receiver
can slow us down but never make us hammer it faster than the ladder.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from .http_sender import SendResult

LADDER_SECONDS: tuple[int, ...] = (10, 60, 5 * 60, 30 * 60, 2 * 3600)
JITTER = 0.2
RETRY_AFTER_CAP_SECONDS = 3600
RETRY_AFTER_STATUSES = frozenset({408, 429})

Verdict = Literal["succeeded", "failed", "dead"]


def ladder_seconds(attempt: int) -> int:
    """The unjittered wait after attempt `attempt` (1-based); the last step repeats."""
    if attempt < 1:
        raise ValueError("attempts are numbered from 1")
    return LADDER_SECONDS[min(attempt, len(LADDER_SECONDS)) - 1]


def jittered(seconds: float, rng: random.Random) -> float:
    return seconds * rng.uniform(1 - JITTER, 1 + JITTER)


def retry_wait(attempt: int, retry_after: int | None, rng: random.Random) -> float:
    wait = jittered(ladder_seconds(attempt), rng)
    if retry_after is not None:
        wait = max(wait, float(min(retry_after, RETRY_AFTER_CAP_SECONDS)))
    return wait


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    wait_seconds: float | None
    reason: str


def judge(result: SendResult, attempt: int, max_attempts: int, rng: random.Random) -> Judgement:
    """What an attempt's result means for the delivery."""
    status = result.status_code
    if result.accepted:
        return Judgement("succeeded", None, "accepted by the event bus")
    if status is not None and 200 <= status < 300:
        return Judgement("succeeded", None, f"HTTP {status}")
    if status is not None and 400 <= status < 500 and status not in RETRY_AFTER_STATUSES:
        return Judgement("dead", None, f"HTTP {status} is final")
    if status is None:
        reason = result.error or "no response"
    elif 300 <= status < 400:
        reason = f"HTTP {status}; redirects are not followed"
    else:
        reason = f"HTTP {status}"
    if attempt >= max_attempts:
        return Judgement("dead", None, f"{reason}; attempt {attempt} of {max_attempts} failed")
    retry_after = result.retry_after_seconds if status in RETRY_AFTER_STATUSES else None
    return Judgement("failed", retry_wait(attempt, retry_after, rng), reason)
