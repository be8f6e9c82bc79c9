"""A batch as the delivery handler runs it (`prepare`, then `process` in order): the rows and
endpoints are read once, each claim is a transaction that checks the endpoint's version, and each
outcome is recorded in the transaction that claims the next row.

What must not change (docs/webhooks.md, "Delivery"; decisions.md D20): every claim is committed
before the send it covers, sends go out one after another, and a rotated secret, a disable or a
delete that happened before a row is claimed applies to that row's send, even when it happened while
the delivery before it was in flight. The requests are counted at the wire.
"""

from __future__ import annotations

import pytest

from content_service import runtime
from content_service.webhooks import services
from content_service.webhooks.endpoints import Endpoint, EndpointRegistry
from content_service.webhooks.sending import DeliveryWorker, Report
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from infra.request_recorder import RecordedCall
from tests.support.webhooks import (
    drop_endpoint,
    endpoint,
    make_worker,
    row,
    seed_rows,
    sender_for,
    stripe_accepts,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")


def _run(worker: DeliveryWorker, ids: list[str]) -> list[Report]:
    """What the handler does with one SQS batch."""
    worker.prepare(ids)
    reports = [worker.process(delivery_id) for delivery_id in ids]
    worker.flush()
    return reports


def _dynamodb(calls: list[RecordedCall]) -> list[str]:
    return [call.operation for call in calls if call.target.startswith("DynamoDB")]


def test_a_batch_costs_one_request_per_delivery_and_two_reads(
    stack: LocalStack, stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    rows = seed_rows(stored.id, clock, count=5)
    assert stack.recorder is not None
    with sender_for() as sender, stack.recorder.capture() as calls:
        reports = _run(make_worker(sender, clock), [r.id for r in rows])
    assert [r.result for r in reports] == ["succeeded"] * 5
    assert _dynamodb(calls) == [
        "BatchGetItem",  # the batch's rows
        "BatchGetItem",  # their endpoints
        "TransactWriteItems",  # the first claim, the endpoint checked
        *["TransactWriteItems"] * 4,  # an outcome and the next claim
        "UpdateItem",  # the last outcome
        "UpdateItem",  # the batch's attempts added to the endpoint's hourly statistics
    ]
    assert [request.body for request in receiver.requests] == [r.body_bytes for r in rows]
    assert all(stripe_accepts(receiver.requests[i], stored.secret) for i in range(5))
    for seeded in rows:
        done = row(seeded.id)
        assert (done.status, done.attempts, done.claim_token) == ("succeeded", 1, None)
        assert [entry.attempt for entry in done.attempt_log] == [1]


def test_a_secret_rotated_while_the_previous_delivery_is_in_flight_signs_the_next(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    rotated: list[Endpoint] = []
    receiver.respond(
        Answer(200, meanwhile=lambda: rotated.append(_registry().rotate_secret(stored.id)))
    )
    rows = seed_rows(stored.id, clock, count=3)
    with sender_for() as sender:
        reports = _run(make_worker(sender, clock), [r.id for r in rows])
    assert [r.result for r in reports] == ["succeeded"] * 3
    (new,) = rotated
    assert stripe_accepts(receiver.requests[0], stored.secret)
    for index in (1, 2):
        assert stripe_accepts(receiver.requests[index], new.secret)
        assert not stripe_accepts(receiver.requests[index], stored.secret)


def test_a_change_after_the_batch_was_read_applies_to_its_first_send(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    rows = seed_rows(stored.id, clock, count=2)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        worker.prepare([r.id for r in rows])
        new = _registry().rotate_secret(stored.id)
        reports = [worker.process(r.id) for r in rows]
    assert [r.result for r in reports] == ["succeeded"] * 2
    assert stripe_accepts(receiver.requests[0], new.secret)
    assert stripe_accepts(receiver.requests[1], new.secret)


@pytest.mark.parametrize("change", ["disabled", "deleted"])
def test_a_disable_or_delete_during_a_send_stops_the_rest_of_the_batch_unsent(
    stored: Endpoint, receiver: Receiver, clock: FakeClock, change: str
) -> None:
    def act() -> None:
        if change == "disabled":
            services.endpoint_store(runtime.settings()).update(
                stored.id, {"enabled": False, "disabledReason": "paused by ops"}
            )
        else:
            drop_endpoint(stored.id)

    receiver.respond(Answer(200, meanwhile=act))
    rows = seed_rows(stored.id, clock, count=3)
    with sender_for() as sender:
        reports = _run(make_worker(sender, clock), [r.id for r in rows])
    assert [r.result for r in reports] == ["succeeded", "dead", "dead"]
    assert len(receiver.requests) == 1
    why = "endpoint disabled: paused by ops" if change == "disabled" else "endpoint deleted"
    for seeded in rows[1:]:
        done = row(seeded.id)
        assert (done.status, done.attempts, done.last_error) == ("dead", 0, why)


def test_auto_disable_applies_to_the_next_row_of_the_same_batch(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.always(Answer(410, b"gone"))
    rows = seed_rows(stored.id, clock, count=21)
    with sender_for() as sender:
        reports = _run(make_worker(sender, clock), [r.id for r in rows])
    assert [r.result for r in reports] == ["dead"] * 21
    assert [r.endpoint_disabled for r in reports[:20]] == [False] * 19 + [True]
    assert len(receiver.requests) == 20
    assert (endpoint(stored.id).enabled, endpoint(stored.id).consecutive_dead) == (False, 20)


def test_a_row_finished_since_the_batch_was_read_is_skipped_unsent(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    first, second = seed_rows(stored.id, clock, count=2)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        worker.prepare([first.id, second.id])
        # Another worker delivers the second row meanwhile (a duplicate message).
        assert make_worker(sender, clock).process(second.id).result == "succeeded"
        reports = [worker.process(first.id), worker.process(second.id)]
    assert [r.result for r in reports] == ["succeeded", "skipped_finished"]
    assert len(receiver.requests) == 2
    assert row(second.id).attempts == 1


def test_a_message_twice_in_one_batch_is_sent_once(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    (seeded,) = seed_rows(stored.id, clock)
    with sender_for() as sender:
        reports = _run(make_worker(sender, clock), [seeded.id, seeded.id])
    assert [r.result for r in reports] == ["succeeded", "skipped_finished"]
    assert len(receiver.requests) == 1


def test_failed_attempts_in_a_batch_keep_their_retry_schedule(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.always(Answer(503))
    rows = seed_rows(stored.id, clock, count=3)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        reports = _run(worker, [r.id for r in rows])
    assert [r.result for r in reports] == ["failed"] * 3
    for seeded in rows:
        done = row(seeded.id)
        assert done.status == "failed"
        assert done.attempts == 1
        assert done.next_attempt_at is not None
        assert done.next_attempt_at > done.updated_at
        assert done.claim_token is None


def _registry() -> EndpointRegistry:
    return EndpointRegistry(runtime.settings())
