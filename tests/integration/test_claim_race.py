"""Many workers claiming the same rows at the same moment: each row is claimed exactly once.

The claim is one conditional UpdateItem (docs/webhooks.md, "State machine"). DynamoDB evaluates the
condition and writes atomically; moto does not on its own (infra/moto_transactions.py makes it), and
the soak's concurrent delivery containers found the difference: one attempt sent twice.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from content_service.clock import iso_utc
from content_service.webhooks import services
from content_service.webhooks.deliveries import Claim
from harness.webhooks import FakeClock, store_endpoint
from tests.support.webhooks import delete_rows, seed_rows, settings

pytestmark = pytest.mark.usefixtures("stack")

WORKERS = 4
ROWS = 100


def test_concurrent_claims_of_the_same_rows_win_once_each() -> None:
    clock = FakeClock()
    endpoint = store_endpoint("https://receiver.test/hook")
    rows = seed_rows(endpoint.id, clock, count=ROWS, step_seconds=0)
    store = services.delivery_store(settings())
    now = clock.now()
    won: Counter[str] = Counter()
    attempts: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(WORKERS)

    def work() -> None:
        barrier.wait()
        for row in rows:
            claimed = store.claim(row.id, iso_utc(now), iso_utc(now - 30), iso_utc(now + 30))
            if isinstance(claimed, Claim):
                with lock:
                    won[row.id] += 1
                    attempts.append(claimed.attempt)

    threads = [threading.Thread(target=work) for _ in range(WORKERS)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert won == Counter({row.id: 1 for row in rows})
        assert set(attempts) == {1}
        assert {store.get(row.id).attempts for row in rows} == {1}  # type: ignore[union-attr]
    finally:
        delete_rows(row.id for row in rows)
        services.endpoint_store(settings()).delete(endpoint.id)
