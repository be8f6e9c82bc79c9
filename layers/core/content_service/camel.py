"""camelCase names derived from the snake_case attributes, so each wire name is spelled once.

The webhook records (`Endpoint`, `DeliveryRow`, `AttemptRecord`) are stored and answered under
the camelCase names of docs/api.md; `dump` and `load` map them to and from the dataclass fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

R = TypeVar("R")


def camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part.capitalize() for part in rest)


def dump(record: Any, names: Iterable[str]) -> dict[str, Any]:
    """The attributes `names` of a record by camelCase name, in that order, as JSON-like data:
    tuples become lists, mappings dicts, nested records their own dump."""
    return {camel(name): _plain(getattr(record, name)) for name in names}


def field_names(cls: type[Any]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def load(cls: type[R], item: Mapping[str, Any], **convert: Callable[[Any], Any]) -> R:
    """A dataclass from its camelCase item. A field with a converter gets it applied to the
    stored value (None when absent); another takes the stored value, or its default when
    absent (a field without one must be present)."""
    named: dict[str, Any] = {}
    for name, key, has_default in _fields(cls):
        if name in convert:
            named[name] = convert[name](item.get(key))
        elif key in item or not has_default:
            named[name] = item[key]
    return cls(**named)


def optional(value: Any) -> Any:
    """The converter of a field without a default that may be absent (None then)."""
    return value


def count(value: Any) -> int:
    return int(value or 0)


def text(value: Any) -> Any:
    return "" if value is None else value


_FIELDS: dict[type[Any], tuple[tuple[str, str, bool], ...]] = {}


def _fields(cls: type[Any]) -> tuple[tuple[str, str, bool], ...]:
    """(name, camelCase name, has a default) of each field, worked out once per class."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(
            (f.name, camel(f.name), _has_default(f)) for f in dataclasses.fields(cls)
        )
    return found


def _has_default(f: dataclasses.Field[Any]) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dump(value, field_names(type(value)))
    return value
