"""Kill points for `make crash`: a watch on the stack's journals that fires on a chosen write.

The emulator appends one line per acknowledged write to its journals (the tables' under
`LOCAL_DIR/journal/`, the buckets' under `LOCAL_DIR/s3/journal/`) and fsyncs it before the
answer leaves (docs/decisions.md, D30, D127). A line seen here is therefore a write that is
durable and whose caller has not yet been told: killing the stack the moment it appears lands
the kill right after that step of a multi-step operation, before the next one. That is how
`harness.crash_assets` kills a completion between its copy to `files/`, its entry write and
its deletion of the upload, without any hook in the product.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from infra.journal import segments

Predicate = Callable[[bytes], bool]


def _copied(line: bytes) -> bool:
    """A completion's server-side copy of an upload to its file key."""
    return line.startswith(b'{"w":[["AssetsBucket",{"key":"files/')


def _written(line: bytes) -> bool:
    """A new entry's transaction (its outbox event rides in it); only assets are created here."""
    return b'"entry.created"' in line


def _deleted(line: bytes) -> bool:
    """An upload's deletion: its key gains a delete marker (the bucket is versioned)."""
    return line.startswith(b'{"w":[["AssetsBucket",{"key":"uploads/') and (
        b'"deleteMarker":true' in line
    )


POINTS: dict[str, tuple[str, Predicate]] = {
    "afterCopy": ("s3/journal", _copied),
    "afterEntryWrite": ("journal", _written),
    "afterUploadDeleted": ("s3/journal", _deleted),
}
"""Each kill point: the journal it watches, and the line that fires it."""


class JournalTrigger:
    """Fires on the first matching line appended after `arm()`."""

    def __init__(self, local_dir: Path, point: str) -> None:
        relative, self.matches = POINTS[point]
        self.directory = local_dir / relative
        self.offsets: dict[Path, int] = {}
        self.partial: dict[Path, bytes] = {}

    def arm(self) -> None:
        """From now on: what the journal already holds does not count."""
        self.offsets = {path: path.stat().st_size for path in segments(self.directory)}
        self.partial = {}

    def wait(self, limit_s: float, poll_s: float = 0.0005) -> bool:
        """Polls until a matching line appears (True) or `limit_s` passes (False)."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            if self._fired():
                return True
            time.sleep(poll_s)
        return False

    def _fired(self) -> bool:
        for path in segments(self.directory):
            offset = self.offsets.get(path, 0)
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                continue  # folded into the snapshot meanwhile
            if size <= offset:
                continue
            with path.open("rb") as handle:
                handle.seek(offset)
                added = self.partial.get(path, b"") + handle.read(size - offset)
            self.offsets[path] = size
            *lines, self.partial[path] = added.split(b"\n")
            if any(self.matches(line) for line in lines):
                return True
        return False
