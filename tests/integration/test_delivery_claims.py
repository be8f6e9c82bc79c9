"""Crashes and duplicates (docs/webhooks.md, "Guarantees", "State machine"; claims are conditional
writes).

A stream record delivered twice makes one delivery; an SQS message delivered twice makes one
attempt; a worker killed after its claim (before or after its send) leaves a row the minute
sweep hands out again once the claim times out; a worker that lost its claim cannot record.
The receiver counts requests per attempt number: nothing is lost, nothing is sent twice for
one attempt.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest

from content_service.clock import iso_utc
from content_service.storage.outbox_event import OutboxEvent
from content_service.webhooks import services
from content_service.webhooks.deliveries import ENQUEUE_GRACE_SECONDS, SWEEP_GRACE_SECONDS, Claim
from content_service.webhooks.endpoints import Endpoint, mint_secret
from content_service.webhooks.sending import LOST_CLAIM_ERROR, Sender, SendResult
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock, store_endpoint
from infra.local_stack import LocalStack
from tests.support.webhooks import (
    delete_rows,
    drain,
    enqueue,
    function_runtime,
    make_worker,
    outbox_event,
    purge_endpoint,
    row,
    rows_for_endpoint,
    seed_rows,
    sender_for,
    settings,
    stream_event,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")

CLAIM_TIMEOUT_S = 30.0


@pytest.fixture
def endpoint(receiver: Receiver) -> Any:
    created = store_endpoint(receiver.url())
    yield created
    purge_endpoint(created.id)


def attempts_seen(receiver: Receiver) -> Counter[str | None]:
    return Counter(r.header("X-Service-Attempt") for r in receiver.requests)


# -- the stream repeats a record -----------------------------------------------------------


def test_a_stream_record_delivered_twice_makes_one_delivery(
    stack: LocalStack, endpoint: Endpoint, receiver: Receiver
) -> None:
    item = outbox_event(workspace_id=endpoint.workspaces[0])
    fanout = function_runtime(stack, "FanoutFunction")
    assert fanout.invoke(stream_event(item)) == {"batchItemFailures": []}
    assert fanout.invoke(stream_event(item)) == {"batchItemFailures": []}
    # And twice within one batch.
    assert fanout.invoke(stream_event(item, item)) == {"batchItemFailures": []}

    drain(stack)

    rows = rows_for_endpoint(endpoint.id)
    assert len(rows) == 1
    assert rows[0].event_id == item["id"]
    assert rows[0].status == "succeeded"
    assert len(receiver.requests) == 1
    assert receiver.requests[0].header("X-Service-Event-Id") == item["id"]


def test_concurrent_fan_outs_of_one_event_make_one_row_per_endpoint(clock: FakeClock) -> None:
    """Two workers race on one event over 120 endpoints (two transactions each)."""
    workspace = str(uuid.uuid4())
    endpoints = [
        Endpoint(
            id=str(uuid.uuid4()),
            url="https://x.test/",
            secret=mint_secret(),
            workspaces=(workspace,),
        )
        for _ in range(120)
    ]
    event = OutboxEvent.from_item(outbox_event(workspace_id=workspace))
    current = settings()
    store = services.delivery_store(current)
    fanout = services.fan_out(current, clock)
    rows = fanout.rows_for(event, endpoints)
    # Some rows exist already, as after a run that died half-way.
    first = store.insert_new(rows[:30])
    assert len(first.inserted) == 30

    results: list[Any] = []
    barrier = threading.Barrier(2)

    def race() -> None:
        barrier.wait()
        results.append(store.insert_new(rows))

    threads = [threading.Thread(target=race) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    try:
        _check_race(results, rows, store)
    finally:
        delete_rows(r.id for r in rows)


def _check_race(results: list[Any], rows: list[Any], store: Any) -> None:
    inserted = [i for r in results for i in r.inserted]
    assert sorted(inserted) == sorted(r.id for r in rows[30:])  # each row inserted once
    for result in results:
        assert set(result.inserted) | set(result.existing) == {r.id for r in rows}
    for r in rows:
        found = store.get(r.id)
        assert found is not None
        assert found.status == "pending"


# -- the queue repeats a message -----------------------------------------------------------


def test_an_sqs_message_delivered_twice_makes_one_attempt(
    stack: LocalStack, endpoint: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    (seeded,) = seed_rows(endpoint.id, clock)
    enqueue(seeded.id, seeded.id)
    drain(stack)
    assert len(receiver.requests) == 1
    current = row(seeded.id)
    assert current.status == "succeeded"
    assert current.attempts == 1


def test_a_repeated_message_after_a_failure_makes_no_early_attempt(
    stack: LocalStack, endpoint: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.always(Answer(500))
    (seeded,) = seed_rows(endpoint.id, clock)
    enqueue(seeded.id, seeded.id, seeded.id)
    drain(stack)
    assert len(receiver.requests) == 1
    current = row(seeded.id)
    assert current.status == "failed"
    assert current.attempts == 1


def test_two_workers_on_one_row_make_one_attempt(
    endpoint: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.always(Answer(200, delay_s=0.5))
    (seeded,) = seed_rows(endpoint.id, clock)
    reports: list[Any] = []
    barrier = threading.Barrier(2)

    def work() -> None:
        with sender_for() as sender:
            worker = make_worker(sender, clock)
            barrier.wait()
            reports.append(worker.process(seeded.id))

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    # The loser finds the row claimed (usually) or, if it was scheduled late, finished.
    loser, winner = sorted(r.result for r in reports)
    assert winner == "succeeded"
    assert loser in ("skipped_claimed", "skipped_finished")
    assert len(receiver.requests) == 1
    assert row(seeded.id).attempts == 1


# -- a worker dies -------------------------------------------------------------------------


def test_a_worker_killed_after_its_claim_is_reclaimed_after_the_claim_timeout(
    stack: LocalStack, endpoint: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    (seeded,) = seed_rows(endpoint.id, clock)
    enqueue(seeded.id)
    with sender_for() as sender:
        claim = make_worker(sender, clock).claim(seeded.id)  # ... and then the worker dies
    assert isinstance(claim, Claim)
    assert row(seeded.id).status == "delivering"

    drain(stack)  # the queued message finds the row claimed and is dropped
    assert receiver.requests == []

    clock.advance(CLAIM_TIMEOUT_S - 1)
    stack.tick("Sweep")
    drain(stack)
    assert receiver.requests == []  # the claim still holds

    clock.advance(2)
    stack.tick("Sweep")
    drain(stack)

    assert attempts_seen(receiver) == {"2": 1}
    current = row(seeded.id)
    assert current.status == "succeeded"
    assert current.attempts == 2
    lost, sent = current.attempt_log
    assert (lost.attempt, lost.status_code, lost.error) == (1, None, LOST_CLAIM_ERROR)
    assert (sent.attempt, sent.status_code, sent.error) == (2, 200, None)


class KilledAfterSend(Exception):
    """Stands in for the process dying between the send and the outcome write."""


class DyingSender:
    def __init__(self, inner: Sender) -> None:
        self.inner = inner

    def post(self, url: str, body: bytes, headers: Mapping[str, str], **kw: Any) -> SendResult:
        self.inner.post(url, body, headers, **kw)
        raise KilledAfterSend


def test_a_worker_killed_after_its_send_leaves_one_request_per_attempt(
    stack: LocalStack, endpoint: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    (seeded,) = seed_rows(endpoint.id, clock)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        worker.sender = DyingSender(sender)  # type: ignore[assignment]
        with pytest.raises(KilledAfterSend):
            worker.process(seeded.id)
    assert attempts_seen(receiver) == {"1": 1}
    assert row(seeded.id).status == "delivering"

    clock.advance(CLAIM_TIMEOUT_S + 1)
    stack.tick("Sweep")
    drain(stack)

    # At least once: the receiver saw attempt 1 (outcome unknown to us) and attempt 2.
    assert attempts_seen(receiver) == {"1": 1, "2": 1}
    assert {r.header("X-Service-Event-Id") for r in receiver.requests} == {seeded.event_id}
    current = row(seeded.id)
    assert current.status == "succeeded"
    assert current.attempts == 2


def test_a_worker_that_lost_its_claim_cannot_record_an_outcome(
    endpoint: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    (seeded,) = seed_rows(endpoint.id, clock)
    with sender_for() as sender:
        slow = make_worker(sender, clock)
        stalled = slow.claim(seeded.id)
        assert isinstance(stalled, Claim)
        clock.advance(CLAIM_TIMEOUT_S + 1)
        receiver.respond(Answer(200))
        assert make_worker(sender, clock).process(seeded.id).result == "succeeded"
        receiver.respond(Answer(500))
        late = slow.deliver(stalled)
    assert late.result == "claim_lost"
    current = row(seeded.id)
    assert current.status == "succeeded"
    assert current.attempts == 2
    assert current.last_status_code == 200


def test_the_last_attempts_lost_claim_makes_the_row_dead_without_a_seventh_send(
    endpoint: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.always(Answer(500))
    (seeded,) = seed_rows(endpoint.id, clock)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        for _ in range(5):
            assert worker.process(seeded.id).result == "failed"
            clock.advance(3 * 3600)
        assert isinstance(worker.claim(seeded.id), Claim)  # attempt 6, then the worker dies
        clock.advance(CLAIM_TIMEOUT_S + 1)
        report = worker.process(seeded.id)
    assert report.result == "dead"
    assert len(receiver.requests) == 5
    current = row(seeded.id)
    assert current.status == "dead"
    assert current.attempts == 6
    assert current.attempt_log[-1].error == LOST_CLAIM_ERROR


def test_the_sweep_hands_a_row_out_once_per_grace_period(
    stack: LocalStack, endpoint: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    """A pending row whose message was lost is queued again, once, after the grace."""
    (seeded,) = seed_rows(endpoint.id, clock)  # never queued: its message was "lost"
    assert seeded.sweep_at is not None
    clock.advance(ENQUEUE_GRACE_SECONDS - 5)
    stack.tick("Sweep")
    assert row(seeded.id).sweep_at == seeded.sweep_at  # not yet

    clock.advance(10)
    assert stack.tick("Sweep")["requeued"] >= 1
    postponed = row(seeded.id).sweep_at
    assert postponed == iso_utc(clock.now() + SWEEP_GRACE_SECONDS)
    stack.tick("Sweep")
    assert row(seeded.id).sweep_at == postponed  # handed out once in this grace period

    drain(stack)
    assert len(receiver.requests) == 1
    current = row(seeded.id)
    assert current.status == "succeeded"
    assert current.sweep_at is None  # terminal rows leave the sweep index
    assert current.finished_at is not None
