"""EventBridge schedules -> the sweep, list indexing and scheduled publishing (every minute),
pruning (hourly); resume.

The template's schedules pass a constant input, `{"job": "sweep"}`, `{"job": "lists"}`,
`{"job": "schedules"}` or `{"job": "prune"}`. Every job stops early when the invocation is
close to its timeout and finishes on the next run. `{"job": "resume"}` is never scheduled:
an operator invokes it after purging the delivery queue, and the local stack runs the same core
after restoring its state.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from content_service import runtime
from content_service.observability import logger, metrics
from content_service.tracing import tracer
from content_service.webhooks import services, wiring

# The minute sweep is most invocations: its module loads at init (D146).
from content_service.webhooks.deliveries import Sweeper

# Stop starting new work when less than this is left of the invocation's time.
_RESERVE_MS = 20_000


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, object]:
    settings = runtime.settings()
    sweeper: Sweeper = services.sweeper(settings, wiring.dependencies().clock)

    def out_of_time() -> bool:
        return bool(context.get_remaining_time_in_millis() < _RESERVE_MS)

    job = event.get("job") if isinstance(event, dict) else None
    metrics.add_metric(name="ScheduledJobs", unit=MetricUnit.Count, value=1)
    if job in ("sweep", "resume"):
        sweep = sweeper.sweep(out_of_time) if job == "sweep" else sweeper.resume()
        metrics.add_metric(name="SweepRequeued", unit=MetricUnit.Count, value=sweep.requeued)
        metrics.add_metric(name="OutboxReconciled", unit=MetricUnit.Count, value=sweep.fanned_out)
        result = sweep.to_json()
    elif job == "prune":
        prune = sweeper.prune(out_of_time)
        metrics.add_metric(name="DeliveriesPruned", unit=MetricUnit.Count, value=prune.deleted)
        result = prune.to_json()
    elif job == "lists":
        # Only this job needs the content package; sweeps and prunes never load it (D56).
        from content_service.content.lists import run_jobs

        lists = run_jobs(out_of_time)
        metrics.add_metric(name="ListEntriesIndexed", unit=MetricUnit.Count, value=lists.entries)
        result = lists.to_json()
    elif job == "schedules":
        from content_service.content.writes import run_due

        due = run_due(out_of_time, wiring.dependencies().clock)
        metrics.add_metric(name="SchedulesRun", unit=MetricUnit.Count, value=due.done)
        metrics.add_metric(name="SchedulesFailed", unit=MetricUnit.Count, value=due.failed)
        result = due.to_json()
    else:
        raise ValueError(
            f"unknown job {job!r}: expected 'sweep', 'lists', 'schedules', 'prune' or 'resume'"
        )
    logger.info("scheduled job done", extra=result)
    return result
