"""The snapshot file: every table of the local stack at one point in time, in DynamoDB JSON.

`.local/state.json` holds `{version, savedAt, journalSegment, tables: {logicalId: [item]}}`:
the state as of the start of journal segment `journalSegment` (see `infra/journal.py`), keyed
by the template's logical ids so a prefix change still restores. It is a compaction of the
journal, never written from a scan of the emulator, so it is one point in time across every
table. Writes go to a temporary file that is fsynced and renamed over the old one, so a crash
mid-write leaves the previous snapshot intact.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

FORMAT_VERSION = 2
_READABLE_VERSIONS = (1, 2)  # version 1: the periodic scans of earlier releases
_BATCH_WRITE_LIMIT = 25

log = logging.getLogger(__name__)


def encode_value(value: Mapping[str, Any]) -> dict[str, Any]:
    """boto3's attribute value to JSON-safe DynamoDB JSON (binary as base64, like the CLI and
    like Lambda's stream events)."""
    return _binary_converted(value, lambda raw: base64.b64encode(raw).decode())


def decode_value(value: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of `encode_value`: DynamoDB JSON to what boto3 sends."""
    return _binary_converted(value, base64.b64decode)


def _binary_converted(value: Mapping[str, Any], convert: Callable[[Any], Any]) -> dict[str, Any]:
    """`value` with each binary (`B`, `BS`), also inside maps and lists, passed to `convert`."""
    result: dict[str, Any] = {}
    for kind, inner in value.items():
        if kind == "B":
            result[kind] = convert(inner)
        elif kind == "BS":
            result[kind] = [convert(b) for b in inner]
        elif kind == "M":
            result[kind] = {k: _binary_converted(v, convert) for k, v in inner.items()}
        elif kind == "L":
            result[kind] = [_binary_converted(v, convert) for v in inner]
        else:
            result[kind] = inner
    return result


@dataclass
class Snapshot:
    """Items per logical table, and the first journal segment not folded into them."""

    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    journal_segment: int = 0


class SnapshotFile:
    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> Snapshot:
        """The saved snapshot, or an empty one; an unreadable file is moved aside, never lost."""
        if not self.path.exists():
            return Snapshot()
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
            if document.get("version") not in _READABLE_VERSIONS:
                raise ValueError(f"unknown snapshot version {document.get('version')!r}")
            tables: dict[str, list[dict[str, Any]]] = document["tables"]
            segment = int(document.get("journalSegment", 0))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            aside = self.path.with_name(f"{self.path.name}.unreadable-{int(time.time())}")
            self.path.replace(aside)
            log.error("snapshot %s is unreadable (%s); moved it to %s", self.path, error, aside)
            return Snapshot()
        return Snapshot(tables, segment)

    def save(self, snapshot: Snapshot) -> int:
        """Writes the snapshot atomically and durably; returns the number of items written."""
        document = {
            "version": FORMAT_VERSION,
            "savedAt": time.time(),
            "journalSegment": snapshot.journal_segment,
            "tables": snapshot.tables,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(
            prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent
        )
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(document, handle, separators=(",", ":"))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        return sum(len(items) for items in snapshot.tables.values())


def write_items(client: DynamoDBClient, table_name: str, items: list[dict[str, Any]]) -> None:
    """Puts items (DynamoDB JSON, as the snapshot holds them) into a table, 25 per request."""
    for start in range(0, len(items), _BATCH_WRITE_LIMIT):
        requests: Any = {
            table_name: [
                {"PutRequest": {"Item": {n: decode_value(v) for n, v in item.items()}}}
                for item in items[start : start + _BATCH_WRITE_LIMIT]
            ]
        }
        for attempt in range(10):
            unprocessed = client.batch_write_item(RequestItems=requests).get("UnprocessedItems", {})
            if not unprocessed:
                break
            requests = unprocessed
            time.sleep(0.05 * 2**attempt)
        else:
            raise RuntimeError(f"could not restore every item of {table_name}")
