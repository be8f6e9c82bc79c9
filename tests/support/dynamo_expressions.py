"""DynamoDB's condition and update expressions, as far as content's writes use them, for the
in-memory content store (`tests.support.content_store`).

Conditions: `attribute_exists(path)`, `attribute_not_exists(path)`, the comparisons `=`, `<>`,
`<`, `<=`, `>`, `>=`, `AND`, `OR`, `NOT` and parentheses. Updates: `SET` (a value, a path,
`if_not_exists(path, value)`, and one `+` or `-` of two of those), `REMOVE`, and `ADD` (a
number to a number, a set to a set). Anything else raises `Unsupported`, so a test never
passes on an expression nobody evaluated. Items and values are decoded (`storage.dynamo`'s
codec: numbers as Decimal, string sets as sets); a comparison with a missing attribute or of
different types is false, as in DynamoDB.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from functools import partial
from typing import Any

Item = dict[str, Any]

_TOKEN = re.compile(r"\s*(<>|<=|>=|[=<>(),+-]|[#:]?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_#][\w]*)*)")
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda a, b: bool(a == b),
    "<>": lambda a, b: bool(a != b),
    "<": lambda a, b: bool(a < b),
    "<=": lambda a, b: bool(a <= b),
    ">": lambda a, b: bool(a > b),
    ">=": lambda a, b: bool(a >= b),
}
_MISSING = object()


class Unsupported(ValueError):
    """An expression outside what the in-memory store evaluates."""


def _tokens(expression: str) -> list[str]:
    found: list[str] = []
    position = 0
    while position < len(expression.rstrip()):
        match = _TOKEN.match(expression, position)
        if match is None:
            raise Unsupported(f"cannot read {expression!r} at {expression[position:]!r}")
        found.append(match.group(1))
        position = match.end()
    return found


class _Reader:
    """One expression's tokens, with its attribute names and (decoded) values."""

    def __init__(
        self, expression: str, names: Mapping[str, str], values: Mapping[str, Any]
    ) -> None:
        self.expression = expression
        self.tokens = _tokens(expression)
        self.at = 0
        self.names = names
        self.values = values

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def keyword(self, *words: str) -> str | None:
        token = self.peek()
        if token is not None and token.upper() in words:
            self.at += 1
            return token.upper()
        return None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise Unsupported(f"{self.expression!r}: expected {expected or 'more'}, got {token!r}")
        self.at += 1
        return token

    def path(self) -> list[str]:
        token = self.take()
        if token.startswith(":") or not re.match(r"[#A-Za-z_]", token):
            raise Unsupported(f"{self.expression!r}: {token!r} is not an attribute path")
        return [self.names[part] if part.startswith("#") else part for part in token.split(".")]

    def done(self) -> None:
        if self.peek() is not None:
            raise Unsupported(f"{self.expression!r}: cannot read from {self.peek()!r}")


def _get(item: Item, path: list[str]) -> Any:
    value: Any = item
    for segment in path:
        if not isinstance(value, Mapping) or segment not in value:
            return _MISSING
        value = value[segment]
    return value


def _operand(reader: _Reader, item: Item) -> Any:
    token = reader.peek()
    if token is not None and token.startswith(":"):
        return reader.values[reader.take()]
    if token == "if_not_exists":
        reader.take()
        reader.take("(")
        found = _get(item, reader.path())
        reader.take(",")
        default = _operand(reader, item)
        reader.take(")")
        return default if found is _MISSING else found
    return _get(item, reader.path())


def _unary(reader: _Reader, item: Item) -> bool:
    if reader.keyword("NOT"):
        return not _unary(reader, item)
    if reader.peek() == "(":
        reader.take()
        held = _disjunction(reader, item)
        reader.take(")")
        return held
    if reader.peek() in ("attribute_exists", "attribute_not_exists"):
        wanted = reader.take() == "attribute_exists"
        reader.take("(")
        present = _get(item, reader.path()) is not _MISSING
        reader.take(")")
        return present is wanted
    left = _operand(reader, item)
    operator = reader.take()
    if operator not in _COMPARE:
        raise Unsupported(f"{reader.expression!r}: no comparison {operator!r}")
    right = _operand(reader, item)
    if _MISSING in (left, right) or not _comparable(left, right):
        return False
    return _COMPARE[operator](left, right)


def _comparable(left: Any, right: Any) -> bool:
    numbers = (int, Decimal)
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool)
    return (isinstance(left, numbers) and isinstance(right, numbers)) or type(left) is type(right)


def _conjunction(reader: _Reader, item: Item) -> bool:
    held = _unary(reader, item)
    while reader.keyword("AND"):
        held = _unary(reader, item) and held
    return held


def _disjunction(reader: _Reader, item: Item) -> bool:
    held = _conjunction(reader, item)
    while reader.keyword("OR"):
        held = _conjunction(reader, item) or held
    return held


def holds(
    expression: str | None, item: Item, names: Mapping[str, str], values: Mapping[str, Any]
) -> bool:
    """Whether `expression` holds for `item` (an absent item is `{}`); None always holds."""
    if expression is None:
        return True
    reader = _Reader(expression, names, values)
    held = _disjunction(reader, item)
    reader.done()
    return held


def _set_value(reader: _Reader, item: Item) -> Any:
    value = _operand(reader, item)
    sign = reader.peek()
    if sign not in ("+", "-"):
        return value
    reader.take()
    other = _operand(reader, item)
    if not isinstance(value, Decimal) or not isinstance(other, Decimal):
        raise Unsupported(f"{reader.expression!r}: arithmetic needs two numbers")
    return value + other if sign == "+" else value - other


def _place(item: Item, path: list[str], value: Any) -> None:
    target = item
    for segment in path[:-1]:
        target = target[segment]
    if value is _MISSING:
        target.pop(path[-1], None)
    else:
        target[path[-1]] = value


def _add(item: Item, path: list[str], delta: Any) -> None:
    found = _get(item, path)
    current: Any = (set() if isinstance(delta, set) else Decimal(0)) if found is _MISSING else found
    if isinstance(delta, set) and isinstance(current, set):
        _place(item, path, delta | current)
    elif isinstance(delta, Decimal) and isinstance(current, Decimal):
        _place(item, path, delta + current)
    else:
        raise Unsupported(f"ADD of {delta!r} to {'.'.join(path)}, which holds {current!r}")


def apply_update(
    expression: str, item: Item, names: Mapping[str, str], values: Mapping[str, Any]
) -> None:
    """Applies `expression` to `item` in place (every value read before any is written)."""
    reader = _Reader(expression, names, values)
    before = dict(item)
    changes: list[Callable[[], None]] = []
    while (clause := reader.keyword("SET", "REMOVE", "ADD")) is not None:
        while True:
            if clause == "SET":
                path = reader.path()
                reader.take("=")
                value = _set_value(reader, before)
                changes.append(partial(_place, item, path, value))
            elif clause == "REMOVE":
                path = reader.path()
                changes.append(partial(_place, item, path, _MISSING))
            else:
                path = reader.path()
                delta = _operand(reader, before)
                changes.append(partial(_add, item, path, delta))
            if reader.peek() != ",":
                break
            reader.take()
    reader.done()
    for change in changes:
        change()
