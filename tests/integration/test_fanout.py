"""The fan-out handler on the events table's stream: matching, idempotence, partial failures."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from content_service.storage.outbox_event import OutboxEvent
from content_service.webhooks import services
from content_service.webhooks.deliveries import FanOut, fanout_delivery_id
from content_service.webhooks.endpoints import Endpoint, mint_secret
from content_service.webhooks.sending import DeliveryQueue
from harness.receiver import Receiver
from harness.webhooks import FakeClock, store_endpoint
from infra import request_check
from infra.local_stack import LocalStack
from tests.support.webhooks import (
    delete_rows,
    drain,
    function_runtime,
    outbox_event,
    purge_endpoint,
    rows_for_endpoint,
    settings,
    stream_event,
    stream_state,
    write_event,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")


@pytest.fixture
def workspace() -> str:
    return str(uuid.uuid4())


def endpoints_for(receiver: Receiver, workspace: str) -> Iterator[dict[str, Endpoint]]:
    url = receiver.url()
    made = {
        "workspace": store_endpoint(url, workspaces=(workspace,)),
        "all": store_endpoint(url, workspaces=(), all_workspaces=True),
        "published": store_endpoint(url, workspaces=(workspace,), events=("entry.published",)),
        "pages": store_endpoint(url, workspaces=(workspace,), content_types=("page",)),
        "none": store_endpoint(url, workspaces=()),
        "disabled": store_endpoint(
            url, workspaces=(workspace,), enabled=False, disabled_reason="paused"
        ),
        "elsewhere": store_endpoint(url, workspaces=(str(uuid.uuid4()),)),
    }
    yield made
    for endpoint in made.values():
        purge_endpoint(endpoint.id)


def reached(endpoints: dict[str, Endpoint], event_id: str) -> set[str]:
    return {
        name
        for name, endpoint in endpoints.items()
        if any(r.event_id == event_id for r in rows_for_endpoint(endpoint.id))
    }


@pytest.fixture
def endpoints_after_backlog(
    stack: LocalStack, receiver: Receiver, workspace: str
) -> Iterator[dict[str, Endpoint]]:
    """The endpoints, created once events other tests left on the stream are fanned out."""
    drain(stack)
    yield from endpoints_for(receiver, workspace)


def test_events_reach_exactly_the_matching_endpoints(
    stack: LocalStack,
    endpoints_after_backlog: dict[str, Endpoint],
    workspace: str,
    receiver: Receiver,
) -> None:
    endpoints = endpoints_after_backlog
    created = write_event(workspace_id=workspace, kind="entry.created", content_type="post")
    published_page = write_event(
        workspace_id=workspace, kind="entry.published", content_type="page"
    )
    no_workspace = write_event(workspace_id=None, kind="entry.purged")
    drain(stack)

    assert reached(endpoints, created["id"]) == {"workspace", "all"}, stream_state(
        stack, created["id"]
    )
    assert reached(endpoints, published_page["id"]) == {"workspace", "all", "published", "pages"}
    assert reached(endpoints, no_workspace["id"]) == {"all"}
    mine = {created["id"], published_page["id"], no_workspace["id"]}
    # The "all" endpoint also takes any event another test writes meanwhile: count ours.
    ours = [r for r in receiver.requests if r.header("X-Service-Event-Id") in mine]
    assert len(ours) == 2 + 4 + 1
    no_ws_requests = [r for r in ours if r.header("X-Service-Event-Id") == no_workspace["id"]]
    assert len(no_ws_requests) == 1
    assert "x-service-workspace" not in no_ws_requests[0].header_names()


def test_other_stream_records_are_ignored_and_a_malformed_one_is_skipped(
    stack: LocalStack, receiver: Receiver, workspace: str
) -> None:
    endpoint = store_endpoint(receiver.url(), workspaces=(workspace,))
    try:
        good = outbox_event(workspace_id=workspace)
        malformed = {"id": str(uuid.uuid4()), "kind": "entry.created"}  # no data
        modified = outbox_event(workspace_id=workspace)
        fanout = function_runtime(stack, "FanoutFunction")
        batch = stream_event(malformed, good)
        batch["Records"] += stream_event(modified, event_name="MODIFY")["Records"]
        assert fanout.invoke(batch) == {"batchItemFailures": []}
        rows = rows_for_endpoint(endpoint.id)
        assert [r.event_id for r in rows] == [good["id"]]
    finally:
        purge_endpoint(endpoint.id)


def test_a_failing_record_is_reported_alone(
    stack: LocalStack, receiver: Receiver, workspace: str
) -> None:
    endpoint = store_endpoint(receiver.url(), workspaces=(workspace,))
    try:
        first, last = (outbox_event(workspace_id=workspace) for _ in range(2))
        # A record the fan-out cannot store: its frozen envelope would make a delivery row
        # over DynamoDB's 400 KB, so the row's PutItem is refused, for this record alone.
        poisoned = outbox_event(workspace_id=workspace, title="x" * 410_000)
        batch = stream_event(first, poisoned, last)
        response = function_runtime(stack, "FanoutFunction").invoke(batch)
        sequence = batch["Records"][1]["dynamodb"]["SequenceNumber"]
        assert response == {"batchItemFailures": [{"itemIdentifier": sequence}]}
        event_ids = [r.event_id for r in rows_for_endpoint(endpoint.id)]
        assert sorted(event_ids) == sorted([first["id"], last["id"]])

        # Lambda replays from the failed record: the row already made is not made again, and
        # the poisoned record fails again, alone (to the failure queue once retries run out).
        replay = {"Records": batch["Records"][1:]}
        response = function_runtime(stack, "FanoutFunction").invoke(replay)
        assert response == {"batchItemFailures": [{"itemIdentifier": sequence}]}
        event_ids = [r.event_id for r in rows_for_endpoint(endpoint.id)]
        assert sorted(event_ids) == sorted([first["id"], last["id"]])
        # The request check saw both refused writes, as AWS would refuse them.
        refused = [str(r) for r in request_check.take_refusals()]
        assert len(refused) == 2, refused
        assert all("item-too-large" in r for r in refused), refused
    finally:
        purge_endpoint(endpoint.id)


def test_fan_out_to_many_endpoints_uses_few_requests(stack: LocalStack, clock: FakeClock) -> None:
    workspace = str(uuid.uuid4())
    many = [
        Endpoint(
            id=str(uuid.uuid4()),
            url="https://x.test/",
            secret=mint_secret(),
            workspaces=(workspace,),
        )
        for _ in range(250)
    ]
    current = settings()
    sqs = stack.emulator.sqs()
    # A queue of its own, so these rows of made-up endpoints are never consumed.
    scratch = sqs.create_queue(QueueName=f"fanout-test-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    event = OutboxEvent.from_item(outbox_event(workspace_id=workspace))
    try:
        fanout = FanOut(
            services.delivery_store(current),
            DeliveryQueue(sqs, scratch),
            services.outbox_store(current),
            clock,
        )
        result = fanout.fan_out(event, many)
        assert result.matched == 250
        assert len(result.inserted) == 250
        assert result.requests == 3 + 25 + 1  # transactions of 100, batches of 10, the mark
        again = fanout.fan_out(event, many)
        assert again.inserted == []
        assert len(again.existing) == 250
        queued = sqs.get_queue_attributes(
            QueueUrl=scratch, AttributeNames=["ApproximateNumberOfMessages"]
        )["Attributes"]["ApproximateNumberOfMessages"]
        assert queued == "500"  # a repeat queues the ids again; the claim dedups
    finally:
        sqs.delete_queue(QueueUrl=scratch)
        delete_rows(fanout_delivery_id(e.id, event.id) for e in many)
