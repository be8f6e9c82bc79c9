"""Fixtures for the webhook tests, loaded for every test by tests/conftest.py's `pytest_plugins`
(helpers live in tests/support/webhooks.py).

- `clock`: an injected clock (starts at the real time, moves only when told) for the API, the
  fan-out, delivery and scheduler handlers alike, so retries are stepped through, not slept.
- `fixed_rng`: a seeded random source for the jitter.
- `receiver`: a real HTTP receiver on 127.0.0.1 (harness/receiver.py).
- `receiving`: a fresh workspace, `hooks` and `receiver`, with receivers on 127.0.0.1 allowed.
- `hooks`: the webhooks API as the signed-in admin; endpoints it creates are deleted after the
  test, so an `allWorkspaces` endpoint never catches a later test's events.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from content_service.webhooks import wiring
from content_service.webhooks.endpoints import Endpoint
from harness.receiver import Receiver
from harness.webhooks import FakeClock, store_endpoint
from tests.support.clients import WorkspaceAccess, sign_in
from tests.support.webhooks import Hooks, Receiving, purge_endpoint


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    """The injected clock; a worker waiting for an endpoint's turn advances it."""
    fake = FakeClock()
    with wiring.overridden(clock=fake, sleep=fake.advance):
        yield fake


@pytest.fixture
def fixed_rng() -> Iterator[random.Random]:
    rng = random.Random(20240501)
    with wiring.overridden(rng=rng):
        yield rng


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


@pytest.fixture
def stored(receiver: Receiver) -> Iterator[Endpoint]:
    """An endpoint that delivers to this test's receiver, purged afterwards."""
    created = store_endpoint(receiver.url())
    yield created
    purge_endpoint(created.id)


@pytest.fixture(scope="module")
def admin_session(base_url: str, credentials: dict[str, Any]) -> Iterator[httpx.Client]:
    """The bootstrap admin signed in once per module (signing in costs a slow hash)."""
    with httpx.Client(base_url=base_url, headers={"Origin": base_url}, timeout=30) as client:
        sign_in(client, credentials["admin"]["email"], credentials["admin"]["password"])
        yield client


@pytest.fixture
def hooks(admin_session: httpx.Client) -> Iterator[Hooks]:
    api = Hooks(admin_session)
    yield api
    api.cleanup()


@pytest.fixture
def receiving(
    hooks: Hooks,
    receiver: Receiver,
    new_workspace: Callable[..., WorkspaceAccess],
    local_receivers_allowed: None,
) -> Receiving:
    """What a test of deliveries to a receiver starts from; the workspace is made last."""
    return Receiving(new_workspace(), hooks, receiver)
