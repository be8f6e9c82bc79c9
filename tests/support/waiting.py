"""Waiting for something another process or thread does, by polling (never a fixed sleep)."""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float = 5.0, message: str = "") -> T:
    """Polls `predicate` until it returns something truthy; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {message or predicate}")
        time.sleep(0.02)


def answers_healthz(base_url: str) -> bool:
    """The server at `base_url` answers `GET /healthz` with 200 within a second; a refused or
    failed connection is a no, for `wait_until` to ask again."""
    try:
        with urllib.request.urlopen(f"{base_url}/healthz", timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False
