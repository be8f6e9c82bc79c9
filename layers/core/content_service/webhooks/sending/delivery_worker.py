"""Delivery (docs/webhooks.md, "Delivery"): claim a row, sign, POST, record the verdict.

Per message: the conditional claim is committed before any network use; the endpoint used is
the one current at the claim (so a rotated secret signs the very next attempt, and a deleted or
disabled endpoint turns the row dead without a send); a send the endpoint's rate limit or a
receiver's Retry-After holds waits here when that is near, or the row is given back unsent
without spending its attempt; the frozen body is POSTed through the batch's pinned sender (or
put on the endpoint's EventBridge bus); the outcome is written only while the claim is still
ours, and the endpoint's failing, disabled and recovered transitions go out as notices. A failed
attempt is queued again with an SQS delay when its wait fits in one (15 minutes); longer waits
are the sweep's.

A batch costs about one DynamoDB request per delivery (docs/decisions.md,
D55). `prepare` reads the batch's rows and their endpoints first (two requests). A claim
is then a transaction that also checks the endpoint is still at the version read, instead of a
claim followed by an endpoint read; and the outcome of one delivery is recorded in the same
transaction that claims the next (claimed ahead, just before its turn, after this one's POST).
Whenever a condition fails (the endpoint or the row changed), the worker falls back to the
plain claim and reads the endpoint again, so a change is seen exactly as before. A worker
without `prepare` (one message at a time) claims and reads the endpoint per message.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from content_service.clock import Clock, iso_utc, parse_iso_utc
from content_service.settings import WebhookOptions

from ..deliveries import (
    AttemptRecord,
    AttemptStats,
    Claim,
    DeliveryRow,
    DeliveryStore,
    NotClaimed,
    Outcome,
)
from ..endpoints import Endpoint, EndpointStore
from .bounds import clip_error
from .http_sender import Sender, SendResult
from .outgoing import request_headers
from .queue import MAX_DELAY_SECONDS, DeliveryQueue
from .rate_limit import RateLimiter
from .retry_ladder import RETRY_AFTER_CAP_SECONDS, Judgement, judge

if TYPE_CHECKING:
    # Loaded when the first notice goes out or the first bus is put to (D146).
    from ..operations import EndpointNotices
    from .event_bus import EventBusSender

# When a failed row was also queued with a delay, the sweep looks at it only this long after
# its `nextAttemptAt`, so it does not queue a second message next to the delayed one.
RETRY_SWEEP_GRACE_SECONDS = 60
LOST_CLAIM_ERROR = "no outcome recorded: the worker's claim expired (assumed crashed)"
# A send held by the endpoint's rate limit or pause waits in the worker this long at most;
# a longer wait gives the delivery back unsent, its message queued again with the delay.
MAX_INLINE_WAIT_SECONDS = 2.0
# A send starts within this long after the place it reserved in the endpoint's rate window, or
# takes a new place (rate_limit.GUARD_SECONDS covers this and the way to the receiver).
LATE_TOLERANCE_SECONDS = 0.03
LATE_TRIES = 3

Result = Literal[
    "succeeded",
    "failed",
    "dead",
    "skipped_missing",
    "skipped_finished",
    "skipped_not_due",
    "skipped_claimed",
    "claim_lost",
    "handed_over",
    "throttled",
]


_SKIPPED: dict[str, Result] = {
    "missing": "skipped_missing",
    "finished": "skipped_finished",
    "not_due": "skipped_not_due",
    "claimed": "skipped_claimed",
}


@dataclass(frozen=True)
class Report:
    """What one message led to; the handler turns these into metrics."""

    delivery_id: str
    result: Result
    attempt: int | None = None
    status_code: int | None = None
    endpoint_disabled: bool = False
    sent: bool = False
    endpoint_id: str | None = None
    duration_ms: int | None = None
    error: str | None = None


def _lost_attempts(claim: Claim) -> tuple[AttemptRecord, ...]:
    """The log line of the attempt a reclaimed delivery's previous worker died in."""
    if not claim.reclaimed:
        return ()
    return (
        AttemptRecord(
            claim.before.attempts,
            claim.before.claimed_at or claim.before.updated_at,
            None,
            None,
            LOST_CLAIM_ERROR,
        ),
    )


@dataclass
class DeliveryWorker:
    options: WebhookOptions
    deliveries: DeliveryStore
    endpoints: EndpointStore
    queue: DeliveryQueue
    sender: Sender
    clock: Clock
    rng: random.Random
    # Made on first use, like their modules: most batches announce nothing and put to no bus.
    notices: Callable[[], EndpointNotices]
    limiter: RateLimiter
    bus: Callable[[], EventBusSender]
    stats: AttemptStats
    sleep: Callable[[float], None] = time.sleep
    retries: list[tuple[str, int]] = field(default_factory=list)
    # The batch as `prepare` read it, and endpoints as last read or written by this worker.
    _seen: dict[str, DeliveryRow] = field(default_factory=dict, repr=False)
    _endpoints: dict[str, Endpoint] = field(default_factory=dict, repr=False)
    _upcoming: list[str] = field(default_factory=list, repr=False)
    _claimed_ahead: dict[str, Claim] = field(default_factory=dict, repr=False)

    def prepare(self, delivery_ids: Sequence[str]) -> None:
        """Reads the rows of a batch and their endpoints, in two requests; `process` is then
        called for these ids, in this order."""
        self._upcoming = list(delivery_ids)
        self._seen = self.deliveries.get_many(delivery_ids)
        wanted = {row.endpoint_id for row in self._seen.values()} - self._endpoints.keys()
        if wanted:
            self._endpoints.update(self.endpoints.get_many(wanted))

    def process(self, delivery_id: str) -> Report:
        if delivery_id in self._upcoming:
            del self._upcoming[: self._upcoming.index(delivery_id) + 1]
        ahead = self._claimed_ahead.pop(delivery_id, None)
        if ahead is not None:
            return self._deliver(ahead, self._endpoint(ahead.row.endpoint_id))
        claimed = self._claim(delivery_id)
        if isinstance(claimed, NotClaimed):
            return Report(delivery_id, _SKIPPED[claimed.reason])
        return self._deliver(*claimed)

    def claim(self, delivery_id: str) -> Claim | NotClaimed:
        """The plain claim (one UpdateItem that returns the row)."""
        now_iso, cutoff_iso, reclaim_at_iso = self._claim_times()
        return self.deliveries.claim(delivery_id, now_iso, cutoff_iso, reclaim_at_iso)

    def deliver(self, claim: Claim) -> Report:
        """Everything after a successful claim, the endpoint read now; also what a reclaiming
        worker runs."""
        return self._deliver(claim, self._read_endpoint(claim.row.endpoint_id))

    def _claim(self, delivery_id: str) -> tuple[Claim, Endpoint | None] | NotClaimed:
        """Claims with the endpoint checked when the batch's reads allow it, else claims and
        reads the endpoint; returns the claim and the endpoint current at it."""
        seen = self._seen.pop(delivery_id, None)
        endpoint = self._endpoints.get(seen.endpoint_id) if seen is not None else None
        if seen is not None and endpoint is not None and self._claimable(seen):
            checked = self.deliveries.claim_checked(
                seen, self.endpoints.unchanged(endpoint), self._claim_times()
            )
            if isinstance(checked, Claim):
                return checked, endpoint
            if checked.check:
                del self._endpoints[endpoint.id]
        claim = self.claim(delivery_id)
        if isinstance(claim, NotClaimed):
            return claim
        return claim, self._read_endpoint(claim.row.endpoint_id)

    def _claim_times(self) -> tuple[str, str, str]:
        """(now, the cutoff an abandoned claim is older than, when this claim expires)."""
        now = self.clock.now()
        claim_timeout = self.options.claim_timeout_ms / 1000
        return iso_utc(now), iso_utc(now - claim_timeout), iso_utc(now + claim_timeout)

    def _claimable(self, row: DeliveryRow) -> bool:
        """Whether the claim's condition holds for `row` as read (it is checked again)."""
        now_iso, cutoff_iso, _ = self._claim_times()
        if row.status == "failed":
            return row.next_attempt_at is not None and row.next_attempt_at <= now_iso
        if row.status == "delivering":
            return row.claimed_at is not None and row.claimed_at <= cutoff_iso
        return row.status == "pending"

    def _endpoint(self, endpoint_id: str) -> Endpoint | None:
        cached = self._endpoints.get(endpoint_id)
        return cached if cached is not None else self._read_endpoint(endpoint_id)

    def _read_endpoint(self, endpoint_id: str) -> Endpoint | None:
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            self._endpoints.pop(endpoint_id, None)
        else:
            self._endpoints[endpoint_id] = endpoint
        return endpoint

    def _finish(self, claim: Claim, outcome: Outcome) -> bool:
        """Records the outcome and, in the same transaction, claims the batch's next row when
        the batch's reads allow it; the outcome alone when they do not (or the transaction is
        refused). False when the claim was lost."""
        following = self._next_to_claim(claim)
        if following is None:
            return self.deliveries.finish(claim, outcome)
        seen, endpoint = following
        checked = self.deliveries.claim_checked(
            seen, self.endpoints.unchanged(endpoint), self._claim_times(), (claim, outcome)
        )
        if isinstance(checked, Claim):
            del self._seen[seen.id]
            self._claimed_ahead[seen.id] = checked
            return True
        if checked.check:
            del self._endpoints[endpoint.id]
        if checked.row:
            del self._seen[seen.id]
        return self.deliveries.finish(claim, outcome)

    def _next_to_claim(self, claim: Claim) -> tuple[DeliveryRow, Endpoint] | None:
        if not self._upcoming:
            return None
        next_id = self._upcoming[0]
        seen = self._seen.get(next_id)
        if next_id == claim.row.id or seen is None or not self._claimable(seen):
            return None
        endpoint = self._endpoints.get(seen.endpoint_id)
        if endpoint is None or self._held(endpoint):
            return None  # its send may wait: it is claimed when its turn comes, not before
        return seen, endpoint

    def _held(self, endpoint: Endpoint) -> bool:
        """Whether a send to the endpoint may have to wait (a rate limit, a pause)."""
        paused = endpoint.paused_until is not None and endpoint.paused_until > iso_utc(
            self.clock.now()
        )
        return endpoint.rate_limit is not None or paused

    def _deliver(self, claim: Claim, endpoint: Endpoint | None) -> Report:
        """Everything after a successful claim, with the endpoint current at the claim (None
        when it no longer exists)."""
        row = claim.row
        lost = _lost_attempts(claim)
        if endpoint is None or not endpoint.enabled or endpoint.pull:
            return self._not_sent(claim, lost, endpoint)
        if claim.attempt > self.options.max_attempts:
            # Only after a reclaim: the last allowed attempt's worker died without an outcome.
            return self._give_up(
                claim, lost, f"attempt {claim.before.attempts} was the last", endpoint=endpoint
            )
        held = self._wait_for_turn(claim, lost, endpoint)
        if held is not None:
            return held

        result = self._send(claim, endpoint)
        judgement = judge(result, claim.attempt, self.options.max_attempts, self.rng)
        if result.status_code == 429 and result.retry_after_seconds is not None:
            endpoint = self._pause(endpoint, result.retry_after_seconds)
        now = self.clock.now()
        error = None if judgement.verdict == "succeeded" else clip_error(judgement.reason)
        outcome, delay = self._outcome(claim, lost, result, judgement, error, now)
        if not self._finish(claim, outcome):
            return Report(
                row.id,
                "claim_lost",
                claim.attempt,
                result.status_code,
                sent=True,
                endpoint_id=row.endpoint_id,
                duration_ms=result.duration_ms,
                error=error,
            )
        self.stats.record(endpoint.id, now, judgement.verdict, result.duration_ms)
        disabled = False
        if judgement.verdict == "succeeded":
            self._count_success(endpoint, row.id)
        elif judgement.verdict == "dead":
            disabled = self._count_dead(endpoint, row.id, judgement.reason)
        elif delay is not None:
            self.retries.append((row.id, delay))
        return Report(
            row.id,
            judgement.verdict,
            claim.attempt,
            result.status_code,
            endpoint_disabled=disabled,
            sent=True,
            endpoint_id=row.endpoint_id,
            duration_ms=result.duration_ms,
            error=error,
        )

    def _not_sent(
        self, claim: Claim, lost: tuple[AttemptRecord, ...], endpoint: Endpoint | None
    ) -> Report:
        """A delivery whose endpoint is gone or disabled (given up), or pulls (handed over)."""
        if endpoint is not None and endpoint.enabled:
            return self._hand_over(claim, lost, endpoint)
        why = (
            "endpoint deleted"
            if endpoint is None
            else f"endpoint disabled: {endpoint.disabled_reason or 'no reason given'}"
        )
        return self._give_up(claim, lost, why, count_dead=False)

    def _outcome(
        self,
        claim: Claim,
        lost: tuple[AttemptRecord, ...],
        result: SendResult,
        judgement: Judgement,
        error: str | None,
        now: float,
    ) -> tuple[Outcome, int | None]:
        """What the attempt leaves on the row, and the queue delay of its retry (None when
        there is none, or when it is too far off for the queue and the sweeper sends it)."""
        now_iso = iso_utc(now)
        entry = AttemptRecord(
            claim.attempt,
            now_iso,
            result.status_code,
            result.duration_ms,
            error,
            result.response_headers,
            result.response_snippet,
        )
        outcome = Outcome(
            status=judgement.verdict,
            now_iso=now_iso,
            log=(*lost, entry),
            status_code=result.status_code,
            duration_ms=result.duration_ms,
            response_snippet=result.response_snippet,
            error=error,
            expires_at=self._expires_at(now),
        )
        delay: int | None = None
        if judgement.wait_seconds is not None:
            wait = judgement.wait_seconds
            due = iso_utc(now + wait)
            # The queue's delay counts from the due time as stored (to the millisecond), so the
            # message and nextAttemptAt agree: never a whole second later than the row says.
            delay = math.ceil(parse_iso_utc(due) - now) if wait <= MAX_DELAY_SECONDS else None
            grace = RETRY_SWEEP_GRACE_SECONDS if delay is not None else 0
            outcome = dataclasses.replace(
                outcome,
                next_attempt_at=due,
                sweep_at=iso_utc(now + wait + grace),
            )
        return outcome, delay

    def _wait_for_turn(
        self, claim: Claim, lost: tuple[AttemptRecord, ...], endpoint: Endpoint
    ) -> Report | None:
        """Waits for the endpoint's pause to end and for a place in its rate window, when
        that is near; otherwise gives the delivery back unsent (a Report), its attempt not
        spent. None when the send may go now."""
        now = self.clock.now()
        wait = 0.0
        if endpoint.paused_until is not None:
            wait = max(0.0, parse_iso_utc(endpoint.paused_until) - now)
        if wait > MAX_INLINE_WAIT_SECONDS:
            return self._defer(claim, lost, wait, "the endpoint is paused (Retry-After)")
        if wait > 0:
            self.sleep(wait)
        if endpoint.rate_limit is None:
            return None
        for _ in range(LATE_TRIES):
            turn = self.limiter.reserve(
                endpoint.id, endpoint.rate_limit, self.clock.now(), MAX_INLINE_WAIT_SECONDS
            )
            if turn.at is None:
                return self._defer(claim, lost, turn.wait, "the endpoint's rate limit is reached")
            remaining = turn.at - self.clock.now()
            if remaining > 0:
                self.sleep(remaining)
            if self.clock.now() - turn.at <= LATE_TOLERANCE_SECONDS:
                return None
            # Woken too late (a busy machine): that place in the window has passed unused; a
            # send now could crowd the next window, so take a new place.
        return self._defer(claim, lost, 1.0, "the endpoint's rate limit is reached")

    def _defer(
        self, claim: Claim, lost: tuple[AttemptRecord, ...], wait: float, why: str
    ) -> Report:
        """Gives a claimed delivery back unsent: its status and attempt count as before the
        claim, due again after `wait`, and queued with that delay (the sweep's if longer than
        SQS allows). Waiting never spends an attempt, so a delivery never dies of it."""
        now = self.clock.now()
        before = claim.before
        delay = max(1, math.ceil(wait))
        queued = delay <= MAX_DELAY_SECONDS
        due = iso_utc(now + delay)
        reclaimed = claim.reclaimed
        outcome = Outcome(
            status="pending" if before.status == "pending" else "failed",
            now_iso=iso_utc(now),
            log=lost,
            error=LOST_CLAIM_ERROR if reclaimed else before.last_error,
            next_attempt_at=None if before.status == "pending" else due,
            sweep_at=iso_utc(now + delay + (RETRY_SWEEP_GRACE_SECONDS if queued else 0)),
            attempts=before.attempts,
            sent=False,
        )
        row = claim.row
        if not self.deliveries.finish(claim, outcome):
            return Report(row.id, "claim_lost", endpoint_id=row.endpoint_id)
        if queued:
            self.retries.append((row.id, delay))
        return Report(row.id, "throttled", endpoint_id=row.endpoint_id, error=why)

    def _pause(self, endpoint: Endpoint, retry_after: int) -> Endpoint:
        """A 429's Retry-After holds every send to the endpoint, not only this delivery's."""
        until = iso_utc(self.clock.now() + min(retry_after, RETRY_AFTER_CAP_SECONDS))
        paused = self.endpoints.pause(endpoint.id, until)
        if paused is None:
            self._endpoints.pop(endpoint.id, None)
            return endpoint
        self._endpoints[endpoint.id] = paused
        return paused

    def flush(self) -> int:
        """Queues the batch's retries (with their delays) and adds its attempts to the
        endpoints' statistics; returns the requests made. The batch's reads are dropped: a
        next batch reads its own."""
        self._seen.clear()
        self._upcoming.clear()
        retries, self.retries = self.retries, []
        requests = self.stats.flush(self.clock.now())
        return requests + (self.queue.enqueue_delayed(retries) if retries else 0)

    def _send(self, claim: Claim, endpoint: Endpoint) -> SendResult:
        row = claim.row
        body = row.body_bytes
        if endpoint.event_bus:
            return self.bus().put(endpoint.event_bus_arn or "", row.event, body)
        now = self.clock.now()
        try:
            headers = request_headers(
                event=row.event,
                delivery_id=row.id,
                event_id=row.event_id,
                workspace_id=row.workspace_id,
                attempt=claim.attempt,
                secret=endpoint.signing_secrets(now),
                body=body,
                timestamp=int(now),
                custom=endpoint.header_values(),
                scheme=endpoint.signature_scheme,
            )
            return self.sender.post(endpoint.url, body, headers)
        except ValueError as error:  # a stored header or secret the sender cannot use
            return SendResult.not_sent(error)

    def _hand_over(
        self, claim: Claim, lost: tuple[AttemptRecord, ...], endpoint: Endpoint
    ) -> Report:
        """A pull endpoint's row is not sent: its listener fetches it over the API. While the
        lease lasts the row is done (succeeded, no request); once the listener has stopped
        renewing it, the endpoint is disabled and the row given up, not counted."""
        now = self.clock.now()
        now_iso = iso_utc(now)
        if endpoint.lease_expires_at is None or endpoint.lease_expires_at < now_iso:
            why = f"the listener stopped fetching (lease ended {endpoint.lease_expires_at})"
            self.endpoints.disable(endpoint.id, why, now_iso)
            self._endpoints.pop(endpoint.id, None)
            return self._give_up(claim, lost, f"endpoint disabled: {why}", count_dead=False)
        entry = AttemptRecord(claim.attempt, now_iso, None, None, None)
        outcome = Outcome(
            status="succeeded",
            now_iso=now_iso,
            log=(*lost, entry),
            expires_at=self._expires_at(now),
            sent=False,
        )
        row = claim.row
        if not self.deliveries.finish(claim, outcome):
            return Report(row.id, "claim_lost", endpoint_id=row.endpoint_id)
        return Report(row.id, "handed_over", claim.attempt, endpoint_id=row.endpoint_id)

    def _give_up(
        self,
        claim: Claim,
        lost: tuple[AttemptRecord, ...],
        why: str,
        *,
        count_dead: bool = True,
        endpoint: Endpoint | None = None,
    ) -> Report:
        """Dead without a send; the attempt the claim counted is given back."""
        now = self.clock.now()
        outcome = Outcome(
            status="dead",
            now_iso=iso_utc(now),
            log=lost,
            error=clip_error(why),
            expires_at=self._expires_at(now),
            attempts=claim.before.attempts,
            sent=False,
        )
        row = claim.row
        if not self.deliveries.finish(claim, outcome):
            return Report(row.id, "claim_lost", endpoint_id=row.endpoint_id)
        disabled = False
        if count_dead and endpoint is not None:
            disabled = self._count_dead(endpoint, row.id, why)
        return Report(
            row.id,
            "dead",
            endpoint_disabled=disabled,
            endpoint_id=row.endpoint_id,
            error=outcome.error,
        )

    def _count_success(self, endpoint: Endpoint, delivery_id: str) -> None:
        """A success ends a run of dead deliveries; after an alert it is announced as
        endpoint.recovered (with the counter reset in the same transaction)."""
        if endpoint.alert_state is not None:
            self.notices().recovered(
                endpoint,
                endpoint.alert_state,
                f"delivery {delivery_id} succeeded after the endpoint was {endpoint.alert_state}",
            )
            self._endpoints.pop(endpoint.id, None)
        elif endpoint.consecutive_dead > 0:
            self.endpoints.reset_dead(endpoint.id)
            if endpoint.id in self._endpoints:
                self._endpoints[endpoint.id] = dataclasses.replace(endpoint, consecutive_dead=0)

    def _count_dead(self, endpoint: Endpoint, delivery_id: str, why: str) -> bool:
        """Counts a dead delivery; at half of `autoDisableAfter` in a row the endpoint is
        failing, at `autoDisableAfter` it is disabled, each announced once. The thresholds
        are "at least", so a transition a crash kept from being written after its count
        happens at the next dead delivery instead. The reason names the threshold crossed, not
        the count: two workers counting at once may both pass it, and whichever writes first
        must say the same thing."""
        from ..operations import failing_threshold  # the notices' module, with its first dead count

        counted = self.endpoints.count_dead(endpoint.id)
        self._endpoints.pop(endpoint.id, None)
        if counted is None or not counted.enabled:
            return False
        count, limit = counted.consecutive_dead, self.options.auto_disable_after
        last = f"last: {delivery_id}, {why}"
        failing_at = failing_threshold(limit)
        if failing_at is not None and count >= failing_at and counted.alert_state is None:
            reason = f"{failing_at} consecutive dead deliveries ({last}); disabled at {limit}"
            self.notices().failing(counted, reason)
        if count < limit:
            self._endpoints[endpoint.id] = counted
            return False
        reason = f"disabled after {limit} consecutive dead deliveries ({last})"
        return self.notices().disabled(counted, reason)

    def _expires_at(self, now: float) -> int | None:
        days = self.options.retention_days
        return int(now + days * 86400) if days > 0 else None
