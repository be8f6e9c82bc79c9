"""Sign-in throttling over real HTTP: per account and per client address, counted in DynamoDB."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from content_service.identity import sign_in_throttle
from content_service.identity.sign_in_throttle import (
    ACCOUNT_LIMIT,
    ADDRESS_LIMIT,
    FIRST_DELAY_SECONDS,
    MAX_DELAY_SECONDS,
    Counter,
    delay_after,
)
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.cli import run_cli
from tests.support.clients import ClientFactory

LOOPBACK = "127.0.0.1"


@pytest.fixture
def clock(stack: LocalStack) -> Iterator[FakeClock]:
    fake = FakeClock()
    with sign_in_throttle.clock_overridden(fake):
        yield fake
    # This file's failures come from the loopback address every test uses: forget them.
    sign_in_throttle.unlock(sign_in_throttle.address(LOOPBACK))


def new_user(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    email, password = f"throttle-{uuid.uuid4().hex[:10]}@example.com", uuid.uuid4().hex
    assert run_cli("user", "create", "--email", email, "--password", password) == 0
    capsys.readouterr()
    return email, password


def attempt(client: httpx.Client, email: str, password: str) -> httpx.Response:
    return client.post(
        "/login", data={"email": email, "password": password}, follow_redirects=False
    )


def fail(client: httpx.Client, email: str, times: int) -> None:
    for _ in range(times):
        assert attempt(client, email, "wrong password").status_code == 401


def test_ten_failures_lock_the_account_even_for_the_right_password(
    make_client: ClientFactory, capsys: pytest.CaptureFixture[str], clock: FakeClock
) -> None:
    email, password = new_user(capsys)
    other_email, other_password = new_user(capsys)
    unknown = f"nobody-{uuid.uuid4().hex[:10]}@example.com"
    client = make_client()
    fail(client, email, ACCOUNT_LIMIT)

    refused = attempt(client, email, password)
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == str(FIRST_DELAY_SECONDS)
    assert "Too many sign-in attempts" in refused.text
    assert "session" not in refused.cookies
    assert attempt(client, other_email, other_password).status_code == 303

    # An address nobody signed up with is throttled the same way: the answer tells nothing.
    fail(client, unknown, ACCOUNT_LIMIT)
    same = attempt(client, unknown, password)
    assert (same.status_code, same.headers["Retry-After"], same.text) == (
        refused.status_code,
        refused.headers["Retry-After"],
        refused.text,
    )

    clock.advance(FIRST_DELAY_SECONDS - 1)
    assert attempt(client, email, password).headers["Retry-After"] == "1"
    clock.advance(1)
    assert attempt(client, email, password).status_code == 303
    # The success cleared the count: one more failure does not lock the account again.
    fail(client, email, 1)
    assert attempt(client, email, password).status_code == 303


def test_user_unlock_clears_the_account(
    make_client: ClientFactory, capsys: pytest.CaptureFixture[str], clock: FakeClock
) -> None:
    email, password = new_user(capsys)
    client = make_client()
    fail(client, email, ACCOUNT_LIMIT)
    assert attempt(client, email, password).status_code == 429

    assert run_cli("user", "unlock", "--email", email.upper()) == 0
    assert json.loads(capsys.readouterr().out) == {"unlocked": {"email": email}}
    assert attempt(client, email, password).status_code == 303


def test_parallel_guesses_are_counted_one_by_one(
    make_client: ClientFactory, capsys: pytest.CaptureFixture[str], clock: FakeClock
) -> None:
    """Each attempt is counted before its password is checked, by a conditional write: guesses
    sent at once (as from many instances) get no more than the limit between them."""
    email, _ = new_user(capsys)
    clients = [make_client() for _ in range(5)]

    def guess(index: int) -> int:
        return attempt(clients[index % len(clients)], email, f"guess {index}").status_code

    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        statuses = list(pool.map(guess, range(ACCOUNT_LIMIT + 5)))
    assert sorted(statuses) == [401] * ACCOUNT_LIMIT + [429] * 5


def test_the_delay_doubles_with_each_further_failure_up_to_fifteen_minutes(
    clock: FakeClock,
) -> None:
    account = sign_in_throttle.account(f"double-{uuid.uuid4().hex[:10]}@example.com")
    for _ in range(ACCOUNT_LIMIT):
        assert not sign_in_throttle.admit((account,)).refused
    waits = [sign_in_throttle.admit((account,)).retry_after]
    for _ in range(6):
        clock.advance(MAX_DELAY_SECONDS)
        assert not sign_in_throttle.admit((account,)).refused  # one more (failed) attempt
        waits.append(sign_in_throttle.admit((account,)).retry_after)
    assert waits == [60, 120, 240, 480, 900, 900, 900]
    assert [delay_after(n, ACCOUNT_LIMIT) for n in (9, 10, 11, 14)] == [0, 60, 120, 900]
    clock.advance(sign_in_throttle.FORGET_AFTER_SECONDS)
    for _ in range(ACCOUNT_LIMIT):
        assert not sign_in_throttle.admit((account,)).refused  # a day later: forgotten


def test_an_address_is_throttled_across_accounts(clock: FakeClock) -> None:
    """A client address spraying many accounts is stopped at its own, higher limit (here a
    small one, to stay quick); a success from it takes back only its own attempt."""
    assert sign_in_throttle.address("198.51.100.7").limit == ADDRESS_LIMIT == 100
    address = Counter(f"SIGNIN_ADDRESS#test-{uuid.uuid4()}", 5)
    for index in range(address.limit):
        account = sign_in_throttle.account(f"spray-{index}-{uuid.uuid4().hex[:6]}@example.com")
        assert not sign_in_throttle.admit((account, address)).refused
        if index == 2:
            sign_in_throttle.succeeded(account, address)
            assert not sign_in_throttle.admit((account, address)).refused
    fresh = sign_in_throttle.account(f"fresh-{uuid.uuid4().hex[:6]}@example.com")
    assert sign_in_throttle.admit((fresh, address)).retry_after == FIRST_DELAY_SECONDS
    sign_in_throttle.unlock(address)
