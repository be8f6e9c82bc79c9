"""An endpoint's health as the admin pages and the API show it: the last 24 hours' counts by
status, and the attempt statistics the health chart draws (hourly or six-hourly bars).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from content_service.clock import iso_utc

from ..deliveries import VERDICTS, Bucket, Tally

HEALTH_WINDOW_SECONDS = 24 * 3600
# The health chart's windows: hours, and hours per bar.
STATS_WINDOWS: dict[str, tuple[int, int]] = {"24h": (24, 1), "7d": (7 * 24, 6)}


@dataclass(frozen=True)
class StatsSeries:
    """Attempts by verdict and latency percentiles over a window, in bars of equal hours."""

    window: str
    bucket_hours: int
    buckets: Sequence[Bucket]

    @property
    def total(self) -> Tally:
        total = Tally()
        for bucket in self.buckets:
            total.add(bucket.tally)
        return total

    def to_json(self) -> dict[str, Any]:
        def figures(tally: Tally) -> dict[str, Any]:
            return {
                **{v: tally.verdicts[v] for v in VERDICTS},
                "attempts": tally.attempts,
                "p50Ms": _rounded(tally.percentile(0.5)),
                "p95Ms": _rounded(tally.percentile(0.95)),
            }

        last = self.buckets[-1].start + self.bucket_hours * 3600 if self.buckets else 0.0
        return {
            "window": self.window,
            "since": iso_utc(self.buckets[0].start) if self.buckets else None,
            "until": iso_utc(last),
            "bucketSeconds": self.bucket_hours * 3600,
            "totals": figures(self.total),
            "buckets": [{"start": iso_utc(b.start), **figures(b.tally)} for b in self.buckets],
        }


def _rounded(ms: float | None) -> float | None:
    return None if ms is None else round(ms, 1)


@dataclass(frozen=True)
class Health:
    since: str
    counts: Mapping[str, int]
    truncated: bool

    @property
    def success_rate(self) -> float | None:
        judged = sum(self.counts.get(s, 0) for s in ("succeeded", "failed", "dead"))
        return self.counts.get("succeeded", 0) / judged if judged else None

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "total": sum(self.counts.values()),
            "counts": dict(self.counts),
            "successRate": self.success_rate,
            "truncated": self.truncated,
        }
