"""Startup wiring shared by every handler: the process's Settings and its storage binding.

`configure()` is called once at cold start (or by the local stack); everything else asks
`settings()`. A test that needs other options for itself alone (say, private networks for a
receiver on 127.0.0.1) configures them and restores the previous settings afterwards.
"""

from __future__ import annotations

import threading

from content_service.identity import models as identity_models
from content_service.settings import Settings

_lock = threading.Lock()
_current: Settings | None = None


def configure(settings: Settings) -> Settings:
    global _current
    with _lock:
        identity_models.bind(settings)
        _current = settings
    return settings


def settings() -> Settings:
    """The configured Settings; configured from the environment on first use."""
    current = _current
    return current if current is not None else configure(Settings.from_env())
