"""The health chart's figures: attempts by verdict and latency percentiles per period, kept by
the delivery workers in hourly counters and answered by `GET /api/webhooks/{id}/stats`."""

from __future__ import annotations

import math
from typing import Any

import pytest

from content_service.webhooks.deliveries import Tally, bin_value, latency_bin
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock
from tests.support.clients import WorkspaceAccess
from tests.support.webhooks import Hooks, make_worker, seed_rows, sender_for

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")


def stats(hooks: Hooks, endpoint_id: str, window: str = "24h") -> dict[str, Any]:
    response = hooks.client.get(f"/api/webhooks/{endpoint_id}/stats", params={"window": window})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_attempts_are_counted_by_verdict_in_their_hour(
    hooks: Hooks, receiver: Receiver, clock: FakeClock, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(receiver.url(), workspaces=[workspace.id])
    assert stats(hooks, created["id"])["totals"]["attempts"] == 0
    receiver.respond(Answer(200), Answer(503), Answer(410), Answer(200, delay_s=0.2))
    rows = seed_rows(created["id"], clock, count=4, step_seconds=0)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        for seeded in rows[:3]:
            worker.process(seeded.id)
        worker.flush()
        clock.advance(2 * 3600)  # two hours later: another bar
        worker.process(rows[3].id)
        worker.flush()

    day = stats(hooks, created["id"])
    assert day["window"] == "24h"
    assert day["bucketSeconds"] == 3600
    assert len(day["buckets"]) == 24
    totals = day["totals"]
    assert (totals["succeeded"], totals["failed"], totals["dead"]) == (2, 1, 1)
    assert totals["attempts"] == 4
    busy = [b for b in day["buckets"] if b["attempts"]]
    assert [(b["succeeded"], b["failed"], b["dead"]) for b in busy] == [(1, 1, 1), (1, 0, 0)]
    assert busy[1]["start"] == day["buckets"][-1]["start"]  # the current hour is the last bar
    # The slow answer (200 ms or more) is the p95; within the histogram's 10 %.
    assert busy[1]["p50Ms"] >= 200 / 1.1
    assert totals["p95Ms"] >= 200 / 1.1

    week = stats(hooks, created["id"], "7d")
    assert (week["bucketSeconds"], len(week["buckets"])) == (6 * 3600, 28)
    assert week["totals"]["attempts"] == 4


def test_an_unknown_window_is_400(hooks: Hooks, receiver: Receiver) -> None:
    created = hooks.create(receiver.url(), workspaces=[])
    response = hooks.client.get(f"/api/webhooks/{created['id']}/stats", params={"window": "1y"})
    assert response.status_code == 400


@pytest.mark.parametrize("duration", [0, 1, 7, 120, 999, 4321, 29_000, 600_000])
def test_a_percentile_is_within_ten_percent(duration: int) -> None:
    tally = Tally()
    tally.latency[latency_bin(duration)] += 1
    value = tally.percentile(0.5)
    assert value is not None
    if duration >= 1 and latency_bin(duration) < 63:
        assert abs(value - duration) / duration <= 0.1
    else:
        assert value == bin_value(latency_bin(duration))


def test_percentiles_follow_the_ranks() -> None:
    tally = Tally()
    for duration in [10] * 90 + [1000] * 10:
        tally.latency[latency_bin(duration)] += 1
    p50, p95 = tally.percentile(0.5), tally.percentile(0.95)
    assert p50 is not None
    assert p95 is not None
    assert math.isclose(p50, 10, rel_tol=0.1)
    assert math.isclose(p95, 1000, rel_tol=0.1)
