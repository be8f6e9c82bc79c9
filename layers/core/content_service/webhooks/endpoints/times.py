"""Timestamps a caller gives the webhooks API (`since`, `until`): ISO 8601 with a zone."""

from __future__ import annotations

from datetime import datetime


def parse_instant(text: str, name: str) -> float:
    """Epoch seconds of an ISO 8601 time with a zone (`Z` or an offset); ValueError otherwise.

    A time without a zone is refused rather than guessed: a recovery window read in the wrong
    zone would redeliver the wrong hours.
    """
    try:
        moment = datetime.fromisoformat(text.strip().replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{name} must be an ISO 8601 time such as 2026-01-15T09:30:00Z") from None
    if moment.tzinfo is None:
        raise ValueError(f"{name} must name its zone (Z or an offset such as +02:00)")
    if not 1970 < moment.year < 9999:
        raise ValueError(f"{name} must be a time between 1971 and 9998")
    return moment.timestamp()
