"""The soak (harness/soak.py, `make soak`) in small: two dozen events through the whole ladder.

The same `run_soak` on the test session's stack: five real receivers (healthy, flaky, timing
out, slow, healthy), concurrent delivery containers, duplicated messages, the injected clock
moved through every step of the retry ladder with the real sweep. Every row must end by the
rules and reconcile with what the receivers got. After the last step nothing is left to retry,
and the endpoint that never answers has been disabled after `autoDisableAfter` dead deliveries
in a row, its other rows dead without a sixth send.
"""

from __future__ import annotations

import pytest

from harness.soak import SoakConfig, run_soak
from infra.local_stack import LocalStack
from tests.support.settings import webhook_options
from tests.support.webhooks import endpoint, purge_endpoint

EVENTS = 24
AUTO_DISABLE_AFTER = 10  # 20 by default: fewer events see the rule at work
MAX_ATTEMPTS = 6


# Powertools warns when a container flushes the metric set another container just flushed.
@pytest.mark.filterwarnings("ignore:No application metrics to publish")
def test_the_soak_in_small_accounts_for_every_delivery(stack: LocalStack) -> None:
    config = SoakConfig(events=EVENTS, wave=12, containers=6, slow_ms=30, ladder_steps=5)
    with webhook_options(
        allow_private_networks=True,
        allow_insecure_urls=True,
        timeout_ms=120,
        auto_disable_after=AUTO_DISABLE_AFTER,
        max_attempts=MAX_ATTEMPTS,
    ):
        result = run_soak(stack, config)
    try:
        assert not result.violations, result.table()
        tallies = {t.name: t for t in result.tallies}
        for tally in tallies.values():
            assert tally.states.total() == EVENTS, result.table()
            assert not tally.states["failed"], result.table()
        for name in ("healthy", "slow", "healthy-2"):
            assert tallies[name].states["succeeded"] == EVENTS, result.table()
        assert tallies["timeout"].states["dead"] == EVENTS
        assert tallies["timeout"].requests < EVENTS * MAX_ATTEMPTS
        timing_out = endpoint(result.endpoint_ids[2])
        assert not timing_out.enabled
        assert f"after {AUTO_DISABLE_AFTER} consecutive dead" in (timing_out.disabled_reason or "")
    finally:
        for endpoint_id in result.endpoint_ids:
            purge_endpoint(endpoint_id)
