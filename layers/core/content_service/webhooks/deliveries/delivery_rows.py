"""A delivery row as the deliveries table holds it, keyed by `id` (docs/webhooks.md, "Delivery
row"), and the claims and outcomes written to it.

Attributes (the delivery JSON names of docs/api.md where they exist):
- `id`, `endpointId`, `eventId`, `event`, `workspaceId`, `status`, `attempts`, `nextAttemptAt`,
  `createdAt`, `updatedAt`, `requestBody` (the frozen envelope, exact UTF-8 JSON text),
  `lastStatusCode`, `lastDurationMs`, `responseSnippet`, `lastError`, `attemptLog` (one map per
  attempt: attempt, at, statusCode, durationMs, error, responseHeaders, responseSnippet; every
  receiver text bounded by `bounds.py`), `redeliveryOf` and `recoveryId` (a redelivery's
  origin), `recoveredBy` (the redelivery a recovery made of this row)
- `claimToken`, `claimedAt`: the current claim, taken by a conditional write
- `createdKey` = createdAt#id: the `byEndpoint` index's sort key (the log, newest first)
- `sweepShard` + `sweepAt`: the sparse `bySweep` index; present while the row is not terminal,
  `sweepAt` is when the minute sweep should look at it again
- `finishShard` + `finishedAt`: the sparse `byFinish` index of terminal rows, for pruning;
  `expiresAt` (TTL) deletes them on AWS without the prune having to
The shard is derived from the id, so both sweep indexes spread over `SHARDS` partitions and no
single GSI partition takes every write at 10k deliveries per second.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from content_service import camel
from content_service.storage.outbox_event import OutboxEvent

from ..sending import Headers, envelope, freeze, refreeze

Status = Literal["pending", "delivering", "succeeded", "failed", "dead"]
STATUSES: tuple[Status, ...] = ("pending", "delivering", "succeeded", "failed", "dead")
TERMINAL: frozenset[str] = frozenset({"succeeded", "dead"})

SHARDS = 64
RECOVERY_PREFIX = "recovery#"
# A delivery id is derived from (endpoint, event) in this namespace: the same pair always gives
# the same id, so a repeated stream record cannot create a second row.
DELIVERY_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "content-service:webhook-delivery")


def fanout_delivery_id(endpoint_id: str, event_id: str) -> str:
    return str(uuid.uuid5(DELIVERY_ID_NAMESPACE, f"{endpoint_id}/{event_id}"))


def recovery_key(recovery_id: str) -> str:
    """The row id of a recovery job (`recovery.py`): it shares the table and the queue."""
    return RECOVERY_PREFIX + recovery_id


def is_recovery_key(row_id: str) -> bool:
    """Whether a row id or queue message names a recovery job rather than a delivery: here, not
    in `recovery.py`, so a delivery handler tells them apart without loading recovery."""
    return row_id.startswith(RECOVERY_PREFIX)


def shard_of(delivery_id: str) -> str:
    digits = delivery_id.replace("-", "")[-6:]
    try:
        number = int(digits, 16)
    except ValueError:
        number = sum(delivery_id.encode())
    return f"{number % SHARDS:02d}"


@dataclass(frozen=True)
class AttemptRecord:
    attempt: int
    at: str
    status_code: int | None = None
    duration_ms: int | None = None
    error: str | None = None
    response_headers: Headers = ()
    response_snippet: str | None = None

    def to_json(self) -> dict[str, Any]:
        return camel.dump(self, camel.field_names(AttemptRecord))

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> AttemptRecord:
        return camel.load(
            cls,
            value,
            attempt=camel.count,
            at=lambda at: str(at or ""),
            response_headers=lambda pairs: tuple((str(n), str(v)) for n, v in pairs or ()),
        )


@dataclass(frozen=True)
class DeliveryRow:
    id: str
    endpoint_id: str
    event_id: str
    event: str
    workspace_id: str | None
    status: Status
    request_body: str
    created_at: str
    updated_at: str
    attempts: int = 0
    next_attempt_at: str | None = None
    last_status_code: int | None = None
    last_duration_ms: int | None = None
    response_snippet: str | None = None
    last_error: str | None = None
    attempt_log: tuple[AttemptRecord, ...] = ()
    claim_token: str | None = None
    claimed_at: str | None = None
    sweep_at: str | None = None
    finished_at: str | None = None
    redelivery_of: str | None = None
    recovery_id: str | None = None
    recovered_by: str | None = None

    @property
    def body_bytes(self) -> bytes:
        return self.request_body.encode("utf-8")

    @classmethod
    def for_event(
        cls, endpoint_id: str, event: OutboxEvent, now_iso: str, sweep_at: str
    ) -> DeliveryRow:
        """The pending row the fan-out makes of `event` for one endpoint: its id derived from
        the pair, its envelope frozen."""
        delivery_id = fanout_delivery_id(endpoint_id, event.id)
        return cls.pending(
            delivery_id=delivery_id,
            endpoint_id=endpoint_id,
            event_id=event.id,
            event=event.kind,
            workspace_id=event.workspace_id,
            request_body=freeze(envelope(delivery_id, event)).decode("utf-8"),
            now_iso=now_iso,
            sweep_at=sweep_at,
        )

    def resent(
        self,
        new_id: str,
        now_iso: str,
        sweep_at: str,
        redelivery_of: str | None = None,
        recovery_id: str | None = None,
    ) -> DeliveryRow:
        """A new pending row that sends this row's event again (a redelivery, a recovery):
        the same event, its frozen body re-frozen with the new id."""
        return self.pending(
            delivery_id=new_id,
            endpoint_id=self.endpoint_id,
            event_id=self.event_id,
            event=self.event,
            workspace_id=self.workspace_id,
            request_body=refreeze(self.body_bytes, new_id).decode("utf-8"),
            now_iso=now_iso,
            sweep_at=sweep_at,
            redelivery_of=redelivery_of,
            recovery_id=recovery_id,
        )

    @classmethod
    def pending(
        cls,
        *,
        delivery_id: str,
        endpoint_id: str,
        event_id: str,
        event: str,
        workspace_id: str | None,
        request_body: str,
        now_iso: str,
        sweep_at: str,
        redelivery_of: str | None = None,
        recovery_id: str | None = None,
    ) -> DeliveryRow:
        """A new row waiting for its first attempt, created and updated `now_iso`, looked at
        by the sweep at `sweep_at` if no worker has claimed it by then."""
        return cls(
            id=delivery_id,
            endpoint_id=endpoint_id,
            event_id=event_id,
            event=event,
            workspace_id=workspace_id,
            status="pending",
            request_body=request_body,
            created_at=now_iso,
            updated_at=now_iso,
            sweep_at=sweep_at,
            redelivery_of=redelivery_of,
            recovery_id=recovery_id,
        )

    @property
    def entry_id(self) -> str | None:
        """The id of the record the envelope names (`data.id`), read from the frozen body."""
        try:
            data = json.loads(self.request_body).get("data")
        except (ValueError, AttributeError):
            return None
        found = data.get("id") if isinstance(data, dict) else None
        return found if isinstance(found, str) else None

    def to_json(self, *, detail: bool = False) -> dict[str, Any]:
        return camel.dump(self, _JSON + _DETAIL if detail else _JSON)

    def summary_json(self) -> dict[str, Any]:
        """The row as an endpoint's `latestDelivery` in the endpoint list."""
        return camel.dump(self, _SUMMARY)

    def to_values(self) -> dict[str, Any]:
        """The item of a new row (fan-out and redeliver insert only pending rows)."""
        shard = shard_of(self.id)
        return camel.dump(self, _NEW_ROW) | {
            "createdKey": f"{self.created_at}#{self.id}",
            "sweepShard": shard,
            "finishShard": shard,
        }

    @classmethod
    def from_values(cls, item: Mapping[str, Any]) -> DeliveryRow:
        return camel.load(
            cls,
            item,
            workspace_id=camel.optional,
            request_body=camel.text,
            created_at=camel.text,
            updated_at=camel.text,
            attempts=camel.count,
            attempt_log=lambda log: tuple(AttemptRecord.from_json(a) for a in log or ()),
        )


# What a row's JSON shows (in this order; `detail` adds the rest), and what a new row stores.
_JSON = (
    *("id", "endpoint_id", "event_id", "event", "status", "attempts", "next_attempt_at"),
    *("created_at", "updated_at", "request_body", "last_status_code", "last_duration_ms"),
    *("response_snippet", "last_error", "redelivery_of", "recovery_id", "recovered_by"),
)
_DETAIL = ("workspace_id", "attempt_log")
_SUMMARY = (
    *("id", "event", "status", "attempts", "last_status_code", "last_error"),
    *("created_at", "updated_at"),
)
_NEW_ROW = (
    *("id", "endpoint_id", "event_id", "event", "workspace_id", "status", "request_body"),
    *("created_at", "updated_at", "attempts", "sweep_at", "redelivery_of", "recovery_id"),
)


@dataclass
class InsertResult:
    inserted: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    requests: int = 0


@dataclass(frozen=True)
class Claim:
    """A claim this worker now holds; `before` is the row as it was just before the claim."""

    row: DeliveryRow
    token: str
    before: DeliveryRow

    @property
    def attempt(self) -> int:
        return self.row.attempts

    @property
    def reclaimed(self) -> bool:
        """True when the previous claim expired without an outcome (a crashed worker)."""
        return self.before.status == "delivering"


def claimed(before: DeliveryRow, token: str, now_iso: str, reclaim_at_iso: str) -> Claim:
    after = dataclasses.replace(
        before,
        status="delivering",
        attempts=before.attempts + 1,
        claim_token=token,
        claimed_at=now_iso,
        updated_at=now_iso,
        sweep_at=reclaim_at_iso,
    )
    return Claim(after, token, before)


@dataclass(frozen=True)
class Refused:
    """A checked claim's transaction was cancelled: nothing was written. Which conditions
    failed: the outcome recorded with it (its claim was lost), the endpoint's (it changed), the
    row's (it changed since it was read, or is not claimable now)."""

    finish: bool
    check: bool
    row: bool


@dataclass(frozen=True)
class NotClaimed:
    """Why a row could not be claimed; `row` is None when there is no such row."""

    reason: Literal["missing", "finished", "not_due", "claimed"]
    row: DeliveryRow | None


@dataclass(frozen=True)
class Outcome:
    """What an attempt (or a decision not to attempt) leaves on the row."""

    status: Literal["succeeded", "failed", "dead", "pending"]
    now_iso: str
    log: tuple[AttemptRecord, ...]
    status_code: int | None = None
    duration_ms: int | None = None
    response_snippet: str | None = None
    error: str | None = None
    next_attempt_at: str | None = None
    sweep_at: str | None = None
    expires_at: int | None = None
    attempts: int | None = None  # set to restore the count when no attempt was made
    sent: bool = True
