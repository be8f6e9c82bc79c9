"""Endpoint lifecycle (docs/webhooks.md, "State machine", "Operational events"): dead counting,
auto-disable, re-enable, deletion, redelivery through the pipeline, and `deliveryIntervalMs` 0."""

from __future__ import annotations

import json
from typing import Any

import pytest

from content_service import runtime
from content_service.webhooks import services
from content_service.webhooks.endpoints import Endpoint
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock, store_endpoint
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.settings import webhook_options
from tests.support.webhooks import (
    Hooks,
    drain,
    drop_endpoint,
    endpoint,
    enqueue,
    function_runtime,
    make_worker,
    purge_endpoint,
    row,
    seed_rows,
    sender_for,
    sqs_event,
    stream_state,
    write_event,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")


def test_twenty_consecutive_dead_deliveries_disable_the_endpoint(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.always(Answer(410, b"gone"))
    rows = seed_rows(stored.id, clock, count=21)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        reports = [worker.process(r.id) for r in rows]
    assert [r.result for r in reports] == ["dead"] * 21
    assert [r.endpoint_disabled for r in reports[:20]] == [False] * 19 + [True]
    assert len(receiver.requests) == 20  # the 21st is not sent to a disabled endpoint

    after = endpoint(stored.id)
    assert after.enabled is False
    assert after.consecutive_dead == 20
    assert after.disabled_reason is not None
    assert "20 consecutive dead deliveries" in after.disabled_reason
    last = row(rows[-1].id)
    assert last.status == "dead"
    assert last.attempts == 0  # no attempt was made
    assert last.last_error is not None
    assert last.last_error.startswith("endpoint disabled: disabled after 20")


def test_a_count_another_worker_took_past_the_threshold_names_the_threshold(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    """Two workers can both count a dead delivery before either disables the endpoint; the
    one that writes the disable must not name its own count (21) but the threshold (20)."""
    receiver.always(Answer(410, b"gone"))
    store = services.endpoint_store(runtime.settings())
    for _ in range(20):  # another worker's counts, its disable not yet written
        store.count_dead(stored.id)
    (seeded,) = seed_rows(stored.id, clock, count=1)
    with sender_for() as sender:
        report = make_worker(sender, clock).process(seeded.id)
    assert report.endpoint_disabled is True
    after = endpoint(stored.id)
    assert after.consecutive_dead == 21
    assert after.disabled_reason is not None
    assert after.disabled_reason.startswith("disabled after 20 consecutive dead deliveries")


def test_re_enabling_clears_the_counter(
    hooks: Hooks, receiver: Receiver, clock: FakeClock, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(receiver.url(), workspaces=[workspace.id])
    receiver.always(Answer(404))
    with webhook_options(auto_disable_after=3), sender_for() as sender:
        worker = make_worker(sender, clock)
        for seeded in seed_rows(created["id"], clock, count=3):
            worker.process(seeded.id)
    disabled = hooks.get(created["id"])
    assert disabled["enabled"] is False
    assert disabled["consecutiveDead"] == 3
    assert "3 consecutive dead" in disabled["disabledReason"]
    assert hooks.client.get("/api/webhooks").json()["items"]  # the admin list shows it

    enabled = hooks.patch(created["id"], enabled=True)
    assert enabled["enabled"] is True
    assert enabled["consecutiveDead"] == 0
    assert enabled["disabledReason"] is None

    receiver.always(Answer(200))
    (again,) = seed_rows(created["id"], clock)
    with sender_for() as sender:
        assert make_worker(sender, clock).process(again.id).result == "succeeded"


def test_a_success_resets_the_counter(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.respond(Answer(400), Answer(400), Answer(400), Answer(200), Answer(400))
    rows = seed_rows(stored.id, clock, count=5)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        results = []
        for index, seeded in enumerate(rows):
            results.append(worker.process(seeded.id).result)
            if index == 2:
                assert endpoint(stored.id).consecutive_dead == 3
            if index == 3:
                assert endpoint(stored.id).consecutive_dead == 0
    assert results == ["dead", "dead", "dead", "succeeded", "dead"]
    assert endpoint(stored.id).consecutive_dead == 1


def test_retryable_failures_do_not_count_until_the_row_is_dead(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.always(Answer(503))
    (seeded,) = seed_rows(stored.id, clock)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        for attempt in range(1, 7):
            worker.process(seeded.id)
            assert endpoint(stored.id).consecutive_dead == (1 if attempt == 6 else 0)
            clock.advance(3 * 3600)
    assert row(seeded.id).status == "dead"


@pytest.mark.parametrize("change", ["deleted", "disabled"])
def test_pending_and_failed_rows_of_a_gone_endpoint_turn_dead_unsent(
    receiver: Receiver, clock: FakeClock, change: str
) -> None:
    created = store_endpoint(receiver.url())
    try:
        receiver.always(Answer(500))
        failed, pending = seed_rows(created.id, clock, count=2)
        with sender_for() as sender:
            worker = make_worker(sender, clock)
            assert worker.process(failed.id).result == "failed"
            if change == "deleted":
                drop_endpoint(created.id)
            else:
                from content_service import runtime
                from content_service.webhooks import services

                services.endpoint_store(runtime.settings()).update(
                    created.id, {"enabled": False, "disabledReason": "paused by ops"}
                )
            clock.advance(3600)
            reports = [worker.process(failed.id), worker.process(pending.id)]
        assert [r.result for r in reports] == ["dead", "dead"]
        assert len(receiver.requests) == 1  # only the first, before the change
        expected = "endpoint deleted" if change == "deleted" else "endpoint disabled: paused by ops"
        for seeded, attempts in ((failed, 1), (pending, 0)):
            current = row(seeded.id)
            assert current.status == "dead"
            assert current.last_error == expected
            assert current.attempts == attempts
        if change == "disabled":
            assert endpoint(created.id).consecutive_dead == 0  # not the receiver's fault
    finally:
        purge_endpoint(created.id)


def test_redelivery_goes_through_the_pipeline_with_a_new_id_and_the_same_event_id(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(receiver.url(), workspaces=[workspace.id])
    event = write_event(workspace_id=workspace.id, kind="entry.deleted")
    drain(stack)
    assert len(receiver.requests) == 1, stream_state(stack, event["id"])
    (first,) = receiver.requests
    original_id = first.header("X-Service-Delivery")
    assert original_id is not None

    response = hooks.client.post(
        f"/api/webhooks/{created['id']}/deliveries/{original_id}/redeliver"
    )
    assert response.status_code == 202
    drain(stack)

    assert len(receiver.requests) == 2
    second = receiver.requests[1]
    assert second.header("X-Service-Delivery") == response.json()["id"] != original_id
    assert second.header("X-Service-Event-Id") == event["id"] == first.header("X-Service-Event-Id")
    assert second.header("X-Service-Attempt") == "1"
    assert json.loads(second.body)["id"] == response.json()["id"]
    statuses = {d["id"]: d["status"] for d in hooks.deliveries(created["id"])}
    assert statuses == {original_id: "succeeded", response.json()["id"]: "succeeded"}


def test_new_endpoints_get_no_replay_of_earlier_events(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    write_event(workspace_id=workspace.id)
    drain(stack)
    created = hooks.create(receiver.url(), workspaces=[workspace.id])
    drain(stack)
    assert receiver.requests == []
    assert hooks.deliveries(created["id"]) == []


def test_delivery_interval_zero_queues_but_never_sends(
    stack: LocalStack, receiver: Receiver, clock: FakeClock, stored: Endpoint
) -> None:
    (seeded,) = seed_rows(stored.id, clock)
    delivery = function_runtime(stack, "DeliveryFunction")
    with webhook_options(delivery_interval_ms=0):
        event = sqs_event(seeded.id)
        response = delivery.invoke(event)
        # Every message is handed back, so it stays queued for when sending is switched on.
        assert response == {
            "batchItemFailures": [{"itemIdentifier": event["Records"][0]["messageId"]}]
        }
        clock.advance(3600)
        assert stack.tick("Sweep")["skipped"] == "deliveryIntervalMs is 0: nothing is sent"
    assert receiver.requests == []
    assert row(seeded.id).status == "pending"

    enqueue(seeded.id)
    drain(stack)
    assert len(receiver.requests) == 1
