"""The sample events under events/ fed to their handlers, on the local stack (moto, server mode).

The samples are what Lambda delivers (a stream batch with an INSERT of an outbox event, an SQS
batch of delivery ids, the three schedule inputs). Ids inside a sample are patched to rows this
test created, so the handler's effects can be checked; everything else is the sample's.
"""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from content_service.clock import iso_utc
from content_service.storage import aws
from content_service.webhooks import services
from content_service.webhooks.deliveries import (
    ENQUEUE_GRACE_SECONDS,
    PRUNE_CONTROL_ID,
    SWEEP_GRACE_SECONDS,
)
from content_service.webhooks.endpoints import Endpoint
from content_service.webhooks.sending import message_body
from harness.receiver import Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.webhooks import (
    drain,
    function_runtime,
    make_worker,
    row,
    rows_for_endpoint,
    seed_rows,
    sender_for,
    settings,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")

EVENTS = Path(__file__).resolve().parents[2] / "events"


def sample(name: str) -> Any:
    return json.loads((EVENTS / name).read_text(encoding="utf-8"))


def test_fanout_sample(stack: LocalStack, stored: Endpoint, receiver: Receiver) -> None:
    event = sample("fanout-stream-insert.json")
    original = copy.deepcopy(event)
    image = event["Records"][0]["dynamodb"]["NewImage"]
    event_id = str(uuid.uuid4())
    image["id"]["S"] = event_id
    event["Records"][0]["dynamodb"]["Keys"]["id"]["S"] = event_id
    image["workspaceId"]["S"] = stored.workspaces[0]

    response = function_runtime(stack, "FanoutFunction").invoke(event)

    assert response == {"batchItemFailures": []}
    (created,) = rows_for_endpoint(stored.id)
    assert created.event_id == event_id
    assert created.event == original["Records"][0]["dynamodb"]["NewImage"]["kind"]["S"]
    body = json.loads(created.request_body)
    assert body["data"] == {
        "kind": "content_entry",
        "id": "a1b2c3d4-e5f6-4789-8abc-def012345678",
        "contentType": "blog_post",
        "title": "Hello, webhooks",
    }
    assert body["actor"] == {
        "id": "3f2e1d0c-9b8a-4765-a432-10fedcba9876",
        "email": "editor@example.com",
    }
    drain(stack)  # the fan-out queued it; the delivery handler sends it
    assert [r.header("X-Service-Event-Id") for r in receiver.requests] == [event_id]


def test_delivery_sample(
    stack: LocalStack, stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    event = sample("delivery-sqs-batch.json")
    rows = seed_rows(stored.id, clock, count=len(event["Records"]))
    for record, seeded in zip(event["Records"], rows, strict=True):
        record["body"] = message_body(seeded.id)

    response = function_runtime(stack, "DeliveryFunction").invoke(event)

    assert response == {"batchItemFailures": []}
    assert sorted(r.header("X-Service-Delivery") or "" for r in receiver.requests) == sorted(
        r.id for r in rows
    )
    assert receiver.connections == 1  # one keep-alive connection for the batch
    for seeded in rows:
        assert row(seeded.id).status == "succeeded"


def test_delivery_sample_with_unknown_ids_is_acknowledged(stack: LocalStack) -> None:
    event = sample("delivery-sqs-batch.json")  # ids that name no row
    assert function_runtime(stack, "DeliveryFunction").invoke(event) == {"batchItemFailures": []}


# Long before any row another test leaves in the shared tables: at this time, what is due for
# the sweep or old enough for the prune is only what the test itself seeded.
LONG_AGO = 1_000_000_000.0  # 2001-09-09
DAY = 86400


def test_scheduler_sweep_sample(stack: LocalStack, stored: Endpoint, clock: FakeClock) -> None:
    clock.t = LONG_AGO
    seeded = seed_rows(stored.id, clock, count=2)  # pending and never queued
    clock.advance(ENQUEUE_GRACE_SECONDS + 60)  # both past their sweepAt

    result = function_runtime(stack, "SchedulerFunction").invoke(sample("scheduler-sweep.json"))

    assert result["job"] == "sweep"
    assert result["skipped"] is None
    assert result["requeued"] == len(seeded)
    next_look = iso_utc(clock.now() + SWEEP_GRACE_SECONDS)
    assert [row(s.id).sweep_at for s in seeded] == [next_look] * len(seeded)


def test_scheduler_prune_sample(
    stack: LocalStack, stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    current = settings()
    aws.dynamodb(current).delete_item(
        TableName=current.tables.deliveries, Key={"id": {"S": PRUNE_CONTROL_ID}}
    )
    clock.t = LONG_AGO
    old, recent = seed_rows(stored.id, clock, count=2)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        worker.process(old.id)
        clock.advance(2 * DAY)
        worker.process(recent.id)
    assert [row(old.id).status, row(recent.id).status] == ["succeeded", "succeeded"]
    # `old` finished more than retentionDays ago, `recent` a day less than that.
    clock.t = LONG_AGO + (current.webhooks.retention_days + 1) * DAY + 60

    scheduler = function_runtime(stack, "SchedulerFunction")
    result = scheduler.invoke(sample("scheduler-prune.json"))

    assert result["job"] == "prune"
    assert result["skipped"] is None
    assert result["deleted"] == 1
    assert services.delivery_store(current).get(old.id) is None
    assert row(recent.id).status == "succeeded"
    again = scheduler.invoke(sample("scheduler-prune.json"))
    assert again["skipped"] == "already pruned this hour"


def test_scheduler_lists_sample_indexes_a_pending_layout(stack: LocalStack) -> None:
    from content_service import runtime
    from content_service.content import service
    from content_service.content.requests import WriteRequest
    from content_service.content.schema import FieldSpec, TypeDefinition
    from content_service.identity.tokens import TokenSpec, authenticate_token, create_token
    from content_service.identity.workspaces import create_workspace

    slug = f"lists-{uuid.uuid4().hex[:8]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    caller = authenticate_token(create_token(TokenSpec("t", workspace.id, "full"))[0])
    plain = TypeDefinition("note", fields=(FieldSpec("rank", "integer"),))
    service.create_type(caller, workspace.id, plain)
    for rank in range(3):
        service.create_entry(WriteRequest(caller, workspace.id, "note", values={"rank": rank}))
    sortable = TypeDefinition("note", fields=(FieldSpec("rank", "integer", sortable=True),))
    assert service.replace_type(caller, workspace.id, "note", sortable).list_next is not None
    result = function_runtime(stack, "SchedulerFunction").invoke(sample("scheduler-lists.json"))
    assert result["job"] == "lists"
    assert f"{workspace.id}/note" in result["finished"]
    assert result["entries"] >= 6  # each entry twice: indexed, then cleaned
    ready = service.require_type(caller, workspace.id, "note")
    assert ready.list_next is None
    assert ready.list_layout.sortable == (ready.fields[0].key,)


def test_schedule_inputs_are_the_templates() -> None:
    from infra.template_model import Template

    events = Template.load().functions["SchedulerFunction"].events
    inputs = {json.loads(str(e.properties["Input"]))["job"] for e in events.values()}
    assert inputs == {
        sample("scheduler-sweep.json")["job"],
        sample("scheduler-lists.json")["job"],
        sample("scheduler-schedules.json")["job"],
        sample("scheduler-prune.json")["job"],
    }


def test_the_delivery_batch_size_is_the_options() -> None:
    """`batchSize` (docs/webhooks.md, "Options and environment variables") is the SQS event source's
    BatchSize in the template."""
    from content_service.settings import WebhookOptions
    from infra.template_model import Template

    events = Template.load().functions["DeliveryFunction"].events
    (deliveries,) = [e for e in events.values() if e.type == "SQS"]
    assert int(str(deliveries.properties["BatchSize"])) == WebhookOptions().batch_size
