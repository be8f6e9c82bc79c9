"""The process's Settings changed for a block of a test, API and handlers alike."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from content_service import runtime
from content_service.settings import Settings


def _unchanged(settings: Settings) -> Settings:
    return settings


@contextmanager
def settings_changed(change: Callable[[Settings], Settings] = _unchanged) -> Iterator[Settings]:
    """`change(current)` configured for the enclosed code; the settings before it come back
    after it, also when the code raises or configures the runtime itself (as the CLI does)."""
    before = runtime.settings()
    changed = runtime.configure(change(before))
    try:
        yield changed
    finally:
        runtime.configure(before)
