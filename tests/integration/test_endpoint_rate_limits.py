"""Per-endpoint rate limits and the 429 pause (docs/webhooks.md, "Rate limits").

- The shared window: limiters of several workers racing on one endpoint, over real DynamoDB
  conditional writes in the emulator, never put more starts in a window than the limit.
- A held delivery waits without spending an attempt; a 429's Retry-After holds the endpoint.
- The issue's figure in real time: `rateLimit` 5 and 200 events through three delivery
  containers at once; the receiver's own arrival times never hold more than 5 in a second,
  and every delivery arrives, none dead. About 40 s: the limit's own pace.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from content_service import runtime
from content_service.webhooks import services
from content_service.webhooks.endpoints import Endpoint
from content_service.webhooks.sending import WINDOW_SECONDS
from harness.receiver import Answer, Receiver
from harness.soak import delivery_containers
from harness.webhooks import FakeClock, store_endpoint
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.receiver_process import ReceiverProcess
from tests.support.webhooks import (
    Hooks,
    all_rows_for_endpoint,
    drain,
    make_worker,
    purge_endpoint,
    row,
    seed_rows,
    sender_for,
    write_events,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")


def most_in_a_window(times: Sequence[float], window: float = WINDOW_SECONDS) -> int:
    """The most of `times` any half-open window [t, t + window) holds."""
    ordered = sorted(times)
    best = 0
    for index, start in enumerate(ordered):
        inside = sum(1 for t in ordered[index:] if t < start + window)
        best = max(best, inside)
    return best


def test_limiters_of_racing_workers_share_one_window(clock: FakeClock) -> None:
    endpoint_id = "racing-" + str(time.time_ns())
    granted: list[float] = []
    lock = threading.Lock()

    def worker() -> None:
        limiter = services.rate_limiter(runtime.settings())
        for _ in range(8):
            turn = limiter.reserve(endpoint_id, 3, clock.now(), max_wait=60)
            comebacks = 0
            while turn.at is None:
                # Lost the race 20 times in a row: "heavily contended, come back shortly", as a
                # delivery worker does (a loaded machine can starve one thread that long).
                assert turn.wait == WINDOW_SECONDS, turn
                assert comebacks < 5, "one worker starved through five rounds of 20 tries"
                comebacks += 1
                turn = limiter.reserve(endpoint_id, 3, clock.now(), max_wait=60)
            with lock:
                granted.append(turn.at)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(granted) == 32
    assert most_in_a_window(granted) == 3  # never more than 3, and the window was full
    assert max(granted) - min(granted) >= 10 * WINDOW_SECONDS  # 32 starts at 3 a second


def test_a_reservation_further_than_the_wait_is_not_taken(clock: FakeClock) -> None:
    limiter = services.rate_limiter(runtime.settings())
    key = "far-" + str(time.time_ns())
    first = limiter.reserve(key, 1, clock.now(), max_wait=2)
    second = limiter.reserve(key, 1, clock.now(), max_wait=2)
    assert first.at == pytest.approx(clock.now(), abs=0.001)
    assert second.at is not None
    assert second.wait > WINDOW_SECONDS
    third = limiter.reserve(key, 1, clock.now(), max_wait=2)
    assert third.at is None  # two windows away: not taken, and the window is unchanged
    assert third.wait > 2
    clock.advance(third.wait)
    assert limiter.reserve(key, 1, clock.now(), max_wait=0).at == pytest.approx(clock.now())


def test_a_held_delivery_waits_without_spending_an_attempt(
    receiver: Receiver, clock: FakeClock
) -> None:
    created = store_endpoint(receiver.url(), rate_limit=1)
    try:
        (seeded,) = seed_rows(created.id, clock)
        limiter = services.rate_limiter(runtime.settings())
        for _ in range(3):  # other workers took the next three places (3.3 s at 1 a second)
            limiter.reserve(created.id, 1, clock.now(), max_wait=10)
        with sender_for() as sender:
            worker = make_worker(sender, clock)
            report = worker.process(seeded.id)
            assert report.result == "throttled"
            assert worker.retries == [(seeded.id, 4)]  # queued again with the wait
            held = row(seeded.id)
            assert (held.status, held.attempts, held.claim_token) == ("pending", 0, None)
            assert receiver.requests == []
            clock.advance(4)
            assert worker.process(seeded.id).result == "succeeded"
        assert row(seeded.id).attempts == 1
        assert receiver.requests[0].header("X-Service-Attempt") == "1"
    finally:
        purge_endpoint(created.id)


def test_a_429_retry_after_holds_the_whole_endpoint(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.respond(Answer(429, headers=(("Retry-After", "120"),)))
    first, second = seed_rows(stored.id, clock, count=2)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        assert worker.process(first.id).result == "failed"
        assert worker.process(second.id).result == "throttled"
        assert len(receiver.requests) == 1  # the second delivery was not sent
        held = row(second.id)
        assert (held.status, held.attempts) == ("pending", 0)
        failed = row(first.id)
        assert failed.next_attempt_at is not None
        clock.advance(121)
        assert worker.process(second.id).result == "succeeded"
        assert worker.process(first.id).result == "succeeded"
    assert [r.header("X-Service-Attempt") for r in receiver.requests] == ["1", "1", "2"]


def test_a_held_retry_keeps_its_attempt_count(
    stored: Endpoint, receiver: Receiver, clock: FakeClock
) -> None:
    receiver.respond(Answer(503), Answer(429, headers=(("Retry-After", "600"),)))
    first, second = seed_rows(stored.id, clock, count=2)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        assert worker.process(first.id).result == "failed"
        assert worker.process(second.id).result == "failed"  # the 429: held for 10 min
        clock.advance(15)  # the first's retry is due, the endpoint is still held
        assert worker.process(first.id).result == "throttled"
        held = row(first.id)
        assert (held.status, held.attempts, held.last_error) == ("failed", 1, "HTTP 503")
        assert held.next_attempt_at is not None
        clock.advance(600)
        assert worker.process(first.id).result == "succeeded"
    assert row(first.id).attempts == 2


@pytest.mark.parametrize("limit", [0, -1, 1001, "5", 1.5, True])
def test_a_rate_limit_outside_1_to_1000_is_refused(
    hooks: Hooks, receiver: Receiver, limit: Any
) -> None:
    response = hooks.client.post("/api/webhooks", json={"url": receiver.url(), "rateLimit": limit})
    assert response.status_code == 422, response.text


def test_the_rate_limit_is_set_changed_and_removed(hooks: Hooks, receiver: Receiver) -> None:
    created = hooks.create(receiver.url(), workspaces=[], rateLimit=5)
    assert created["rateLimit"] == 5
    assert created["pausedUntil"] is None
    assert hooks.patch(created["id"], rateLimit=50)["rateLimit"] == 50
    assert hooks.patch(created["id"], enabled=True)["rateLimit"] == 50  # left out: kept
    assert hooks.patch(created["id"], rateLimit=None)["rateLimit"] is None  # null: no limit


@pytest.mark.slow
def test_rate_limit_5_and_200_events_never_more_than_5_a_second_and_all_arrive(
    stack: LocalStack, hooks: Hooks, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    with ReceiverProcess() as receiver:
        created = hooks.create(receiver.url(), workspaces=[workspace.id], rateLimit=5)

        def publish_burst() -> None:
            write_events(200, workspace_id=workspace.id, kind="entry.updated")
            drain_fan_out(stack)

        deliver_until(
            stack,
            lambda: len(receiver.arrivals) >= 200,
            containers=3,
            limit_s=150,
            meanwhile=publish_burst,
        )
    arrivals = [a["at"] for a in receiver.arrivals]
    assert len(arrivals) == 200
    assert most_in_a_window(arrivals) <= 5
    rows = all_rows_for_endpoint(created["id"])
    assert len(rows) == 200
    assert {r.status for r in rows} == {"succeeded"}
    assert {r.attempts for r in rows} == {1}  # nothing was spent on waiting
    assert len({a["delivery"] for a in receiver.arrivals}) == 200


def drain_fan_out(stack: LocalStack) -> None:
    """Runs the stream poller alone: the rows exist and are queued, none is sent yet."""
    assert stack.pollers is not None
    while any(poller.poll_once() for poller in stack.pollers.streams):
        pass


def deliver_until(
    stack: LocalStack,
    done_when: Callable[[], bool],
    *,
    containers: int,
    limit_s: float,
    meanwhile: Callable[[], None] = lambda: None,
) -> None:
    """Delivery containers working the queue at once, as Lambda's would, while `meanwhile`
    runs (the events written and fanned out), until `done_when` (or `limit_s` passed)."""
    pollers = delivery_containers(stack, containers)
    done = threading.Event()
    errors: list[BaseException] = []

    def feed() -> None:
        try:
            meanwhile()
        except BaseException as error:
            errors.append(error)
            done.set()

    def work(poller: Any) -> None:
        try:
            while not done.is_set():
                if not poller.poll_once():
                    time.sleep(0.05)
        except BaseException as error:
            errors.append(error)
            done.set()

    threads = [threading.Thread(target=work, args=(p,)) for p in pollers]
    threads.append(threading.Thread(target=feed))
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + limit_s
    while not done_when() and time.monotonic() < deadline and not done.is_set():
        time.sleep(0.2)
    done.set()
    for thread in threads:
        thread.join()
    drain(stack)  # anything the containers left half-way
    assert not errors, errors
