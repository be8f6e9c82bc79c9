"""Recover: redeliver an endpoint's failed deliveries since a time, as queued work (D32).

`POST /api/webhooks/{id}/recover` only records a recovery job and queues it; the work runs in
the delivery function, one step per queue message, like Svix's recover runs as a background
task. The job lives in the deliveries table as `recovery#<uuid>` (no `endpointId`, no
`createdKey`: it is in no log, and no delivery claim can take it) and sits in the sweep index
while it is not finished, so a lost message is queued again by the minute sweep like any row.
The delivery queue's message names it as it names a delivery row.

A step reads up to `STEP_ROWS` matching rows (oldest first, from the job's cursor), inserts one
redelivery per row with an id derived from the original's (`uuid5("recover/<original id>")`,
inserted only if absent), so however often recover is called, an original gets at most one
redelivery; marks each original with `recoveredBy` (a `failed` original stops retrying:
superseded); queues the new rows; then advances the job with a condition on its step number,
so a step run twice (a message delivered twice) is counted once, and queues the next step.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from content_service import camel
from content_service.clock import Clock, iso_utc
from content_service.storage.dynamo import conditional, decode, encode, values
from content_service.storage.json_values import plain

from ..endpoints import EndpointStore
from ..sending import DeliveryQueue
from .delivery_rows import RECOVERY_PREFIX, DeliveryRow, recovery_key, shard_of
from .delivery_store import DeliveryStore

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

RecoveryStatus = Literal["queued", "running", "completed", "cancelled"]
FINISHED: frozenset[str] = frozenset({"completed", "cancelled"})
RECOVERABLE_STATUSES: tuple[str, ...] = ("dead", "failed", "succeeded")
DEFAULT_STATUSES: tuple[str, ...] = ("dead", "failed")
STEP_ROWS = 100
# A step's message lost: the sweep queues the job again this long after its last step.
STEP_SWEEP_GRACE_SECONDS = 300
REDELIVERY_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "content-service:webhook-recovery")


def redelivery_id(original_id: str) -> str:
    """The one redelivery a recovery may make of `original_id`."""
    return str(uuid.uuid5(REDELIVERY_NAMESPACE, f"recover/{original_id}"))


@dataclass(frozen=True)
class Recovery:
    id: str
    endpoint_id: str
    since: str
    until: str
    statuses: tuple[str, ...]
    status: RecoveryStatus
    created_at: str
    updated_at: str
    matched: int = 0
    queued: int = 0
    step: int = 0
    cursor: str | None = None
    completed_at: str | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        shown = ("id", "endpoint_id", "status", "matched", "queued", "since", "until", "statuses")
        return camel.dump(self, (*shown, "created_at", "updated_at", "completed_at", "reason"))

    @classmethod
    def from_values(cls, item: dict[str, Any]) -> Recovery:
        return cls(
            id=str(item["id"]).removeprefix(RECOVERY_PREFIX),
            endpoint_id=item["forEndpoint"],
            since=item["since"],
            until=item["until"],
            statuses=tuple(item.get("statuses") or DEFAULT_STATUSES),
            status=item["status"],
            created_at=item.get("createdAt", ""),
            updated_at=item.get("updatedAt", ""),
            matched=int(item.get("matched") or 0),
            queued=int(item.get("queued") or 0),
            step=int(item.get("step") or 0),
            cursor=item.get("cursor"),
            completed_at=item.get("completedAt"),
            reason=item.get("reason"),
        )


class RecoveryStore:
    """Recovery jobs, kept in the deliveries table beside the rows they recover."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def create_request(self, recovery: Recovery, sweep_at: str) -> dict[str, Any]:
        """The transaction Put of a new recovery job."""
        key = recovery_key(recovery.id)
        shard = shard_of(key)
        return dict(
            TableName=self._table,
            Item=encode(
                {
                    "id": key,
                    "kind": "recovery",
                    "forEndpoint": recovery.endpoint_id,
                    "since": recovery.since,
                    "until": recovery.until,
                    "statuses": list(recovery.statuses),
                    "status": recovery.status,
                    "matched": 0,
                    "queued": 0,
                    "step": 0,
                    "createdAt": recovery.created_at,
                    "updatedAt": recovery.updated_at,
                    "sweepShard": shard,
                    "finishShard": shard,
                    "sweepAt": sweep_at,
                },
                sparse=True,
            ),
            ConditionExpression="attribute_not_exists(id)",
        )

    def get(self, recovery_id: str) -> Recovery | None:
        response = self._client.get_item(
            TableName=self._table, Key={"id": {"S": recovery_key(recovery_id)}}, ConsistentRead=True
        )
        item = response.get("Item")
        if not item or "forEndpoint" not in item:
            return None
        return Recovery.from_values(plain(decode(item)))

    def advance(self, recovery: Recovery, step: StepResult) -> bool:
        """Adds a step's counts and moves the cursor, if nobody recorded this step yet."""
        sets: dict[str, Any] = {"status": step.status, "updatedAt": step.now_iso}
        adds: dict[str, int] = {"matched": step.matched, "queued": step.queued, "step": 1}
        removes: list[str] = []
        if step.cursor is not None:
            sets["cursor"] = step.cursor
        if step.status in FINISHED:
            sets.update(completedAt=step.now_iso, finishedAt=step.now_iso)
            if step.reason is not None:
                sets["reason"] = step.reason
            if step.expires_at is not None:
                sets["expiresAt"] = step.expires_at
            removes.append("sweepAt")
        else:
            sets["sweepAt"] = step.sweep_at
        names = {f"#{name}": name for name in [*sets, *adds, *removes]}
        expression = "SET " + ", ".join(
            [f"#{name} = :{name}" for name in sets]
            + [f"#{name} = #{name} + :{name}" for name in adds]
        )
        if removes:
            expression += " REMOVE " + ", ".join(f"#{name}" for name in removes)
        written = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": recovery_key(recovery.id)}},
            UpdateExpression=expression,
            ConditionExpression=(
                "#step = :seen AND #status <> :completed AND #status <> :cancelled"
            ),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values(
                **sets, **adds, seen=recovery.step, completed="completed", cancelled="cancelled"
            ),
        )
        return written is not None


@dataclass(frozen=True)
class StepResult:
    status: RecoveryStatus
    now_iso: str
    matched: int = 0
    queued: int = 0
    cursor: str | None = None
    sweep_at: str | None = None
    reason: str | None = None
    expires_at: int | None = None


@dataclass(frozen=True)
class StepReport:
    """What one recovery message led to; the handler logs it and turns it into metrics."""

    recovery_id: str
    result: Literal["stepped", "completed", "cancelled", "skipped"]
    queued: int = 0
    matched: int = 0


def redelivery_of(
    original: DeliveryRow, recovery_id: str, now_iso: str, sweep_at: str
) -> DeliveryRow:
    return original.resent(
        redelivery_id(original.id),
        now_iso,
        sweep_at,
        redelivery_of=original.id,
        recovery_id=recovery_id,
    )


@dataclass
class RecoveryRunner:
    """Runs recovery jobs one step per queue message (in the delivery function)."""

    recoveries: RecoveryStore
    deliveries: DeliveryStore
    endpoints: EndpointStore
    queue: DeliveryQueue
    clock: Clock
    retention_days: int
    enqueue_grace_seconds: int

    def step(self, key: str) -> StepReport:
        recovery_id = key.removeprefix(RECOVERY_PREFIX)
        recovery = self.recoveries.get(recovery_id)
        if recovery is None or recovery.status in FINISHED:
            return StepReport(recovery_id, "skipped")
        now = self.clock.now()
        now_iso = iso_utc(now)
        endpoint = self.endpoints.get(recovery.endpoint_id)
        if endpoint is None or not endpoint.enabled:
            why = "endpoint deleted" if endpoint is None else "endpoint disabled"
            done = StepResult("cancelled", now_iso, reason=why, expires_at=self._expires_at(now))
            self.recoveries.advance(recovery, done)
            return StepReport(recovery_id, "cancelled")
        originals, cursor = self.deliveries.recoverable(
            recovery.endpoint_id,
            since_iso=recovery.since,
            until_iso=recovery.until,
            statuses=recovery.statuses,
            after=recovery.cursor,
            limit=STEP_ROWS,
        )
        sweep_at = iso_utc(now + self.enqueue_grace_seconds)
        mine = self._redeliver(recovery.id, originals, now_iso, sweep_at)
        finished = cursor is None
        result = StepResult(
            "completed" if finished else "running",
            now_iso,
            matched=len(originals),
            queued=len(mine),
            cursor=cursor,
            sweep_at=iso_utc(now + STEP_SWEEP_GRACE_SECONDS),
            expires_at=self._expires_at(now) if finished else None,
        )
        if not self.recoveries.advance(recovery, result):
            return StepReport(recovery_id, "skipped")
        if not finished:
            self.queue.enqueue([key])
        return StepReport(
            recovery_id, "completed" if finished else "stepped", len(mine), len(originals)
        )

    def _redeliver(
        self, recovery_id: str, originals: Sequence[DeliveryRow], now_iso: str, sweep_at: str
    ) -> list[str]:
        """Inserts the step's redeliveries; the ids this recovery made (now or in an earlier,
        interrupted run of the same step), queued."""
        if not originals:
            return []
        rows = [redelivery_of(o, recovery_id, now_iso, sweep_at) for o in originals]
        inserted = self.deliveries.insert_new(rows)
        mine = set(inserted.inserted)
        for existing_id in inserted.existing:
            found = self.deliveries.get(existing_id)
            if found is not None and found.recovery_id == recovery_id:
                mine.add(existing_id)
        expires_at = self._expires_at(self.clock.now())
        for original in originals:
            made = redelivery_id(original.id)
            if made in mine:
                self.deliveries.mark_recovered(original, made, now_iso, expires_at)
        ordered = [row.id for row in rows if row.id in mine]
        if ordered:
            self.queue.enqueue(ordered)
        return ordered

    def _expires_at(self, now: float) -> int | None:
        return int(now + self.retention_days * 86400) if self.retention_days > 0 else None


def new_recovery(
    endpoint_id: str, since: str, until: str, statuses: Sequence[str], now_iso: str
) -> Recovery:
    return Recovery(
        id=str(uuid.uuid4()),
        endpoint_id=endpoint_id,
        since=since,
        until=until,
        statuses=tuple(statuses),
        status="queued",
        created_at=now_iso,
        updated_at=now_iso,
    )
