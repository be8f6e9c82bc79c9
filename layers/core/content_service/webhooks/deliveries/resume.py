"""What the local stack runs after restoring its tables: the emulator's queues start empty.

On AWS the delivery queue and the events stream outlive any process; locally they die with the
emulator. So after a restore, before any poller starts, every event whose fan-out never
completed is fanned out (the restored stream starts at its end) and every unfinished delivery
is queued again. The same core serves the scheduler's `resume` job on AWS.
"""

from __future__ import annotations

from content_service.clock import SystemClock
from content_service.settings import Settings

from .. import services


def resume_after_restart(settings: Settings) -> dict[str, object]:
    return services.sweeper(settings, SystemClock()).resume().to_json()
