"""Bounds on every text a receiver can make us store (an attempt's error, headers, snippet).

A receiver controls its status line, its headers and its body. Stored without a bound, a 64 KB
status line (quoted in the error) overflowed the delivery row: DynamoDB refuses an item over
400 KB, so the outcome write failed and the ladder broke. Every such text goes through here
before it is kept: cut to a number of UTF-8 bytes, never in the middle of a character, with a
mark saying it was cut.
"""

from __future__ import annotations

from collections.abc import Iterable

ERROR_BYTES = 1024
HEADERS_BYTES = 4096
CUT_MARK = "…"
_CUT_MARK_BYTES = len(CUT_MARK.encode())

Headers = tuple[tuple[str, str], ...]


def clip(text: str, max_bytes: int, *, mark: bool = True) -> str:
    """`text` in at most `max_bytes` UTF-8 bytes; a cut text ends in `…` when `mark` is set."""
    encoded = text.encode("utf-8", errors="replace")
    if len(encoded) <= max_bytes:
        return text
    room = max_bytes - (_CUT_MARK_BYTES if mark and max_bytes >= _CUT_MARK_BYTES else 0)
    kept = encoded[: max(room, 0)].decode("utf-8", errors="ignore")
    return kept + CUT_MARK if mark and max_bytes >= _CUT_MARK_BYTES else kept


def clip_error(text: str | None) -> str | None:
    return None if text is None else clip(text, ERROR_BYTES)


def header_bytes(name: str, value: str) -> int:
    """What one header costs against the bound: `name: value` and its line end."""
    return len(name.encode()) + len(value.encode()) + 4


def clip_headers(headers: Iterable[tuple[str, str]], max_bytes: int = HEADERS_BYTES) -> Headers:
    """Response headers in order, at most `max_bytes` in all (as `Name: value` lines).

    A header that does not fit whole is kept with its value cut, if its name and a few bytes
    fit; the headers after it are dropped.
    """
    kept: list[tuple[str, str]] = []
    left = max_bytes
    for name, value in headers:
        name = clip(name, 200)
        cost = header_bytes(name, value)
        if cost <= left:
            kept.append((name, value))
            left -= cost
            continue
        room = left - header_bytes(name, "")
        if room >= 16:
            kept.append((name, clip(value, room)))
        break
    return tuple(kept)


def headers_size(headers: Iterable[tuple[str, str]]) -> int:
    return sum(header_bytes(name, value) for name, value in headers)
