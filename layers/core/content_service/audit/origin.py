"""Where a change comes from, beside who makes it: the request's correlation id and source
address, or the schedule that runs it.

Set once per request by the API's middleware (and per run by the scheduler) in a context
variable, so the code building a transaction deep in the core records it without every
function passing it along. Outside a request (the command line) it is empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Origin:
    correlation_id: str | None = None
    source_address: str | None = None
    schedule_id: str | None = None
    """Set while the scheduler runs a schedule: the change is that schedule's."""


_NONE = Origin()
_current: ContextVar[Origin | None] = ContextVar("audit_origin", default=None)


def current_origin() -> Origin:
    return _current.get() or _NONE


@contextmanager
def origin_of(origin: Origin) -> Iterator[Origin]:
    """Records `origin` on every change made inside the block."""
    token = _current.set(origin)
    try:
        yield origin
    finally:
        _current.reset(token)
