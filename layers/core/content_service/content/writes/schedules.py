"""Scheduled publish and unpublish: kept in DynamoDB, run by the minute scheduler, once.

A schedule is an item beside its entry (`ENTRY#<ws>#<id>` / `SCHEDULE#<schedule id>`: action,
at, status, who scheduled it) plus a due item in one partition ordered by time (`SCHEDULES#DUE`
/ `<at>#<ws>#<entry id>#<schedule id>`), both written in one transaction. The scheduler
function's `schedules` job (EventBridge `rate(1 minute)` on AWS; the local stack's schedule
poller) reads the due items up to now, newest last, and runs each as the user or token that
made it: the very transition the manual route runs (`content.writes.transitions`), with the same
checks and event, and in the same transaction the schedule turns `done` on the condition that
it is still `scheduled` and its due item goes. So a schedule runs at most once however many
runners race or crash, and at most about a minute late. One that can no longer run (the entry
trashed or already in that state, the user gone, the token revoked) turns `failed` with the
reason, and nothing else changes. Cancelling is the same conditional update to `cancelled`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from content_service import camel
from content_service.audit.origin import Origin, current_origin, origin_of
from content_service.audit.records import Actor, record_put
from content_service.clock import Clock, SystemClock, iso_utc
from content_service.content.entries import StoredEntry, entry_key, entry_pk
from content_service.content.requests import EntryAction, ScheduleAction, ScheduleRequest
from content_service.content.schema import ContentType, require_read
from content_service.content.store import store
from content_service.content.values import InvalidValue, normalise_datetime
from content_service.content.writes import role_guard
from content_service.content.writes.transitions import publish_entry, unpublish_entry
from content_service.content.writes.write_transaction import (
    Refusal,
    content_table,
    encoded,
    entry_for_write,
    entry_target,
    not_found,
    read_for_write,
    type_for_write,
)
from content_service.errors import (
    Conflict,
    NotFound,
    ServiceError,
    Unauthorized,
    ValidationFailed,
)
from content_service.identity.principal import Caller, TokenCaller, UserCaller
from content_service.identity.roles import SCHEDULE
from content_service.identity.tokens import caller_by_token_id
from content_service.identity.users import get_user
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

Action = Literal["publish", "unpublish"]
ACTIONS: tuple[Action, ...] = ("publish", "unpublish")
ScheduleStatus = Literal["scheduled", "done", "failed", "cancelled"]
MAX_AHEAD_SECONDS = 365 * 24 * 3600
MAX_PENDING_PER_ENTRY = 20
DUE_PK = "SCHEDULES#DUE"
_STATUSES: dict[str, ScheduleStatus] = {
    "scheduled": "scheduled",
    "done": "done",
    "failed": "failed",
    "cancelled": "cancelled",
}
_SK_PREFIX = "SCHEDULE#"


@dataclass(frozen=True)
class Schedule:
    id: str
    workspace_id: str
    content_type: str
    entry_id: str
    action: Action
    at: str
    status: ScheduleStatus
    reason: str | None
    created_at: str
    created_by: Mapping[str, str]
    ran_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        # Every field but the workspace and the type, in field order.
        shown = (
            n for n in camel.field_names(Schedule) if n not in ("workspace_id", "content_type")
        )
        return camel.dump(self, shown)

    @property
    def due_sk(self) -> str:
        return f"{self.at}#{self.workspace_id}#{self.entry_id}#{self.id}"


def _schedule_key(workspace_id: str, entry_id: str, schedule_id: str) -> dict[str, Any]:
    return dynamo.key(entry_pk(workspace_id, entry_id), _SK_PREFIX + schedule_id)


def _from_item(item: Mapping[str, Any]) -> Schedule:
    action = str(item.get("action"))
    status = str(item.get("status"))
    return Schedule(
        id=str(item["scheduleId"]),
        workspace_id=str(item["workspaceId"]),
        content_type=str(item["contentType"]),
        entry_id=str(item["entryId"]),
        action="unpublish" if action == "unpublish" else "publish",
        at=str(item["at"]),
        status=_STATUSES.get(status, "scheduled"),
        reason=str(item["reason"]) if item.get("reason") else None,
        created_at=str(item.get("createdAt", "")),
        created_by={str(k): str(v) for k, v in (item.get("createdBy") or {}).items()},
        ran_at=str(item["ranAt"]) if item.get("ranAt") else None,
    )


def _creator(caller: Caller) -> dict[str, str]:
    """Who the schedule runs as: the user, or the token (by id, so a revoked token fails)."""
    if isinstance(caller, UserCaller):
        return {"kind": "user", "id": caller.id, "email": caller.email}
    return {"kind": "token", "id": caller.token_id, "name": caller.name}


def _due_time(raw: str, now: float) -> str:
    try:
        at = normalise_datetime(raw)
    except InvalidValue as error:
        raise ValidationFailed(
            f"at {error}", details=[{"location": "at", "problem": str(error)}]
        ) from None
    moment = datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone(UTC).timestamp()
    if moment <= now:
        problem = "is in the past: a schedule runs in the future"
    elif moment > now + MAX_AHEAD_SECONDS:
        problem = "is more than a year ahead"
    else:
        return at
    raise ValidationFailed(f"at {problem}", details=[{"location": "at", "problem": problem}])


def _pending(workspace_id: str, entry_id: str) -> list[Schedule]:
    return [s for s in _schedules_of(workspace_id, entry_id) if s.status == "scheduled"]


def _schedules_of(workspace_id: str, entry_id: str) -> list[Schedule]:
    found: list[Schedule] = []
    for page in store().query(
        {
            "TableName": content_table(),
            "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
            "ExpressionAttributeNames": {"#pk": "pk", "#sk": "sk"},
            "ExpressionAttributeValues": {
                ":pk": {"S": entry_pk(workspace_id, entry_id)},
                ":prefix": {"S": _SK_PREFIX},
            },
            "ConsistentRead": True,
        }
    ):
        found.extend(_from_item(dynamo.decode(raw)) for raw in page)
    return found


def _schedule_items(schedule: Schedule) -> list[TransactWriteItemTypeDef]:
    """The schedule, its row in the due index, and the check that its entry still exists: one
    transaction, so no schedule outlives a deleted entry."""
    item = {
        **_schedule_key(schedule.workspace_id, schedule.entry_id, schedule.id),
        **dynamo.encode(
            {
                "entity": "schedule",
                "scheduleId": schedule.id,
                "workspaceId": schedule.workspace_id,
                "contentType": schedule.content_type,
                "entryId": schedule.entry_id,
                "action": schedule.action,
                "at": schedule.at,
                "status": "scheduled",
                "createdAt": schedule.created_at,
                "createdBy": dict(schedule.created_by),
            }
        ),
    }
    due = {
        **dynamo.key(DUE_PK, schedule.due_sk),
        **dynamo.encode(
            {
                "workspaceId": schedule.workspace_id,
                "entryId": schedule.entry_id,
                "scheduleId": schedule.id,
            }
        ),
    }
    return [
        {"Put": {"TableName": content_table(), "Item": item}},
        {"Put": {"TableName": content_table(), "Item": due}},
        {
            "ConditionCheck": {
                "TableName": content_table(),
                "Key": entry_key(schedule.workspace_id, schedule.entry_id),
                "ConditionExpression": "attribute_exists(pk) AND #deleted = :false",
                "ExpressionAttributeNames": {"#deleted": "deleted"},
                "ExpressionAttributeValues": encoded({":false": False}),
            }
        },
    ]


def create_schedule(request: ScheduleRequest, clock: Clock | None = None) -> Schedule:
    """`POST /{id}/schedules`: publish or unpublish at a time within the next year."""
    caller, workspace_id = request.caller, request.workspace_id
    content_type = type_for_write(caller, workspace_id, request.content_type)
    if request.action not in ACTIONS:
        raise ValidationFailed(
            "action must be publish or unpublish",
            details=[{"location": "action", "problem": "must be publish or unpublish"}],
        )
    now = (clock or SystemClock()).now()
    at = _due_time(request.at, now)
    current = read_for_write(caller, content_type, workspace_id, request.id).latest
    if current.deleted:
        raise not_found(request.id)
    _check_role(caller, content_type, current, request.action)
    if len(_pending(workspace_id, current.id)) >= MAX_PENDING_PER_ENTRY:
        raise Conflict(f"an entry holds at most {MAX_PENDING_PER_ENTRY} pending schedules")
    schedule = Schedule(
        id=str(uuid.uuid4()),
        workspace_id=workspace_id,
        content_type=content_type.name,
        entry_id=current.id,
        action="publish" if request.action == "publish" else "unpublish",
        at=at,
        status="scheduled",
        reason=None,
        created_at=iso_utc(now),
        created_by=_creator(caller),
    )
    try:
        store().transact(
            [*_schedule_items(schedule), _schedule_record(caller, schedule, "created", now)]
        )
    except dynamo.TransactionCancelled:
        raise not_found(request.id) from None
    return schedule


def _schedule_record(
    caller: Caller, schedule: Schedule, change: str, now: float
) -> TransactWriteItemTypeDef:
    """The audit record of a schedule made or cancelled: on its entry, naming the schedule."""
    values = {"schedule": schedule.id, "action": schedule.action, "at": schedule.at}
    return record_put(
        schedule.workspace_id,
        f"schedule.{change}",
        Actor.of(caller),
        entry_target(schedule.content_type, schedule.entry_id),
        now,
        {"fields": sorted(values), "values": values},
    )


def _check_role(caller: Caller, content_type: ContentType, entry: StoredEntry, action: str) -> None:
    """Scheduling needs `schedule` and the action scheduled (`publish` or `unpublish`): the
    run acts as the schedule's maker, who must be able to do it then too."""
    target = entry_target(content_type.name, entry.id)
    for needed in (SCHEDULE, action):
        role_guard.check(
            caller, content_type.workspace_id, needed, target, entry=entry, refused_as="schedule"
        )


def _entry_schedules(request: ScheduleAction | EntryAction) -> list[Schedule]:
    caller, workspace_id = request.caller, request.workspace_id
    entry_for_write(caller, workspace_id, request.content_type, request.id)
    return _schedules_of(workspace_id, request.id)


def list_schedules(request: EntryAction) -> list[Schedule]:
    """`GET /{id}/schedules`: every schedule of the entry, by due time (editorial: a writer
    that may also read)."""
    require_read(request.caller)
    return sorted(_entry_schedules(request), key=lambda s: (s.at, s.id))


def _settle(
    schedule: Schedule, status: ScheduleStatus, now: float, reason: str | None = None
) -> list[TransactWriteItemTypeDef]:
    """The schedule turns `status` if it is still `scheduled`, and its due item goes."""
    values: dict[str, Any] = {":status": status, ":scheduled": "scheduled", ":at": iso_utc(now)}
    expression = "SET #status = :status, #ranAt = :at"
    if reason is not None:
        values[":reason"] = reason[:500]
        expression += ", #reason = :reason"
    names = {"#status": "status", "#ranAt": "ranAt"}
    if reason is not None:
        names["#reason"] = "reason"
    return [
        {
            "Update": {
                "TableName": content_table(),
                "Key": _schedule_key(schedule.workspace_id, schedule.entry_id, schedule.id),
                "UpdateExpression": expression,
                "ConditionExpression": "#status = :scheduled",
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": encoded(values),
            }
        },
        {
            "Delete": {
                "TableName": content_table(),
                "Key": dynamo.key(DUE_PK, schedule.due_sk),
            }
        },
    ]


def cancel_schedule(request: ScheduleAction, clock: Clock | None = None) -> None:
    """`DELETE /{id}/schedules/{sid}`: a pending schedule is cancelled (409 once it ran)."""
    caller, workspace_id = request.caller, request.workspace_id
    content_type, versions = entry_for_write(caller, workspace_id, request.content_type, request.id)
    current = versions.latest
    found = {s.id: s for s in _schedules_of(workspace_id, request.id)}
    schedule = found.get(request.schedule_id)
    if schedule is None:
        raise NotFound(f"schedule {request.schedule_id[:64]!r} not found")
    _check_role(caller, content_type, current, schedule.action)
    if schedule.status != "scheduled":
        raise Conflict(f"the schedule is {schedule.status}; only a pending one can be cancelled")
    now = (clock or SystemClock()).now()
    record = _schedule_record(request.caller, schedule, "cancelled", now)
    try:
        store().transact([*_settle(schedule, "cancelled", now), record])
    except dynamo.TransactionCancelled:
        raise Conflict("the schedule ran or was cancelled meanwhile") from None


# ---------------------------------------------------------------------------------------------
# Running what is due


@dataclass
class ScheduleReport:
    """What one run did, for the scheduler's log line."""

    done: int = 0
    failed: int = 0
    stopped_early: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"job": "schedules", **camel.dump(self, camel.field_names(ScheduleReport))}


def _caller_of(created_by: Mapping[str, str]) -> Caller:
    """The scheduler acts as whoever made the schedule, as they are now."""
    if created_by.get("kind") == "user":
        user = get_user(created_by.get("id", ""))
        if not user.active:
            raise Unauthorized("the user who made the schedule is deactivated")
        return user.caller()
    return caller_by_token_id(created_by.get("id", ""))


def _run_one(schedule: Schedule, now: float, clock: Clock) -> bool:
    """Runs one due schedule; True when it ran, False when it failed (with its reason)."""
    run = publish_entry if schedule.action == "publish" else unpublish_entry
    try:
        caller = _caller_of(schedule.created_by)
        if isinstance(caller, TokenCaller) and caller.workspace_id != schedule.workspace_id:
            raise NotFound("the token that made the schedule no longer reaches the workspace")
        action = EntryAction(
            caller, schedule.workspace_id, schedule.content_type, schedule.entry_id
        )
        with origin_of(Origin(current_origin().correlation_id, schedule_id=schedule.id)):
            run(action, clock, also=(_settle(schedule, "done", now), _Settled()))
        return True
    except AlreadySettled:
        return True  # another runner ran it, or it was cancelled meanwhile
    except ServiceError as refused:
        reason = f"{schedule.action} could not run: {refused.message}"
        try:
            store().transact(_settle(schedule, "failed", now, reason))
        except dynamo.TransactionCancelled:
            return True  # another runner settled it first
        return False


class AlreadySettled(Conflict):
    """The schedule is no longer `scheduled`: the transition it guarded wrote nothing."""


class _Settled(Refusal):
    def settle(self, workspace_id: str, me: str, takeovers: dict[str, str]) -> None:
        raise AlreadySettled("the schedule already ran or was cancelled") from None


def _due(now: float) -> list[Schedule]:
    """The schedules due by `now`, from the due partition (at most 100 per run)."""
    items, _ = store().query_page(
        {
            "TableName": content_table(),
            "KeyConditionExpression": "#pk = :pk AND #sk <= :now",
            "ExpressionAttributeNames": {"#pk": "pk", "#sk": "sk"},
            "ExpressionAttributeValues": {
                ":pk": {"S": DUE_PK},
                ":now": {"S": iso_utc(now) + "#~"},
            },
            "ConsistentRead": True,
            "Limit": 100,
        }
    )
    keys = [dynamo.decode(raw) for raw in items]
    schedules: list[Schedule] = []
    for due in keys:
        item = store().get(
            "content",
            _schedule_key(str(due["workspaceId"]), str(due["entryId"]), str(due["scheduleId"])),
        )
        if item is None:
            store().delete(
                {"TableName": content_table(), "Key": dynamo.key(DUE_PK, str(due["sk"]))}
            )
            continue
        schedules.append(_from_item(item))
    return schedules


def run_due(out_of_time: Callable[[], bool], clock: Clock | None = None) -> ScheduleReport:
    """The scheduler's `schedules` job: runs every schedule due by now, each once."""
    clock = clock or SystemClock()
    report = ScheduleReport()
    now = clock.now()
    for schedule in _due(now):
        if out_of_time():
            report.stopped_early = True
            break
        if schedule.status != "scheduled":
            store().delete(
                {"TableName": content_table(), "Key": dynamo.key(DUE_PK, schedule.due_sk)}
            )
            continue
        if _run_one(schedule, now, clock):
            report.done += 1
        else:
            report.failed += 1
    return report
