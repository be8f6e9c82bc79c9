"""An append-only journal of the emulator's writes, in numbered segment files.

One line per acknowledged write request: the after-image of every item the request touched,
`{"w": [[table, key, item or null], ...]}` in DynamoDB JSON. A transaction is one line, so a
line is all of it or nothing. Lines are appended with one `os.write` each while the caller holds
the emulator's write lock (so the file's order is the order the writes were applied in), and
made durable with `fsync` outside it: `sync(seq)` returns once every line up to `seq` is on
disk, and one `fsync` covers every line appended before it (group commit).

A segment is closed by `rotate()`, which starts the next one; the snapshot compaction folds
closed segments into the snapshot and deletes them. A process killed mid-append can leave one
torn last line: it was never acknowledged, and `read()` stops at it.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_SUFFIX = ".jsonl"

# One changed item: (logical table id, key, full item or None when deleted), DynamoDB JSON.
Change = tuple[str, dict[str, Any], dict[str, Any] | None]


def _binary(value: object) -> str:
    """moto keeps some binary values (in sets, in maps) as bytes: DynamoDB JSON has base64."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    raise TypeError(f"{type(value).__name__} in a DynamoDB item")


def segment_number(path: Path) -> int:
    return int(path.name.removesuffix(_SUFFIX))


def segments(directory: Path) -> list[Path]:
    """The segment files in `directory`, oldest first."""
    if not directory.is_dir():
        return []
    found = [p for p in directory.iterdir() if p.name.endswith(_SUFFIX) and p.stem.isdigit()]
    return sorted(found, key=segment_number)


def read(path: Path) -> Iterator[list[Change]]:
    """Each write of one segment, in order; stops at a torn or unreadable line."""
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                changes = json.loads(line)["w"]
            except (ValueError, KeyError, TypeError):
                rest = handle.read()
                if line.endswith(b"\n") or rest:
                    log.error(
                        "%s line %d is unreadable; ignoring it and what follows", path, number
                    )
                return
            yield [(str(t), dict(k), i) for t, k, i in changes]


class Journal:
    """The open tail of the journal: appends, group-commits, rotates."""

    def __init__(self, directory: Path, first_segment: int, *, fsync: bool = True) -> None:
        self.directory = directory
        self.fsync = fsync
        directory.mkdir(parents=True, exist_ok=True)
        self._sync_lock = threading.Lock()
        self._segment = first_segment
        self._fd = self._open(first_segment)
        self._appended = 0
        self._synced = 0
        self._bytes = 0

    @property
    def segment(self) -> int:
        """The number of the segment being appended to."""
        return self._segment

    @property
    def segment_bytes(self) -> int:
        return self._bytes

    def _open(self, number: int) -> int:
        path = self.directory / f"{number:08d}{_SUFFIX}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        if self.fsync:
            directory = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(directory)  # the new file's name is durable too
            finally:
                os.close(directory)
        return fd

    def append(self, changes: list[Change]) -> int:
        """Appends one write; the caller holds the emulator's write lock. Returns its number."""
        line = json.dumps({"w": changes}, separators=(",", ":"), default=_binary).encode() + b"\n"
        os.write(self._fd, line)
        self._bytes += len(line)
        self._appended += 1
        return self._appended

    def sync(self, sequence: int) -> None:
        """Returns once the write numbered `sequence` is on disk."""
        if not self.fsync or self._synced >= sequence:
            return
        with self._sync_lock:
            if self._synced >= sequence:
                return
            target = self._appended
            os.fdatasync(self._fd)
            self._synced = max(self._synced, target)

    def rotate(self) -> int:
        """Closes the current segment and starts the next; the caller holds the write lock.

        Returns the number of the closed segment.
        """
        with self._sync_lock:
            if self.fsync:
                os.fdatasync(self._fd)
            self._synced = self._appended
            os.close(self._fd)
            closed = self._segment
            self._segment += 1
            self._fd = self._open(self._segment)
            self._bytes = 0
        return closed

    def close(self) -> None:
        with self._sync_lock:
            if self._fd < 0:
                return
            if self.fsync:
                os.fdatasync(self._fd)
            self._synced = self._appended
            os.close(self._fd)
            self._fd = -1
