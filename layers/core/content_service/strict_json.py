"""JSON as this service accepts it from callers: UTF-8 text (RFC 8259 section 8.1), no key twice
in one object, and no lone surrogate in any key or string.

Python's `json` takes `{"a": 1, "a": 2}` silently (the last wins) and turns the escape
`"\\ud800"` into a string that cannot be encoded, stored in DynamoDB or sent back: a client
that meant one thing gets another, and the refusal message quoting the key used to fail with a
500. Both are refused here, naming where (`body.values.\\ud800`, `filter.and[0].value`), so
REST bodies, REST filters and GraphQL bodies and variables share one rule.
"""

from __future__ import annotations

import json
import re
from typing import Any

# A surrogate can only come from a `\\uXXXX` escape: UTF-8 decoding refuses encoded ones. So a
# document without such an escape needs no walk for them.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SHOWN_KEY = 40
_SHOWN_LOCATION = 120


class JsonRefused(ValueError):
    """The text is not JSON this service accepts; `location` says where, when it can."""

    def __init__(self, problem: str, location: str | None = None) -> None:
        super().__init__(problem if location is None else f"{problem} at {location}")
        self.problem = problem
        self.location = location

    def details(self) -> list[dict[str, str]] | None:
        if self.location is None:
            return None
        return [{"location": self.location, "problem": self.problem}]


class _Duplicates(dict[str, Any]):
    """An object that named `duplicate` twice (the walk reports it with its location)."""

    duplicate: str = ""


def loads(raw: bytes | str, where: str = "body") -> Any:
    """The decoded document, or JsonRefused; `where` begins every location (`body`, `filter`)."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise JsonRefused("not UTF-8 text") from None
    else:
        text = raw
    duplicates = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal duplicates
        found = dict(items)
        if len(found) == len(items):
            return found
        duplicates = True
        marked = _Duplicates(found)
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                marked.duplicate = key
                break
            seen.add(key)
        return marked

    try:
        value = json.loads(text, object_pairs_hook=pairs)
    except RecursionError:
        raise JsonRefused("nested too deeply") from None
    except ValueError:
        raise JsonRefused("not valid JSON") from None
    if duplicates or _SURROGATE_ESCAPE.search(text):
        problem = _first_problem(value, where)
        if problem is not None:
            raise JsonRefused(problem[0], _cut(problem[1]))
    return value


def is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(key: str) -> str:
    """A key as a message may quote it: surrogates escaped, a long key cut."""
    safe = key.encode("utf-8", "backslashreplace").decode("utf-8")
    return safe if len(safe) <= _SHOWN_KEY else safe[: _SHOWN_KEY - 3] + "..."


def _cut(location: str) -> str:
    """A location short enough for a message (a hostile document may nest thousands deep)."""
    if len(location) <= _SHOWN_LOCATION:
        return location
    half = (_SHOWN_LOCATION - 3) // 2
    return f"{location[:half]}...{location[-half:]}"


def _first_problem(value: Any, where: str) -> tuple[str, str] | None:
    """(problem, location) of the first refused key or string in document order, walking
    without recursion (a hostile document may nest as deep as the parser allows)."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not is_unicode(item):
                return "not valid Unicode (a lone surrogate)", path
        elif isinstance(item, dict):
            if isinstance(item, _Duplicates):
                return f"the key {shown(item.duplicate)!r} appears twice", path
            children: list[tuple[Any, str]] = []
            for key, child in item.items():
                below = f"{path}.{shown(key)}"
                if not is_unicode(key):
                    return "a key that is not valid Unicode (a lone surrogate)", below
                children.append((child, below))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            stack.extend((item[i], f"{path}[{i}]") for i in range(len(item) - 1, -1, -1))
    return None
