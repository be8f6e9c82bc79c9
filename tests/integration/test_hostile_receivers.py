"""Hostile receivers: answers crafted to break the delivery row or fake a success.

- A status code that is not exactly three ASCII digits (`2_00`, `+204`, `20`, ...) is "no
  status": a failed attempt, retried; Python's `int()` would have read `2_00` as 200.
- A 64 KB status line and a 64 KB header: every text the row keeps stays within its bound (error
  1 KB, headers 4 KB, snippet `responseSnippetBytes`), every outcome write succeeds and the row
  follows the retry ladder through all six attempts to `dead`.

Real sockets on 127.0.0.1 (tests/support/raw_receiver.py), the delivery worker the handler
builds, an injected clock and seeded jitter; rows are seeded without queuing.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from content_service.clock import parse_iso_utc
from content_service.storage import aws
from content_service.webhooks.endpoints import UrlPolicy
from content_service.webhooks.sending import (
    ERROR_BYTES,
    HEADERS_BYTES,
    LADDER_SECONDS,
    Sender,
    headers_size,
)
from harness.webhooks import FakeClock, store_endpoint
from tests.support.raw_receiver import RawReceiver, answer
from tests.support.resolver import FakeResolver
from tests.support.settings import webhook_options
from tests.support.webhooks import (
    make_worker,
    purge_endpoint,
    row,
    seed_rows,
    sender_for,
    settings,
)

pytestmark = pytest.mark.usefixtures("stack")

LOCAL = UrlPolicy(allow_insecure_urls=True, allow_private_networks=True)
BODY = b'{"id":"d1","event":"ping"}'
KB64 = 64 * 1024


@pytest.fixture
def raw() -> Iterator[RawReceiver]:
    with RawReceiver() as running:
        yield running


@pytest.fixture
def options() -> Iterator[None]:
    with webhook_options(
        allow_insecure_urls=True, allow_private_networks=True, response_snippet_bytes=2048
    ):
        yield


MALFORMED = [
    b"2_00",
    b"+204",
    b"20",
    b"2000",
    b"20x",
    b"-200",
    b"0x0C8",
    b"\xd9\xa2\xd9\xa0\xd9\xa0",
]


@pytest.mark.parametrize("code", MALFORMED, ids=[c.decode("latin-1") for c in MALFORMED])
def test_a_status_code_that_is_not_three_digits_is_no_status(code: bytes, raw: RawReceiver) -> None:
    raw.respond(answer(b"HTTP/1.1 " + code + b" OK", body=b"fine"))
    with Sender(LOCAL, resolver=FakeResolver({"hook.test": ["127.0.0.1"]})) as sender:
        result = sender.post(f"http://hook.test:{raw.port}/hook", BODY, {})
    assert result.status_code is None, result
    assert not result.ok
    assert result.error is not None
    assert "invalid HTTP response" in result.error
    assert len(raw.requests) == 1


def test_three_digits_are_still_a_status(raw: RawReceiver) -> None:
    """The check refuses only what is not three digits: the same answer with `204` succeeds."""
    raw.respond(answer(b"HTTP/1.1 204 No Content"), answer(b"HTTP/1.1 503"))
    with Sender(LOCAL, resolver=FakeResolver({"hook.test": ["127.0.0.1"]})) as sender:
        first = sender.post(f"http://hook.test:{raw.port}/hook", BODY, {})
        second = sender.post(f"http://hook.test:{raw.port}/hook", BODY, {})
    assert (first.status_code, first.ok) == (204, True)
    assert second.status_code == 503


def test_2_00_through_the_worker_is_retried_not_succeeded(
    raw: RawReceiver, clock: FakeClock, options: None
) -> None:
    raw.respond(answer(b"HTTP/1.1 2_00 OK"))
    endpoint = store_endpoint(raw.url())
    try:
        (seeded,) = seed_rows(endpoint.id, clock)
        with sender_for() as sender:
            report = make_worker(sender, clock).process(seeded.id)
        current = row(seeded.id)
        assert report.result == "failed"
        assert current.status == "failed"
        assert current.last_status_code is None
        assert current.next_attempt_at is not None
    finally:
        purge_endpoint(endpoint.id)


def _stored_item_bytes(delivery_id: str) -> int:
    """The row as DynamoDB stores it, as JSON text: an upper bound of its billed size."""
    current = settings()
    item = aws.dynamodb(current).get_item(
        TableName=current.tables.deliveries, Key={"id": {"S": delivery_id}}, ConsistentRead=True
    )["Item"]
    return len(json.dumps(item, ensure_ascii=False).encode())


def test_64_kb_status_line_and_header_keep_the_row_bounded_and_the_ladder_intact(
    raw: RawReceiver, clock: FakeClock, options: None
) -> None:
    long_status = answer(b"HTTP/1.1 200 " + b"x" * KB64)
    long_code = answer(b"HTTP/1.1 2" + b"0" * (KB64 - 20))
    long_header = answer(
        b"HTTP/1.1 503 Service Unavailable",
        [b"X-Padding: " + b"p" * (KB64 - 100), b"X-After: seen?"],
        body=b"b" * KB64,
    )
    raw.respond(long_code, long_header, long_status, long_header, long_code, long_header)
    endpoint = store_endpoint(raw.url())
    try:
        (seeded,) = seed_rows(endpoint.id, clock)
        with sender_for() as sender:
            worker = make_worker(sender, clock, random.Random(64))
            for attempt in range(1, 7):
                report = worker.process(seeded.id)
                worker.retries.clear()
                current = row(seeded.id)
                # The outcome was written: the claim did not linger into a reclaim.
                assert report.result in ("failed", "dead"), report
                assert current.attempts == attempt
                assert len(current.attempt_log) == attempt
                log = current.attempt_log[-1]
                assert log.attempt == attempt
                assert current.last_error is not None
                assert len(current.last_error.encode()) <= ERROR_BYTES
                for entry in current.attempt_log:
                    assert entry.error is not None
                    assert len(entry.error.encode()) <= ERROR_BYTES
                    assert headers_size(entry.response_headers) <= HEADERS_BYTES
                    assert len((entry.response_snippet or "").encode()) <= 2048
                assert len((current.response_snippet or "").encode()) <= 2048
                assert _stored_item_bytes(seeded.id) < 48 * 1024
                if attempt % 2 == 0:  # the 64 KB header: a 503 with its headers kept, cut
                    assert log.status_code == 503
                    assert headers_size(log.response_headers) > HEADERS_BYTES - 100
                    assert log.response_headers[0][0] == "X-Padding"
                else:  # the 64 KB status line: no status at all
                    assert log.status_code is None
                    assert "invalid HTTP response" in (log.error or "")
                if attempt == 6:
                    assert current.status == "dead"
                    assert current.next_attempt_at is None
                    break
                assert current.status == "failed"
                assert current.next_attempt_at is not None
                wait = parse_iso_utc(current.next_attempt_at) - clock.now()
                step = LADDER_SECONDS[attempt - 1]
                assert 0.8 * step - 0.002 <= wait <= 1.2 * step + 0.002, (attempt, wait)
                clock.t = parse_iso_utc(current.next_attempt_at) + 0.001
        assert len(raw.requests) == 6
    finally:
        purge_endpoint(endpoint.id)
