"""Sign-in throttling per account and per client address, shared by every instance.

Each key (an e-mail address as typed, normalised; a client address) has a counter item in the
schema table. An attempt is counted *before* its password is checked, by a conditional write on
the counter as read, so attempts made in parallel on any number of instances are counted one by
one and none slips past the limit; a success then takes its own count back. From the limit on
(10 failures in a row for an account, 100 for an address: an office behind one NAT signs in
from one address), every attempt is refused with 429 and `Retry-After` until a delay has
passed: one minute after the limit is reached, doubling with each further failure, at most
15 minutes. While it runs, no password is checked, not even the right one.

A success clears the account's counter. It does not clear the address's (an attacker's own
account would otherwise wipe the record of the guesses made at others'); an address's failures
are forgotten a day after the last one, as an account's are. `content-service user unlock
--email` clears an account's counter. The key is the digest of what was typed, whether or not
such an account exists, so the answers never tell an existing account from another.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from content_service.clock import Clock, SystemClock
from content_service.storage import dynamo
from content_service.swappable import Swappable

ACCOUNT_LIMIT = 10
ADDRESS_LIMIT = 100
FIRST_DELAY_SECONDS = 60
MAX_DELAY_SECONDS = 15 * 60
FORGET_AFTER_SECONDS = 24 * 3600
_SORT_KEY = "THROTTLE"
_TRIES = 8

_clock: Swappable[Clock] = Swappable(SystemClock())


def clock() -> Clock:
    return _clock.get()


def clock_overridden(replacement: Clock) -> AbstractContextManager[Clock]:
    """Tests step past a delay with their own clock instead of waiting."""
    return _clock.using(replacement)


@dataclass(frozen=True)
class Counter:
    key: str
    limit: int


def account(email: str) -> Counter:
    digest = hashlib.sha256(email.strip().lower().encode("utf-8")).hexdigest()
    return Counter(f"SIGNIN_ACCOUNT#{digest}", ACCOUNT_LIMIT)


def address(client_address: str) -> Counter:
    digest = hashlib.sha256(client_address.strip().lower().encode("utf-8")).hexdigest()
    return Counter(f"SIGNIN_ADDRESS#{digest}", ADDRESS_LIMIT)


def delay_after(failures: int, limit: int) -> int:
    """Seconds an attempt must wait after `failures` in a row: none below the limit, then one
    minute, doubling with each further failure, at most 15 minutes."""
    if failures < limit:
        return 0
    return int(min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** min(failures - limit, 16)))


@dataclass(frozen=True)
class Admission:
    """An attempt counted (`retry_after` 0), or refused for `retry_after` more seconds."""

    retry_after: int = 0

    @property
    def refused(self) -> bool:
        return self.retry_after > 0


def _table() -> str:
    return dynamo.tables().schema


def _read(counter: Counter) -> dict[str, Any] | None:
    return dynamo.get_item(_table(), dynamo.key(counter.key, _SORT_KEY))


def _current(item: dict[str, Any] | None, now: float) -> tuple[int, float]:
    """The counter's failures and lock end, with failures older than a day forgotten."""
    if item is None or float(item.get("lastAt", 0)) + FORGET_AFTER_SECONDS <= now:
        return 0, 0.0
    return int(item.get("failures", 0)), float(item.get("lockedUntil", 0))


def _count(counter: Counter, item: dict[str, Any] | None, now: float) -> bool:
    """Counts one attempt on the counter as it was read; False when it changed meanwhile."""
    failures = _current(item, now)[0] + 1
    lock = delay_after(failures, counter.limit)
    expression = "SET failures = :failures, lastAt = :now, expiresAt = :expires"
    named: dict[str, Any] = {
        "failures": failures,
        "now": now,
        "expires": int(now + FORGET_AFTER_SECONDS + MAX_DELAY_SECONDS),
    }
    if lock:
        expression += ", lockedUntil = :until"
        named["until"] = now + lock
    else:
        expression += " REMOVE lockedUntil"
    if item is None:
        condition = "attribute_not_exists(pk)"
    else:
        condition = "failures = :seen AND lastAt = :seenAt"
        named.update(seen=item.get("failures", 0), seenAt=item.get("lastAt", 0))
    written = dynamo.conditional(
        dynamo.client().update_item,
        TableName=_table(),
        Key=dynamo.key(counter.key, _SORT_KEY),
        UpdateExpression=expression,
        ConditionExpression=condition,
        ExpressionAttributeValues=dynamo.values(**named),
    )
    return written is not None


def admit(counters: Sequence[Counter]) -> Admission:
    """Counts an attempt on every counter, or refuses it while one of them is locked."""
    now = clock().now()
    items = {c.key: _read(c) for c in counters}
    waits = [_current(items[c.key], now)[1] - now for c in counters]
    if max(waits, default=0) > 0:
        return Admission(max(1, math.ceil(max(waits))))
    for counter in counters:
        item = items[counter.key]
        for _ in range(_TRIES):
            if _count(counter, item, now):
                break
            item = _read(counter)
            wait = _current(item, now)[1] - now
            if wait > 0:
                return Admission(max(1, math.ceil(wait)))
        else:
            raise RuntimeError("sign-in counter kept changing; try again")
    return Admission()


def succeeded(account_counter: Counter, address_counter: Counter) -> None:
    """The right password: the account's counter is cleared, the address's attempt taken back."""
    unlock(account_counter)
    dynamo.conditional(
        dynamo.client().update_item,
        TableName=_table(),
        Key=dynamo.key(address_counter.key, _SORT_KEY),
        UpdateExpression="ADD failures :minus",
        ConditionExpression="failures > :zero",
        ExpressionAttributeValues=dynamo.values(minus=-1, zero=0),
    )


def unlock(counter: Counter) -> None:
    """Forgets a counter's failures (a success, or `content-service user unlock`)."""
    dynamo.client().delete_item(TableName=_table(), Key=dynamo.key(counter.key, _SORT_KEY))
