"""The fault matrix and retry ladder (docs/webhooks.md, "Delivery") and SSRF at send time, on the
delivery core.

Each case drives a real receiver on 127.0.0.1 (or a closed port, an unresolvable name, a name
that resolves to a private address) through the delivery worker the handler builds, with an
injected clock and seeded jitter: every verdict, attempt count and `nextAttemptAt` window is
checked against docs/webhooks.md, stepping through the whole ladder where the answer is retryable.
Rows are seeded without queuing, so nothing here leaks into another test's `drain()`.
"""

from __future__ import annotations

import email.utils
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from content_service.clock import parse_iso_utc
from content_service.webhooks import wiring
from content_service.webhooks.sending import LADDER_SECONDS, RETRY_AFTER_CAP_SECONDS
from harness.receiver import Answer, Receiver, refused_port
from harness.webhooks import FakeClock, store_endpoint
from tests.support.clients import WorkspaceAccess
from tests.support.resolver import FakeResolver
from tests.support.settings import webhook_options
from tests.support.webhooks import (
    HOSTILE_URLS,
    Hooks,
    hostile_resolver,
    make_worker,
    purge_endpoint,
    row,
    seed_rows,
    sender_for,
)

pytestmark = pytest.mark.usefixtures("stack")

# Short for the timeout case alone; the other cases get a generous timeout so a loaded machine
# cannot turn a prompt answer into a timeout.
TIMEOUT_MS = 300
GENEROUS_TIMEOUT_MS = 5000
MAX_ATTEMPTS = 6


@dataclass(frozen=True)
class Case:
    name: str
    answer: Answer | None  # None: the URL itself fails (closed port, DNS, policy)
    url: str | None = None  # None: the receiver's URL
    verdict: str = "failed"  # after the first attempt
    retry_after: float | None = None  # honoured wait per attempt, before the ladder's max
    status: int | None = None
    error: str | None = None


def _http_date(seconds_from_now: float, clock: FakeClock) -> str:
    return email.utils.formatdate(int(clock.now()) + 1 + seconds_from_now, usegmt=True)


CASES = [
    Case("200", Answer(200, b"ok"), verdict="succeeded", status=200),
    Case("204", Answer(204), verdict="succeeded", status=204),
    Case(
        "301",
        Answer(301, headers=(("Location", "/elsewhere"),)),
        status=301,
        error="redirects are not followed",
    ),
    Case("400", Answer(400, b"bad"), verdict="dead", status=400, error="final"),
    Case("404", Answer(404), verdict="dead", status=404, error="final"),
    Case(
        "408 Retry-After 120",
        Answer(408, headers=(("Retry-After", "120"),)),
        retry_after=120,
        status=408,
    ),
    Case(
        "408 Retry-After capped",
        Answer(408, headers=(("Retry-After", "86400"),)),
        retry_after=RETRY_AFTER_CAP_SECONDS,
        status=408,
    ),
    Case("410", Answer(410), verdict="dead", status=410, error="final"),
    Case("429", Answer(429), status=429),
    Case(
        "429 Retry-After 90",
        Answer(429, headers=(("Retry-After", "90"),)),
        retry_after=90,
        status=429,
    ),
    Case("500", Answer(500, b"boom"), status=500),
    Case(
        "503 Retry-After ignored",
        Answer(503, headers=(("Retry-After", "3000"),)),
        status=503,
    ),
    Case("timeout", Answer(hang_s=5), error=f"timed out after {TIMEOUT_MS} ms"),
    Case("refused", None, url="http://127.0.0.1:{refused}/hook", error="connection refused"),
    Case("unresolvable", None, url="http://gone.test/hook", error="could not resolve"),
    Case(
        "private name",
        None,
        url="http://inside.test:{port}/hook",
        error="refused by the URL policy",
    ),
]


@pytest.fixture
def options() -> Iterator[None]:
    with webhook_options(
        allow_insecure_urls=True,
        allow_private_networks=True,
        timeout_ms=GENEROUS_TIMEOUT_MS,
        claim_timeout_ms=2 * GENEROUS_TIMEOUT_MS,
    ):
        yield


def _window(attempt: int, case: Case) -> tuple[float, float]:
    step = LADDER_SECONDS[attempt - 1]
    low, high = 0.8 * step, 1.2 * step
    if case.retry_after is not None:
        low, high = max(low, case.retry_after), max(high, case.retry_after)
    return low, high


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fault_matrix(case: Case, receiver: Receiver, clock: FakeClock, options: None) -> None:
    receiver.always(case.answer or Answer(200))
    port = receiver.port
    url = (case.url or "http://127.0.0.1:{port}/hook").format(port=port, refused=refused_port())
    resolver = FakeResolver({"inside.test": ["10.0.0.7", "127.0.0.1"]})
    endpoint = store_endpoint(url)
    try:
        (seeded,) = seed_rows(endpoint.id, clock)
        timeout = TIMEOUT_MS if case.name == "timeout" else GENEROUS_TIMEOUT_MS
        with webhook_options(
            allow_private_networks=case.name != "private name", timeout_ms=timeout
        ):
            _run_ladder(case, seeded.id, resolver, clock, receiver)
    finally:
        purge_endpoint(endpoint.id)


def _run_ladder(
    case: Case, delivery_id: str, resolver: FakeResolver, clock: FakeClock, receiver: Receiver
) -> None:
    rng = random.Random(hash(case.name) & 0xFFFF)
    with sender_for(resolver) as sender:
        worker = make_worker(sender, clock, rng)
        for attempt in range(1, MAX_ATTEMPTS + 1):
            sent_before = len(receiver.requests)
            report = worker.process(delivery_id)
            now = clock.now()
            current = row(delivery_id)
            assert report.attempt == attempt
            assert current.attempts == attempt
            assert current.last_status_code == case.status
            log = current.attempt_log[-1]
            assert (log.attempt, log.status_code) == (attempt, case.status)
            assert log.duration_ms is not None
            if case.answer is not None:
                # One request per attempt, never a followed redirect.
                assert len(receiver.requests) == sent_before + 1
                assert receiver.requests[-1].path == "/hook"
                assert receiver.requests[-1].header("X-Service-Attempt") == str(attempt)
            else:
                assert len(receiver.requests) == sent_before
            if case.error is not None:
                assert current.last_error is not None
                assert case.error in current.last_error, current.last_error
                assert log.error is not None

            gave_up = attempt == MAX_ATTEMPTS and case.verdict == "failed"
            expected = "dead" if gave_up else case.verdict
            assert current.status == expected, (attempt, current)
            assert report.result == expected
            if expected != "failed":
                assert current.next_attempt_at is None
                assert current.sweep_at is None
                assert current.finished_at is not None
                if case.verdict == "failed":
                    assert attempt == MAX_ATTEMPTS
                return

            assert current.next_attempt_at is not None
            wait = parse_iso_utc(current.next_attempt_at) - now
            low, high = _window(attempt, case)
            assert low - 0.002 <= wait <= high + 0.002, (attempt, wait, low, high)
            # Short waits are queued again with an SQS delay; longer ones wait for the sweep.
            queued = dict(worker.retries)
            if wait <= 900:
                # nextAttemptAt is kept to the millisecond.
                assert wait - 0.002 <= queued[delivery_id] < wait + 1
            else:
                assert delivery_id not in queued
            worker.retries.clear()

            # Not due yet: a message arriving early makes no attempt.
            early = worker.process(delivery_id)
            assert early.result == "skipped_not_due"
            assert row(delivery_id).attempts == attempt
            clock.t = parse_iso_utc(current.next_attempt_at) + 0.001
        raise AssertionError("the ladder did not end")


def test_retry_after_as_an_http_date(receiver: Receiver, clock: FakeClock, options: None) -> None:
    endpoint = store_endpoint(receiver.url())
    try:
        (seeded,) = seed_rows(endpoint.id, clock)
        receiver.always(Answer(429, headers=(("Retry-After", _http_date(600, clock)),)))
        with sender_for() as sender:
            make_worker(sender, clock).process(seeded.id)
        current = row(seeded.id)
        assert current.status == "failed"
        assert current.next_attempt_at is not None
        wait = parse_iso_utc(current.next_attempt_at) - clock.now()
        assert 599 <= wait <= 601  # HTTP dates have whole seconds
    finally:
        purge_endpoint(endpoint.id)


def test_response_snippet_is_cut_at_response_snippet_bytes(
    receiver: Receiver, clock: FakeClock, options: None
) -> None:
    receiver.always(Answer(500, "é".encode() * 100))
    endpoint = store_endpoint(receiver.url())
    try:
        (seeded,) = seed_rows(endpoint.id, clock)
        with webhook_options(response_snippet_bytes=11), sender_for() as sender:
            make_worker(sender, clock).process(seeded.id)
        current = row(seeded.id)
        assert current.response_snippet is not None
        assert current.response_snippet.encode()[:10] == "é".encode() * 5
        assert len(current.response_snippet) <= 6
        assert current.last_duration_ms is not None
    finally:
        purge_endpoint(endpoint.id)


# -- SSRF at send time -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "answers", "reason"), HOSTILE_URLS, ids=[h[0] for h in HOSTILE_URLS]
)
def test_hostile_url_at_send_time_is_a_failed_attempt_without_status(
    template: str,
    answers: list[str] | None,
    reason: str,
    receiver: Receiver,
    clock: FakeClock,
) -> None:
    """The endpoint's URL (or its DNS) turned hostile after creation: nothing reaches it."""
    url = template.format(port=receiver.port)
    endpoint = store_endpoint(url)
    try:
        (seeded,) = seed_rows(endpoint.id, clock)
        with (
            webhook_options(allow_insecure_urls=True, allow_private_networks=False),
            sender_for(hostile_resolver(receiver.port)) as sender,
        ):
            worker = make_worker(sender, clock)
            report = worker.process(seeded.id)
        current = row(seeded.id)
        assert report.result == "failed"
        assert current.status == "failed"
        assert current.attempts == 1
        assert current.last_status_code is None
        assert current.last_error is not None
        assert "refused by the URL policy" in current.last_error
        assert reason in current.last_error
        assert current.next_attempt_at is not None  # retried on the ladder
        assert dict(worker.retries)[seeded.id] <= 12
        assert receiver.requests == []
    finally:
        purge_endpoint(endpoint.id)


def test_dns_rebinding_after_create_is_refused_at_send_time(
    receiver: Receiver, clock: FakeClock, hooks: Hooks, new_workspace: Any
) -> None:
    """Created through the API while the name is public; then it resolves to loopback."""
    workspace: WorkspaceAccess = new_workspace()
    url = f"http://rebinding.test:{receiver.port}/hook"
    resolver = FakeResolver({"rebinding.test": ["93.184.215.14"]})
    with webhook_options(allow_insecure_urls=True), wiring.overridden(resolver=resolver):
        created = hooks.create(url, workspaces=[workspace.id])
        resolver.answer("rebinding.test", ["93.184.215.14", "127.0.0.1"])
        (seeded,) = seed_rows(created["id"], clock)
        with sender_for(resolver) as sender:
            make_worker(sender, clock).process(seeded.id)
    current = row(seeded.id)
    assert current.status == "failed"
    assert current.last_status_code is None
    assert current.last_error is not None
    assert "127.0.0.1" in current.last_error
    assert receiver.requests == []
