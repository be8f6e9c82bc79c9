"""Table contents that survive a restart of `make run`.

The emulator keeps everything in memory, so the local stack dumps every table (all pages, in
DynamoDB JSON, keyed by logical id so a prefix change still restores) to `.local/state.json`
on a clean stop and periodically, and restores it after provisioning on the next start.
Writes go to a temporary file that is renamed over the old one, so a crash mid-write leaves
the previous snapshot intact.

Two things are deliberately not carried over:

- The events table's stream. Restoring the outbox writes every old event again, which the
  stream would feed to the fan-out as new INSERTs, delivering old entries to endpoints created
  since (spec 6.4.4: entries created earlier are not replayed to a new endpoint). The local
  stack therefore starts its stream pollers after the restore, at the stream's end.
- SQS messages. A delivery id queued but not yet consumed is lost with the emulator; its row
  is still `pending` in the deliveries table, and the scheduler's lost-enqueue sweep queues
  it again within a minute, as it would after a lost send on AWS.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from infra.provisioning import ProvisionedTable

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

FORMAT_VERSION = 1
_BATCH_WRITE_LIMIT = 25

log = logging.getLogger(__name__)


def encode_value(value: Mapping[str, Any]) -> dict[str, Any]:
    """boto3's attribute value to JSON-safe DynamoDB JSON (binary as base64, like the CLI)."""
    result: dict[str, Any] = {}
    for kind, inner in value.items():
        if kind == "B":
            result[kind] = base64.b64encode(inner).decode()
        elif kind == "BS":
            result[kind] = [base64.b64encode(b).decode() for b in inner]
        elif kind == "M":
            result[kind] = {k: encode_value(v) for k, v in inner.items()}
        elif kind == "L":
            result[kind] = [encode_value(v) for v in inner]
        else:
            result[kind] = inner
    return result


def decode_value(value: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for kind, inner in value.items():
        if kind == "B":
            result[kind] = base64.b64decode(inner)
        elif kind == "BS":
            result[kind] = [base64.b64decode(b) for b in inner]
        elif kind == "M":
            result[kind] = {k: decode_value(v) for k, v in inner.items()}
        elif kind == "L":
            result[kind] = [decode_value(v) for v in inner]
        else:
            result[kind] = inner
    return result


class Snapshots:
    """Saves and restores the tables of one stack to and from one file."""

    def __init__(
        self, path: Path, client: DynamoDBClient, tables: Mapping[str, ProvisionedTable]
    ) -> None:
        self.path = path
        self.client = client
        self.tables = tables
        self._lock = threading.Lock()

    def dump(self) -> dict[str, list[dict[str, Any]]]:
        result: dict[str, list[dict[str, Any]]] = {}
        paginator = self.client.get_paginator("scan")
        for logical_id, table in self.tables.items():
            items: list[dict[str, Any]] = []
            for page in paginator.paginate(TableName=table.name, ConsistentRead=True):
                items.extend(
                    {name: encode_value(v) for name, v in item.items()}
                    for item in page.get("Items", [])
                )
            result[logical_id] = items
        return result

    def save(self) -> int:
        """Writes the snapshot atomically; returns the number of items written."""
        with self._lock:
            tables = self.dump()
            document = {"version": FORMAT_VERSION, "savedAt": time.time(), "tables": tables}
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
            return sum(len(items) for items in tables.values())

    def load(self) -> dict[str, list[dict[str, Any]]] | None:
        """The saved tables, or None; an unreadable file is moved aside, never overwritten."""
        if not self.path.exists():
            return None
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
            if document.get("version") != FORMAT_VERSION:
                raise ValueError(f"unknown snapshot version {document.get('version')!r}")
            tables: dict[str, list[dict[str, Any]]] = document["tables"]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            aside = self.path.with_name(f"{self.path.name}.unreadable-{int(time.time())}")
            self.path.replace(aside)
            log.error("snapshot %s is unreadable (%s); moved it to %s", self.path, error, aside)
            return None
        return tables

    def restore(self) -> int:
        """Writes the saved items back; returns how many. Unknown tables are skipped."""
        tables = self.load()
        if not tables:
            return 0
        restored = 0
        with self._lock:
            for logical_id, items in tables.items():
                table = self.tables.get(logical_id)
                if table is None:
                    log.warning(
                        "snapshot has table %s, which the template no longer has", logical_id
                    )
                    continue
                for start in range(0, len(items), _BATCH_WRITE_LIMIT):
                    chunk = items[start : start + _BATCH_WRITE_LIMIT]
                    self._write(table.name, chunk)
                restored += len(items)
        return restored

    def _write(self, table_name: str, items: list[dict[str, Any]]) -> None:
        requests: Any = {
            table_name: [
                {"PutRequest": {"Item": {n: decode_value(v) for n, v in item.items()}}}
                for item in items
            ]
        }
        for attempt in range(10):
            unprocessed = self.client.batch_write_item(RequestItems=requests).get(
                "UnprocessedItems", {}
            )
            if not unprocessed:
                return
            requests = unprocessed
            time.sleep(0.05 * 2**attempt)
        raise RuntimeError(f"could not restore every item of {table_name}")
