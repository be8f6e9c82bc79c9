"""Per-endpoint rate limits shared by every worker: a sliding window of send times in DynamoDB.

An endpoint with `rateLimit` N keeps one item, `rate#<endpoint id>` in the deliveries table (no
index key, so it is in no index): the start times of its last N sends, oldest first, and a
counter of reservations. A worker about to send reserves a start time: the earliest instant,
not before now, at least `WINDOW_SECONDS` after the N-th latest reserved start and not before
the latest, so no window of that length ever holds more than N starts. The write is
conditioned on the counter it read, so two workers cannot take one place in the window; the
loser reads the winner's list from the refusal (`ReturnValuesOnConditionCheckFailure`) and
tries again. A worker remembers the list it wrote, so a steady sender spends one request per
send.

The window is one second plus `GUARD_SECONDS`: a receiver measures arrivals, which trail the
starts by a worker waking late (at most the worker's `LATE_TOLERANCE_SECONDS`: a later send
takes a new place), the request on its way and the receiver's own scheduling. The guard absorbs
that jitter, so the receiver, too, never counts more than N in a second, at the price of that
fraction of the rate (docs/webhooks.md, "Rate limits").

A reservation further away than the caller will wait is not taken (`Reservation.at` is None):
the caller gives its delivery back unsent and comes back later (docs/webhooks.md, "Rate
limits").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from content_service.storage.dynamo import decode, failed_item, is_condition_failure, values
from content_service.storage.json_values import plain

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

WINDOW_SECONDS = 1.0
GUARD_SECONDS = 0.15
MAX_RATE_LIMIT = 1000
# An idle limiter's item expires (TTL) after a day; the next send starts an empty window.
IDLE_EXPIRY_SECONDS = 24 * 3600
_CONTENDED_TRIES = 20


def limiter_key(endpoint_id: str) -> str:
    return f"rate#{endpoint_id}"


@dataclass(frozen=True)
class Reservation:
    """`at`: the reserved start time (epoch seconds), None when it would be more than the
    caller's wait away; `wait`: seconds from now to the earliest start."""

    at: float | None
    wait: float


@dataclass(frozen=True)
class _Window:
    count: int
    starts: tuple[int, ...]  # epoch milliseconds, oldest first


def earliest_start(starts: Sequence[int], limit: int, now_ms: int) -> int:
    """The first start time (ms) the window allows: not before now, not before the latest
    start, and a full window after the `limit`-th latest."""
    earliest = now_ms
    if starts:
        earliest = max(earliest, starts[-1])
    if len(starts) >= limit:
        earliest = max(earliest, starts[-limit] + round((WINDOW_SECONDS + GUARD_SECONDS) * 1000))
    return earliest


class RateLimiter:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table
        self._known: dict[str, _Window] = {}

    def reserve(self, endpoint_id: str, limit: int, now: float, max_wait: float) -> Reservation:
        """Reserves the earliest start the endpoint's window allows, if it is at most
        `max_wait` seconds away."""
        window = self._known.get(endpoint_id) or self._read(endpoint_id)
        now_ms = round(now * 1000)
        for _ in range(_CONTENDED_TRIES):
            start = earliest_start(window.starts, limit, now_ms)
            wait = (start - now_ms) / 1000
            if wait > max_wait:
                self._known[endpoint_id] = window
                return Reservation(None, wait)
            taken = _Window(window.count + 1, (*window.starts, start)[-limit:])
            seen = self._write(endpoint_id, window, taken, now)
            if seen is None:
                self._known[endpoint_id] = taken
                return Reservation(start / 1000, wait)
            window = seen
        self._known.pop(endpoint_id, None)
        return Reservation(None, WINDOW_SECONDS)  # heavily contended: come back shortly

    def _read(self, endpoint_id: str) -> _Window:
        response = self._client.get_item(
            TableName=self._table, Key={"id": {"S": limiter_key(endpoint_id)}}, ConsistentRead=True
        )
        return _window(plain(decode(response["Item"])) if "Item" in response else None)

    def _write(self, endpoint_id: str, seen: _Window, taken: _Window, now: float) -> _Window | None:
        """Writes `taken` if the item is still at `seen`; None on success, else the item as
        another worker left it."""
        condition = "attribute_not_exists(id)" if seen.count == 0 else "reserved = :seen"
        expression_values = values(
            taken=taken.count, starts=list(taken.starts), expires=int(now) + IDLE_EXPIRY_SECONDS
        )
        if seen.count:
            expression_values.update(values(seen=seen.count))
        try:
            self._client.update_item(
                TableName=self._table,
                Key={"id": {"S": limiter_key(endpoint_id)}},
                UpdateExpression="SET reserved = :taken, starts = :starts, expiresAt = :expires",
                ConditionExpression=condition,
                ExpressionAttributeValues=expression_values,
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if not is_condition_failure(error):
                raise
            found = failed_item(error)
            return _window(plain(found) if found is not None else None)
        return None


def _window(item: Any) -> _Window:
    if not isinstance(item, dict):
        return _Window(0, ())
    starts = item.get("starts") or []
    return _Window(int(item.get("reserved") or 0), tuple(int(s) for s in starts))
