"""Stored values as JSON: DynamoDB's numbers and sets turned into what `json` writes.

Stores hand the items `dynamo.decode` gives them through `plain`, so a delivery row, an endpoint
or an outbox event leaves storage as JSON would carry it.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any


class NotJson(ValueError):
    """The value holds something JSON has no form for (binary)."""


def plain(value: Any) -> Any:
    """DynamoDB's Decimals as int or float, sets as sorted lists, so the value is JSON."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(plain(v) for v in value)
    if isinstance(value, bytes | bytearray):
        raise NotJson("binary attributes cannot be put into a JSON envelope")
    return value
