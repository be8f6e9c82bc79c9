"""Two rules of delivery a receiver can observe (docs/webhooks.md, "Delivery", "Guarantees").

- The sends of one batch go out serially: never two requests of a batch in flight at once.
- The claim is committed before any network use: a receiver that reads the delivery row while
  the request is still open finds it `delivering`, claimed, with the attempt it is receiving.
"""

from __future__ import annotations

import pytest

from content_service.webhooks.endpoints import Endpoint
from content_service.webhooks.sending import LADDER_SECONDS
from harness.receiver import Answer, Received, Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.webhooks import function_runtime, row, seed_rows, sqs_event

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")


def test_the_sends_of_a_batch_go_out_one_at_a_time(
    stack: LocalStack, receiver: Receiver, clock: FakeClock, stored: Endpoint
) -> None:
    # Each answer takes a moment, so two sends of the batch in flight at once would overlap.
    receiver.always(Answer(200, delay_s=0.05))
    rows = seed_rows(stored.id, clock, count=8)

    response = function_runtime(stack, "DeliveryFunction").invoke(sqs_event(*(r.id for r in rows)))

    assert response == {"batchItemFailures": []}
    assert sorted(r.header("X-Service-Delivery") or "" for r in receiver.requests) == sorted(
        r.id for r in rows
    )
    assert receiver.max_in_flight == 1


def test_the_claim_is_committed_before_the_request_leaves(
    stack: LocalStack, receiver: Receiver, clock: FakeClock, stored: Endpoint
) -> None:
    seen: list[tuple[str | None, str, int, bool]] = []

    def read_the_row(request: Received) -> None:
        """While the sender waits for this answer: what the deliveries table says."""
        stored_row = row(request.header("X-Service-Delivery") or "")
        seen.append(
            (
                request.header("X-Service-Attempt"),
                stored_row.status,
                stored_row.attempts,
                stored_row.claim_token is not None,
            )
        )

    receiver.on_request = read_the_row
    receiver.respond(Answer(503), Answer(200))
    (seeded,) = seed_rows(stored.id, clock)
    delivery = function_runtime(stack, "DeliveryFunction")

    delivery.invoke(sqs_event(seeded.id))
    assert row(seeded.id).status == "failed"
    clock.advance(LADDER_SECONDS[0] * 2)  # past the first step of the ladder, jitter included
    delivery.invoke(sqs_event(seeded.id))

    assert seen == [("1", "delivering", 1, True), ("2", "delivering", 2, True)]
    after = row(seeded.id)
    assert (after.status, after.attempts, after.claim_token) == ("succeeded", 2, None)
