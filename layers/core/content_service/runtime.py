"""Startup wiring shared by every handler: the process's Settings and its storage binding.

`configure()` is called once at cold start (or by the local stack); everything else asks
`settings()`. A test that needs other options for itself alone (say, private networks for a
receiver on 127.0.0.1) configures them and restores the previous settings afterwards.

Storage that must be pointed at the configured tables (PynamoDB's identity models) registers
itself with `on_configure` when its module is first imported, so this module imports none of
it: a worker that never touches identity never loads PynamoDB.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from content_service.settings import Settings

_lock = threading.Lock()
_current: Settings | None = None
_listeners: list[Callable[[Settings], None]] = []


def configure(settings: Settings) -> Settings:
    global _current
    with _lock:
        for listener in _listeners:
            listener(settings)
        _current = settings
    return settings


def settings() -> Settings:
    """The configured Settings; configured from the environment on first use."""
    current = _current
    return current if current is not None else configure(Settings.from_env())


def on_configure(listener: Callable[[Settings], None]) -> None:
    """Calls `listener` with every Settings configured from now on, and with the current one
    at once if the process is already configured."""
    with _lock:
        _listeners.append(listener)
        if _current is not None:
            listener(_current)
