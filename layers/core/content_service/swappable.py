"""A process-wide value that a test (or the local stack) swaps for the code it encloses.

The content store, the webhook dependencies and the sign-in throttle's clock are each one value
every thread reads; a unit test points them at a fake for a `with` block and the previous value
comes back after it, also when the block raises (docs/decisions.md, D111).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class Swappable(Generic[T]):
    def __init__(self, value: T) -> None:
        self._lock = threading.Lock()
        self._value = value

    def get(self) -> T:
        return self._value

    @contextmanager
    def using(self, replacement: T) -> Iterator[T]:
        """`replacement` for the enclosed code (every thread), then the value before it."""
        with self.changed(lambda _: replacement) as value:
            yield value

    @contextmanager
    def changed(self, change: Callable[[T], T]) -> Iterator[T]:
        """`change(current)`, made under the lock, for the enclosed code; then the value before."""
        with self._lock:
            before = self._value
            self._value = change(before)
            current = self._value
        try:
            yield current
        finally:
            with self._lock:
                self._value = before
