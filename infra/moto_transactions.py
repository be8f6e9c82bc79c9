"""Makes moto's writes keep DynamoDB's promises: atomic, and transactions O(items) not O(tables).

moto 5.2's `DynamoDBBackend.transact_write_items`:
- deep-copies every table the transaction touches, on every call, so a write costs O(table
  size), and the test session gets slower as its shared tables fill;
- checks and applies item by item and, when a condition fails, restores that copy, undoing any
  transaction another thread committed meanwhile: a lost write DynamoDB never allows;
- lets an operation that cannot apply to its item (the item would outgrow 400 KB, an operand
  of the wrong type) escape as a bare ValidationException, where DynamoDB cancels the
  transaction with a `ValidationError` reason at that item.

`install()` swaps in a version that, under one lock, evaluates every condition against the
current items first and refuses the whole transaction (nothing applied) if any fails, and only
then applies the operations through moto's own put/update/delete. Only the items the
transaction touches are copied, to put them back if applying raises; an item-state failure is
then reported as DynamoDB reports it, in `CancellationReasons`.

moto's single-item PutItem, UpdateItem and DeleteItem are not atomic between threads either:
the request handler reads the old item (for `ReturnValues`), then the backend checks the
condition and writes, each step unlocked. Two workers claiming one row at the same moment could
both pass `status = pending` (seen at 4 in 300 concurrent claims). `install()` runs each of them
under the same lock, so a condition and its write, and the old item returned, are one step.

It changes nothing the app can observe except what DynamoDB itself guarantees. The emulator
installs it on start, so `make run`, the tests and the benchmarks all get DynamoDB's
semantics.
"""

from __future__ import annotations

import copy
import functools
import threading
from collections.abc import Callable
from typing import Any

from moto.dynamodb.comparisons import get_filter_expression
from moto.dynamodb.exceptions import (
    IncorrectDataType,
    IncorrectOperandType,
    InvalidUpdateExpressionInvalidDocumentPath,
    ItemSizeTooLarge,
    ItemSizeToUpdateTooLarge,
    MockValidationException,
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.responses import DynamoHandler

from infra.moto_version import require_pinned

# Reentrant: the journal (infra/moto_journal.py) holds it around the writes below.
WRITE_LOCK = threading.RLock()
_OPERATIONS = frozenset({"ConditionCheck", "Put", "Delete", "Update"})
_SINGLE_ITEM_WRITES = ("put_item", "update_item", "delete_item")


def _key(backend: DynamoDBBackend, op_type: str, op: dict[str, Any]) -> dict[str, Any]:
    if op_type != "Put":
        key: dict[str, Any] = op["Key"]
        return key
    table = backend.get_table(op["TableName"])
    attrs = op["Item"]
    key = {table.hash_key_attr: attrs[table.hash_key_attr]}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = attrs[table.range_key_attr]
    return key


def _restore(backend: DynamoDBBackend, table_name: str, key: dict[str, Any], before: Any) -> None:
    table = backend.get_table(table_name)
    hash_value, range_value = backend.get_keys_value(table, key)
    if before is None:
        table.delete_item(hash_value, range_value)
    elif range_value is not None:
        table.items[hash_value][range_value] = before
    else:
        table.items[hash_value] = before


Planned = tuple[str, dict[str, Any], dict[str, Any]]  # (operation, its request, item key)
# What DynamoDB reports per item, as a `ValidationError` cancellation reason, when an operation
# cannot apply to the item as it stands (too large, wrong operand type, a missing path); a
# malformed request (bad syntax, unknown names) is still refused whole.
_ITEM_STATE_ERRORS = (
    ItemSizeTooLarge,
    ItemSizeToUpdateTooLarge,
    IncorrectOperandType,
    IncorrectDataType,
    InvalidUpdateExpressionInvalidDocumentPath,
)


def _plan(
    backend: DynamoDBBackend, transact_items: list[dict[str, Any]]
) -> tuple[list[Planned], list[tuple[Any, Any, Any]]]:
    """Each operation with its key, and each condition's verdict against the current items."""
    planned: list[Planned] = []
    seen: set[tuple[str, str]] = set()
    errors: list[tuple[Any, Any, Any]] = []
    for item in transact_items:
        if len(item) > 1:
            raise TransactWriteSingleOpException
        op_type, op = next(iter(item.items()))
        if op_type not in _OPERATIONS:
            raise MockValidationException("Unsupported transaction operation")
        key = _key(backend, op_type, op)
        unique = (str(op["TableName"]), str(dict(sorted(key.items()))))
        if unique in seen:
            raise MultipleTransactionsException()
        seen.add(unique)
        planned.append((op_type, op, key))
        errors.append(_condition_verdict(backend, op, key))
    return planned, errors


def _condition_verdict(
    backend: DynamoDBBackend, op: dict[str, Any], key: dict[str, Any]
) -> tuple[Any, Any, Any]:
    current = backend.get_item(op["TableName"], key)
    condition: Any = op.get("ConditionExpression")
    if condition is None or get_filter_expression(
        condition, op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
    ).expr(current):
        return (None, None, None)
    old = None
    if op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" and current:
        old = current.to_json()["Attributes"]
    return ("ConditionalCheckFailed", "The conditional request failed", old)


def _apply(backend: DynamoDBBackend, op_type: str, op: dict[str, Any], key: Any) -> None:
    """One operation, through moto's own write; absent expression parts passed as None."""
    names: Any = op.get("ExpressionAttributeNames")
    values: Any = op.get("ExpressionAttributeValues")
    condition = op.get("ConditionExpression")
    expression = {
        "condition_expression": condition,
        "expression_attribute_names": names,
        "expression_attribute_values": values,
    }
    if op_type == "Put":
        backend.put_item(op["TableName"], op["Item"], **expression)
    elif op_type == "Delete":
        backend.delete_item(op["TableName"], key, **expression)
    elif op_type == "Update":
        backend.update_item(
            op["TableName"], key, update_expression=op["UpdateExpression"], **expression
        )


def transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    with WRITE_LOCK:
        planned, errors = _plan(self, transact_items)
        if any(code is not None for code, _, _ in errors):
            raise TransactionCanceledException(errors)
        touched = [
            (op["TableName"], key, copy.deepcopy(self.get_item(op["TableName"], key)))
            for op_type, op, key in planned
            if op_type != "ConditionCheck"
        ]
        applied = 0
        try:
            for op_type, op, key in planned:
                _apply(self, op_type, op, key)
                applied += 1
        except Exception as error:
            for table_name, key, before in reversed(touched):
                _restore(self, table_name, key, before)
            if not isinstance(error, _ITEM_STATE_ERRORS):
                raise
            reasons: list[tuple[Any, Any, Any]] = [(None, None, None)] * len(planned)
            reasons[applied] = ("ValidationError", error.message, None)
            raise TransactionCanceledException(reasons) from None


def _serialised(write: Callable[[DynamoHandler], Any]) -> Callable[[DynamoHandler], Any]:
    @functools.wraps(write)
    def locked(self: DynamoHandler) -> Any:
        with WRITE_LOCK:
            return write(self)

    locked.serialised = True  # type: ignore[attr-defined]
    return locked


def install() -> None:
    """Replaces moto's TransactWriteItems and serialises its single-item writes, for this
    process (moto's backends are per process); calling it again changes nothing."""
    require_pinned("moto_transactions")
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    for name in _SINGLE_ITEM_WRITES:
        write = getattr(DynamoHandler, name)
        if not getattr(write, "serialised", False):
            setattr(DynamoHandler, name, _serialised(write))
