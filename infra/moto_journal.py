"""Journals every item write the emulator acknowledges, before the answer leaves.

moto's DynamoDB request handlers for PutItem, UpdateItem, DeleteItem, BatchWriteItem and
TransactWriteItems are wrapped: under the emulator's write lock (`moto_transactions.WRITE_LOCK`,
which also makes each write atomic) the write runs, then the after-image of every item it
touched is appended to the journal of the stack that owns the table; outside the lock the
wrapper waits until that line is on disk (group commit), and only then returns, so moto sends
its answer. A write that failed its condition changed nothing and is not journaled; any other
failure journals what moto holds now (moto can apply a refused UpdateItem half-way).

After-images rather than requests: replaying them needs no condition evaluation, clock or
randomness, and replaying a prefix of the journal twice gives the same state.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from moto.dynamodb.exceptions import ConditionalCheckFailed, TransactionCanceledException
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.responses import DynamoHandler

from infra.journal import Change
from infra.moto_transactions import WRITE_LOCK
from infra.moto_version import require_pinned

_WRITES = ("put_item", "update_item", "delete_item", "batch_write_item", "transact_write_items")
_NOTHING_WRITTEN = (ConditionalCheckFailed, TransactionCanceledException)


class Sink(Protocol):
    """Where a stack's changes go: `append` under the write lock, `sync` after it."""

    def append(self, changes: list[Change]) -> int: ...

    def sync(self, sequence: int) -> None: ...


_registry: dict[str, tuple[Sink, str]] = {}
_registry_lock = threading.Lock()

Target = tuple[str, dict[str, Any]]  # (table name, key in DynamoDB JSON)


def register(sink: Sink, tables: Iterable[tuple[str, str]]) -> None:
    """Journals writes to these (physical name, logical id) tables into `sink`."""
    with _registry_lock:
        for name, logical_id in tables:
            _registry[name] = (sink, logical_id)


def unregister(sink: Sink) -> None:
    with _registry_lock:
        for name in [n for n, (s, _) in _registry.items() if s is sink]:
            del _registry[name]


def _key_of(backend: DynamoDBBackend, table_name: str, item: dict[str, Any]) -> dict[str, Any]:
    table = backend.get_table(table_name)
    key = {table.hash_key_attr: item[table.hash_key_attr]}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = item[table.range_key_attr]
    return key


def _batch_targets(backend: DynamoDBBackend, body: dict[str, Any]) -> list[Target]:
    targets: list[Target] = []
    for table_name, requests in body.get("RequestItems", {}).items():
        for request in requests:
            if "PutRequest" in request:
                targets.append(
                    (table_name, _key_of(backend, table_name, request["PutRequest"]["Item"]))
                )
            elif "DeleteRequest" in request:
                targets.append((table_name, request["DeleteRequest"]["Key"]))
    return targets


def _transaction_targets(backend: DynamoDBBackend, body: dict[str, Any]) -> list[Target]:
    targets: list[Target] = []
    for element in body.get("TransactItems", []):
        for kind, operation in element.items():
            if kind == "Put":
                table_name = operation["TableName"]
                targets.append((table_name, _key_of(backend, table_name, operation["Item"])))
            elif kind in ("Update", "Delete"):
                targets.append((operation["TableName"], operation["Key"]))
    return targets


def _targets(write: str, backend: DynamoDBBackend, body: dict[str, Any]) -> list[Target]:
    """The items a request may change; empty when no journal owns any of their tables."""
    if write == "batch_write_item":
        names: Iterable[str] = body.get("RequestItems", {})
    elif write == "transact_write_items":
        names = [op["TableName"] for e in body.get("TransactItems", []) for op in e.values()]
    else:
        names = [body.get("TableName", "")]
    if not any(name in _registry for name in names):
        return []
    try:
        if write == "batch_write_item":
            return _batch_targets(backend, body)
        if write == "transact_write_items":
            return _transaction_targets(backend, body)
        if write == "put_item":
            return [(body["TableName"], _key_of(backend, body["TableName"], body["Item"]))]
        return [(body["TableName"], body["Key"])]
    except (KeyError, TypeError, AttributeError):
        return []  # malformed: moto refuses it before writing anything


def _append(backend: DynamoDBBackend, targets: list[Target]) -> list[tuple[Sink, int]]:
    """Appends the after-images, one journal line per owning stack; the caller holds the lock."""
    by_sink: dict[int, tuple[Sink, list[Change]]] = {}
    for table_name, key in targets:
        owner = _registry.get(table_name)
        if owner is None:
            continue
        sink, logical_id = owner
        item = backend.get_item(table_name, key)
        image = item.to_json()["Attributes"] if item is not None else None
        by_sink.setdefault(id(sink), (sink, []))[1].append((logical_id, key, image))
    return [(sink, sink.append(changes)) for sink, changes in by_sink.values()]


def _journaled(write_name: str, write: Callable[[DynamoHandler], Any]) -> Callable[..., Any]:
    @functools.wraps(write)
    def journaled(self: DynamoHandler) -> Any:
        backend = self.dynamodb_backend
        targets = _targets(write_name, backend, self.body)
        if not targets:
            return write(self)
        with WRITE_LOCK:
            try:
                result = write(self)
            except _NOTHING_WRITTEN:
                raise
            except BaseException:
                _append(backend, targets)
                raise
            appended = _append(backend, targets)
        for sink, sequence in appended:
            sink.sync(sequence)
        return result

    journaled.journaled = True  # type: ignore[attr-defined]
    return journaled


def install() -> None:
    """Wraps moto's write handlers (for this process); calling it again changes nothing."""
    require_pinned("moto_journal")
    for name in _WRITES:
        write = getattr(DynamoHandler, name)
        if not getattr(write, "journaled", False):
            setattr(DynamoHandler, name, _journaled(name, write))
