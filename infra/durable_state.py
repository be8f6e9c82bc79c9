"""The local stack's tables on disk: a snapshot plus the journal of every write since.

At start, `open()` folds the journal into the last snapshot, writes the result into the (empty)
emulator, saves it as the new snapshot and starts a fresh journal segment; from then on every
write the emulator acknowledges is in the journal first (`infra/moto_journal.py`). `compact()`
closes the current segment under the write lock and folds the closed segments into a new
snapshot, so a snapshot is always one point in time across every table. A `kill -9` at any
moment loses no acknowledged write: the next start replays it.

The fold reads and writes files only, never the emulator's memory, so while the stack serves
it runs in a process of its own (`compact_aside`, `python -m infra.durable_state`): decoding
and encoding a large snapshot would otherwise hold the emulator's interpreter for seconds and
stall every request meanwhile (docs/decisions.md, D107). A fold that dies leaves the old
snapshot and the closed segments, which the next fold or start folds again.

SQS messages are not kept: the delivery rows are the truth (docs/decisions.md D18), and after a
restore the local stack runs the scheduler's `resume` job, which re-queues every unfinished row.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from infra import REPO_ROOT, journal, moto_journal
from infra.child_process import die_with_parent
from infra.journal import Change, Journal
from infra.moto_transactions import WRITE_LOCK
from infra.provisioning import ProvisionedTable
from infra.snapshot import Snapshot, SnapshotFile, write_items

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# A segment this large is folded into the snapshot by the next housekeeping round.
COMPACT_AT_BYTES = 32 * 1024 * 1024

log = logging.getLogger(__name__)

Items = dict[str, dict[str, Any]]  # canonical key -> item, per table
KeyAttributes = Mapping[str, tuple[str, ...]]  # logical table id -> its key attributes


def _canonical(attributes: tuple[str, ...], values: Mapping[str, Any]) -> str:
    return json.dumps([values[a] for a in attributes], sort_keys=True, separators=(",", ":"))


class DurableState:
    """Snapshot and journal of one stack's tables, under its local directory."""

    def __init__(
        self, local_dir: Path, tables: Mapping[str, ProvisionedTable], *, fsync: bool = True
    ) -> None:
        self.snapshot_file = SnapshotFile(local_dir / "state.json")
        self.journal_dir = local_dir / "journal"
        self.tables = tables
        self.fsync = fsync
        self._journal: Journal | None = None
        self._compact_lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self.snapshot_file.path

    def open(self, client: DynamoDBClient) -> int:
        """Restores the saved state into the emulator and starts journaling; returns the items."""
        snapshot = recovered(self.snapshot_file, self.journal_dir, self._keys, None)
        restored = self._restore(snapshot, client)
        existing = journal.segments(self.journal_dir)
        first = max([snapshot.journal_segment, *(journal.segment_number(p) + 1 for p in existing)])
        self.snapshot_file.save(Snapshot(snapshot.tables, first))
        for path in existing:
            path.unlink()
        self._journal = Journal(self.journal_dir, first, fsync=self.fsync)
        self._register()
        return restored

    def _restore(self, snapshot: Snapshot, client: DynamoDBClient) -> int:
        """Writes the recovered items into the emulator's tables; how many."""
        restored = 0
        for logical_id, items in snapshot.tables.items():
            write_items(client, self.tables[logical_id].name, items)
            restored += len(items)
        return restored

    def _register(self) -> None:
        moto_journal.register(self, [(t.name, logical) for logical, t in self.tables.items()])

    def _unregister(self) -> None:
        moto_journal.unregister(self)

    def append(self, changes: list[Change]) -> int:
        if self._journal is None:
            raise RuntimeError("the journal is closed")
        return self._journal.append(changes)

    def sync(self, sequence: int) -> None:
        if self._journal is not None:
            self._journal.sync(sequence)

    @property
    def journal_bytes(self) -> int:
        """Bytes in the segment being appended to."""
        return self._journal.segment_bytes if self._journal is not None else 0

    def needs_compaction(self) -> bool:
        return self.journal_bytes >= COMPACT_AT_BYTES

    @property
    def _keys(self) -> dict[str, tuple[str, ...]]:
        return {logical_id: t.key_attributes for logical_id, t in self.tables.items()}

    def _rotate(self) -> int | None:
        if self._journal is None:
            return None
        with WRITE_LOCK:
            return self._journal.rotate()

    def compact(self) -> int:
        """Folds every closed segment into a new snapshot, in this process; returns the items
        it holds."""
        with self._compact_lock:
            closed = self._rotate()
            if closed is None:
                return 0
            return fold(self.snapshot_file, self.journal_dir, self._keys, closed)

    def compact_aside(self) -> int | None:
        """`compact`, with the fold in a child process; the items saved, or None when the fold
        failed (the closed segments stay for the next one). In the emulator's process the child
        inherits its ignoring of SIGINT and SIGTERM, so a stop of the group lets it finish."""
        with self._compact_lock:
            closed = self._rotate()
            if closed is None:
                return 0
            command = [
                sys.executable,
                "-m",
                "infra.durable_state",
                "--snapshot",
                str(self.snapshot_file.path),
                "--journal",
                str(self.journal_dir),
                "--keys",
                json.dumps(self._keys),
                "--closed",
                str(closed),
                "--parent",
                str(os.getpid()),
            ]
            done = subprocess.run(
                command, cwd=REPO_ROOT, capture_output=True, text=True, check=False
            )
            if done.returncode != 0:
                log.error("journal compaction failed (%s): %s", done.returncode, done.stderr)
                return None
            return int(done.stdout)

    def close(self) -> int:
        """Stops journaling after a last compaction; returns the items saved."""
        self._unregister()
        if self._journal is None:
            return 0
        count = self.compact()
        with self._compact_lock:
            self._journal.close()
            self._journal = None
        return count


def recovered(
    snapshot_file: SnapshotFile, journal_dir: Path, keys: KeyAttributes, last_segment: int | None
) -> Snapshot:
    """The snapshot with the journal's segments (up to `last_segment`) folded in."""
    snapshot = snapshot_file.load()
    state: dict[str, Items] = {}
    for logical_id, items in snapshot.tables.items():
        attributes = keys.get(logical_id)
        if attributes is None:
            log.warning("snapshot has table %s, which the template no longer has", logical_id)
            continue
        state[logical_id] = {_canonical(attributes, i): i for i in items}
    for path in journal.segments(journal_dir):
        number = journal.segment_number(path)
        if number < snapshot.journal_segment:
            continue
        if last_segment is not None and number > last_segment:
            break
        for changes in journal.read(path):
            _apply(state, keys, changes)
    return Snapshot(
        {logical_id: list(items.values()) for logical_id, items in state.items()},
        snapshot.journal_segment,
    )


def _apply(state: dict[str, Items], keys: KeyAttributes, changes: list[Change]) -> None:
    for logical_id, key, item in changes:
        attributes = keys.get(logical_id)
        if attributes is None:
            continue
        items = state.setdefault(logical_id, {})
        canonical = _canonical(attributes, key)
        if item is None:
            items.pop(canonical, None)
        else:
            items[canonical] = item


def fold(snapshot_file: SnapshotFile, journal_dir: Path, keys: KeyAttributes, closed: int) -> int:
    """Saves the snapshot with segments up to `closed` folded in, then deletes those segments;
    returns the items saved."""
    snapshot = recovered(snapshot_file, journal_dir, keys, closed)
    count = snapshot_file.save(Snapshot(snapshot.tables, closed + 1))
    for path in journal.segments(journal_dir):
        if journal.segment_number(path) <= closed:
            path.unlink()
    return count


def main(argv: list[str]) -> int:
    """`compact_aside`'s child: folds, prints the items saved."""
    parser = argparse.ArgumentParser(prog="python -m infra.durable_state")
    parser.add_argument("--snapshot", type=Path, required=True)
    parser.add_argument("--journal", type=Path, required=True)
    parser.add_argument("--keys", type=json.loads, required=True)
    parser.add_argument("--closed", type=int, required=True)
    parser.add_argument("--parent", type=int, required=True)
    args = parser.parse_args(argv)
    die_with_parent(args.parent)
    keys = {logical_id: tuple(names) for logical_id, names in args.keys.items()}
    print(fold(SnapshotFile(args.snapshot), args.journal, keys, args.closed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
