"""What the local servers (the stack, the emulator, the edges, a webhook receiver) share: each
starts when a `with` block opens and stops when it closes, even on an error."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self


class Running(ABC):
    """`start()` on entering a `with` block, `stop()` on leaving it."""

    @abstractmethod
    def start(self) -> None: ...

    @abstractmethod
    def stop(self) -> None: ...

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
