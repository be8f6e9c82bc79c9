"""Outbox reconciliation: an event whose fan-out never completed is fanned out by the sweep.

Every event carries a fan-out marker until its rows exist and are queued. The minute sweep fans
out again what is still marked after the grace period, exactly as the stream would have; the
`resume` job (the local stack after a restore, an operator after a purged queue) does it at
once. Either way a repeat creates no second row and an endpoint never gets an event that
occurred before it was created (docs/webhooks.md, "Fan-out").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from content_service.clock import iso_utc
from content_service.storage import aws
from content_service.storage.outbox_event import fanout_shard
from content_service.webhooks.deliveries import OUTBOX_GRACE_SECONDS
from harness.receiver import Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.webhooks import (
    Hooks,
    drain,
    function_runtime,
    rows_for_endpoint,
    settings,
    write_event,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")

EVENTS = Path(__file__).resolve().parents[2] / "events"


def stored_event(event_id: str) -> dict[str, Any]:
    current = settings()
    item: dict[str, Any] = aws.dynamodb(current).get_item(
        TableName=current.tables.events, Key={"id": {"S": event_id}}, ConsistentRead=True
    )["Item"]
    return item


def sweep(stack: LocalStack) -> dict[str, Any]:
    result: dict[str, Any] = function_runtime(stack, "SchedulerFunction").invoke({"job": "sweep"})
    return result


def test_the_sweep_fans_out_an_event_still_marked_after_the_grace_period(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, clock: FakeClock, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(receiver.url(), workspaces=[workspace.id])
    event = write_event(workspace_id=workspace.id, occurred_at=iso_utc(clock.now()))
    assert stored_event(event["id"])["fanoutShard"] == {"S": fanout_shard(event["id"])}

    # The stream's fan-out has not run (its batch is failing, say): within the grace period
    # the sweep leaves the event to it.
    clock.advance(OUTBOX_GRACE_SECONDS - 5)
    sweep(stack)
    assert rows_for_endpoint(created["id"]) == []

    clock.advance(10)
    assert sweep(stack)["fannedOut"] >= 1
    (made,) = rows_for_endpoint(created["id"])
    assert made.event_id == event["id"]
    marked = stored_event(event["id"])
    assert "fanoutShard" not in marked
    assert marked["fannedOutAt"] == {"S": iso_utc(clock.now())}

    # The stream then catches up: the same row is found, not made twice; one send.
    drain(stack)
    assert [r.id for r in rows_for_endpoint(created["id"])] == [made.id]
    assert [r.header("X-Service-Event-Id") for r in receiver.requests] == [event["id"]]


def test_a_late_fan_out_gives_an_endpoint_created_since_nothing(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, clock: FakeClock, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    before = hooks.create(receiver.url(), workspaces=[workspace.id])
    event = write_event(workspace_id=workspace.id, occurred_at=iso_utc(clock.now()))
    clock.advance(60)
    with Receiver() as newcomer_receiver:
        newcomer = hooks.create(newcomer_receiver.url(), workspaces=[workspace.id])
        assert newcomer["createdAt"] > event["occurredAt"]
        clock.advance(OUTBOX_GRACE_SECONDS)
        sweep(stack)
        drain(stack)
        assert rows_for_endpoint(newcomer["id"]) == []
        assert newcomer_receiver.requests == []
    assert [r.event_id for r in rows_for_endpoint(before["id"])] == [event["id"]]
    assert len(receiver.requests) == 1


def test_resume_sample_fans_out_at_once_and_queues_unfinished_rows(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(receiver.url(), workspaces=[workspace.id])
    event = write_event(workspace_id=workspace.id)
    job = json.loads((EVENTS / "scheduler-resume.json").read_text())

    result = function_runtime(stack, "SchedulerFunction").invoke(job)

    assert result["job"] == "resume"
    assert result["fannedOut"] >= 1
    assert result["requeued"] >= 1  # this event's row, at least: resume queues every one
    (made,) = rows_for_endpoint(created["id"])
    assert made.event_id == event["id"]
    assert "fanoutShard" not in stored_event(event["id"])
    drain(stack)
    assert [r.header("X-Service-Event-Id") for r in receiver.requests] == [event["id"]]
