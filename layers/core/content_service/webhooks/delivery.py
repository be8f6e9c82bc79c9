"""Delivery (spec 3.1, 6.2, 6.3, 7.2, 8.3): claim a row, sign, POST, record the verdict.

Per message: the conditional claim is committed before any network use; the endpoint is read
afresh (so a rotated secret signs the very next attempt, and a deleted or disabled endpoint
turns the row dead without a send); the frozen body is POSTed through the batch's pinned
sender; the outcome is written only while the claim is still ours. A failed attempt is queued
again with an SQS delay when its wait fits in one (15 minutes); longer waits are the sweep's.
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from typing import Literal

from content_service.clock import Clock, iso_utc
from content_service.settings import WebhookOptions

from .bounds import ERROR_BYTES, clip, clip_error
from .deliveries import AttemptRecord, Claim, DeliveryStore, NotClaimed, Outcome
from .endpoint_store import Endpoint, EndpointStore
from .http_sender import Sender, SendResult
from .outgoing import request_headers
from .queue import MAX_DELAY_SECONDS, DeliveryQueue
from .retry_ladder import judge

# When a failed row was also queued with a delay, the sweep looks at it only this long after
# its `nextAttemptAt`, so it does not queue a second message next to the delayed one.
RETRY_SWEEP_GRACE_SECONDS = 60
LOST_CLAIM_ERROR = "no outcome recorded: the worker's claim expired (assumed crashed)"

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


@dataclass
class DeliveryWorker:
    options: WebhookOptions
    deliveries: DeliveryStore
    endpoints: EndpointStore
    queue: DeliveryQueue
    sender: Sender
    clock: Clock
    rng: random.Random
    retries: list[tuple[str, int]] = field(default_factory=list)

    def process(self, delivery_id: str) -> Report:
        claimed = self.claim(delivery_id)
        if isinstance(claimed, NotClaimed):
            return Report(delivery_id, _SKIPPED[claimed.reason])
        return self.deliver(claimed)

    def claim(self, delivery_id: str) -> Claim | NotClaimed:
        now = self.clock.now()
        claim_timeout = self.options.claim_timeout_ms / 1000
        return self.deliveries.claim(
            delivery_id,
            now_iso=iso_utc(now),
            cutoff_iso=iso_utc(now - claim_timeout),
            reclaim_at_iso=iso_utc(now + claim_timeout),
        )

    def deliver(self, claim: Claim) -> Report:
        """Everything after a successful claim; also what a reclaiming worker runs."""
        row = claim.row
        lost: tuple[AttemptRecord, ...] = ()
        if claim.reclaimed:
            lost = (
                AttemptRecord(
                    claim.before.attempts,
                    claim.before.claimed_at or claim.before.updated_at,
                    None,
                    None,
                    LOST_CLAIM_ERROR,
                ),
            )
        endpoint = self.endpoints.get(row.endpoint_id)
        if endpoint is None or not endpoint.enabled:
            why = (
                "endpoint deleted"
                if endpoint is None
                else f"endpoint disabled: {endpoint.disabled_reason or 'no reason given'}"
            )
            return self._give_up(claim, lost, why, count_dead=False)
        if endpoint.pull:
            return self._hand_over(claim, lost, endpoint)
        if claim.attempt > self.options.max_attempts:
            # Only after a reclaim: the last allowed attempt's worker died without an outcome.
            return self._give_up(
                claim, lost, f"attempt {claim.before.attempts} was the last", endpoint=endpoint
            )

        result = self._send(claim, endpoint)
        judgement = judge(result, claim.attempt, self.options.max_attempts, self.rng)
        now = self.clock.now()
        now_iso = iso_utc(now)
        error = None if judgement.verdict == "succeeded" else clip_error(judgement.reason)
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
            delay = math.ceil(wait) if wait <= MAX_DELAY_SECONDS else None
            grace = RETRY_SWEEP_GRACE_SECONDS if delay is not None else 0
            outcome = dataclasses.replace(
                outcome,
                next_attempt_at=iso_utc(now + wait),
                sweep_at=iso_utc(now + wait + grace),
            )
        if not self.deliveries.finish(claim, outcome):
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
        disabled = False
        if judgement.verdict == "succeeded" and endpoint.consecutive_dead > 0:
            self.endpoints.reset_dead(endpoint.id)
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

    def flush(self) -> int:
        """Queues the batch's retries (with their delays); returns the requests made."""
        retries, self.retries = self.retries, []
        return self.queue.enqueue_delayed(retries) if retries else 0

    def _send(self, claim: Claim, endpoint: Endpoint) -> SendResult:
        row = claim.row
        body = row.body_bytes
        headers = request_headers(
            event=row.event,
            delivery_id=row.id,
            event_id=row.event_id,
            workspace_id=row.workspace_id,
            attempt=claim.attempt,
            secret=endpoint.secret,
            body=body,
            timestamp=int(self.clock.now()),
            custom=endpoint.headers,
        )
        try:
            return self.sender.post(endpoint.url, body, headers)
        except ValueError as error:  # a stored header the sender cannot send
            return SendResult(None, 0, "", f"request not sent: {error}", None)

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

    def _count_dead(self, endpoint: Endpoint, delivery_id: str, why: str) -> bool:
        """Counts a dead delivery; disables the endpoint at `autoDisableAfter` in a row."""
        counted = self.endpoints.count_dead(endpoint.id)
        if counted is None or not counted.enabled:
            return False
        if counted.consecutive_dead < self.options.auto_disable_after:
            return False
        reason = clip(
            f"disabled after {counted.consecutive_dead} consecutive dead deliveries "
            f"(last: {delivery_id}, {why})",
            ERROR_BYTES,
        )
        return self.endpoints.disable(endpoint.id, reason, iso_utc(self.clock.now()))

    def _expires_at(self, now: float) -> int | None:
        days = self.options.retention_days
        return int(now + days * 86400) if days > 0 else None
