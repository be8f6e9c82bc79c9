"""The scheduler's jobs through its handler: the minute sweep of retries and the hourly prune."""

from __future__ import annotations

import pytest

from content_service.clock import iso_utc, parse_iso_utc
from content_service.storage import aws
from content_service.webhooks import services
from content_service.webhooks.deliveries import PRUNE_CONTROL_ID, DeliveryRow
from content_service.webhooks.endpoints import Endpoint
from content_service.webhooks.sending import RETRY_SWEEP_GRACE_SECONDS
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.settings import webhook_options
from tests.support.webhooks import (
    drain,
    function_runtime,
    make_worker,
    row,
    seed_rows,
    sender_for,
    settings,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")

DAY = 86400


def test_a_failed_row_beyond_the_queue_delay_is_retried_by_the_sweep(
    stack: LocalStack, stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.respond(*[Answer(500)] * 4)
    (seeded,) = seed_rows(stored.id, clock)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        for _ in range(4):
            worker.process(seeded.id)
            clock.t = parse_iso_utc(row(seeded.id).next_attempt_at or "") + 0.001
        # Attempts 1-3 were queued again with a delay; attempt 4's wait (30 min +/- 20 %) is
        # longer than an SQS delay allows.
        assert len(worker.retries) == 3
    failed = row(seeded.id)
    assert failed.status == "failed"
    assert failed.attempts == 4
    assert failed.sweep_at == failed.next_attempt_at  # no delayed message: the sweep's job

    drain(stack)
    assert len(receiver.requests) == 4  # nothing queued for it
    stack.tick("Sweep")
    drain(stack)

    assert receiver.requests[-1].header("X-Service-Attempt") == "5"
    assert row(seeded.id).status == "succeeded"


def test_a_failed_row_with_a_delayed_message_is_swept_only_after_a_grace(
    stack: LocalStack, stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.respond(Answer(500))
    (seeded,) = seed_rows(stored.id, clock)
    with sender_for() as sender:
        make_worker(sender, clock).process(seeded.id)  # its delayed message is not sent
    failed = row(seeded.id)
    assert failed.next_attempt_at is not None
    assert failed.sweep_at == iso_utc(
        parse_iso_utc(failed.next_attempt_at) + RETRY_SWEEP_GRACE_SECONDS
    )

    clock.t = parse_iso_utc(failed.next_attempt_at) + 1
    stack.tick("Sweep")
    drain(stack)
    assert len(receiver.requests) == 1  # the delayed message is expected to do it

    clock.advance(RETRY_SWEEP_GRACE_SECONDS)
    stack.tick("Sweep")
    drain(stack)
    assert len(receiver.requests) == 2  # it did not: the sweep did
    assert row(seeded.id).status == "succeeded"


@pytest.fixture
def fresh_prune_slot() -> None:
    current = settings()
    aws.dynamodb(current).delete_item(
        TableName=current.tables.deliveries, Key={"id": {"S": PRUNE_CONTROL_ID}}
    )


@pytest.mark.usefixtures("fresh_prune_slot")
def test_prune_respects_retention_days_and_runs_once_an_hour(
    stack: LocalStack, stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.respond(Answer(200), Answer(410), Answer(500), Answer(200))
    old_ok, old_dead, old_failed, old_pending, recent_ok = seed_rows(stored.id, clock, count=5)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        for seeded in (old_ok, old_dead, old_failed):
            worker.process(seeded.id)
        finished_at = clock.now()
        clock.advance(2 * DAY)
        worker.process(recent_ok.id)
    assert row(old_ok.id).finished_at is not None
    expires = aws.dynamodb(settings()).get_item(
        TableName=settings().tables.deliveries, Key={"id": {"S": old_ok.id}}
    )["Item"]["expiresAt"]["N"]
    assert abs(int(expires) - (finished_at + 30 * DAY)) <= 2  # TTL does it on AWS

    clock.t = finished_at + 30 * DAY + 60
    with webhook_options(retention_days=0):
        skipped = stack.tick("Prune")["skipped"]
        assert skipped == "retentionDays is 0: deliveries are kept forever"
    for seeded in (old_ok, old_dead):
        assert row(seeded.id).status in ("succeeded", "dead")

    result = stack.tick("Prune")
    assert result["deleted"] >= 2
    assert row_or_none(old_ok.id) is None
    assert row_or_none(old_dead.id) is None
    assert row(old_failed.id).status == "failed"  # never pruned: not finished
    assert row(old_pending.id).status == "pending"
    assert row(recent_ok.id).status == "succeeded"  # finished 28 days ago

    clock.advance(3 * DAY)
    assert stack.tick("Prune")["deleted"] >= 1
    assert row_or_none(recent_ok.id) is None
    assert stack.tick("Prune")["skipped"] == "already pruned this hour"


def row_or_none(delivery_id: str) -> DeliveryRow | None:
    return services.delivery_store(settings()).get(delivery_id)


def test_an_unknown_job_is_refused(stack: LocalStack) -> None:
    scheduler = function_runtime(stack, "SchedulerFunction")
    with pytest.raises(ValueError, match="unknown job"):
        scheduler.invoke({"job": "reindex"})
