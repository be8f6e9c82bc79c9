"""The process's Settings changed for a block of a test, API and handlers alike."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from content_service import runtime
from content_service.settings import Settings

# Sign-ins check password hashes of N = 2^10, not 2^17 (most of a second each), as Django's
# tests use a fast hasher; tests/unit/test_passwords.py holds the default cost.
FAST_PASSWORDS = {"PASSWORD_HASH_COST": "10"}


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


@contextmanager
def webhook_options(**changes: Any) -> Iterator[None]:
    """Switches webhook options (`WEBHOOKS_*`, docs/development.md "Configuration") for the
    enclosed code alone, API and handlers alike."""
    with settings_changed(
        lambda s: dataclasses.replace(s, webhooks=dataclasses.replace(s.webhooks, **changes))
    ):
        yield


@contextmanager
def delivery_options(**changes: Any) -> Iterator[None]:
    """Switches caching and rate options (`CONTENT_CACHE_SECONDS`, `CONTENT_RATE_LIMIT`...) for
    the enclosed code alone; the API reads them on every request."""
    with settings_changed(
        lambda s: dataclasses.replace(s, delivery=dataclasses.replace(s.delivery, **changes))
    ):
        yield
