"""List cursors: where the next page starts, opaque to the client.

A cursor is base64url JSON naming the list it belongs to (a digest of type, locale, sort and
filter: another list refuses it with 400) and the last entry of the page it came with: for a
list sorted by one key, that entry's position in the index (null or not, sort token, id); for
a list sorted by several keys (always sorted in memory), its sort values and id. The next page
starts strictly after that entry, so entries written meanwhile neither repeat nor shift it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from content_service.errors import BadRequest

MAX_CURSOR_LENGTH = 4096


@dataclass(frozen=True)
class Position:
    """A place in the order of a one-key list: values first (phase 0), then nulls (1)."""

    phase: int
    token: str
    id: str


@dataclass(frozen=True)
class Cursor:
    query: str
    position: Position | None = None
    """For a list sorted by one key."""
    values: tuple[Any, ...] | None = None
    """For a list sorted by several keys: the last entry's sort values..."""
    id: str = ""
    """...and its id."""

    def encode(self) -> str:
        body: dict[str, Any] = {"q": self.query}
        if self.position is not None:
            body["p"] = [self.position.phase, self.position.token, self.position.id]
        else:
            body["v"] = list(self.values or ())
            body["i"] = self.id
        raw = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def query_digest(parts: Any) -> str:
    """The digest naming one list (its type, locale, sort and filter as plain JSON)."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _malformed() -> BadRequest:
    return BadRequest("cursor: not a cursor this API returned (pass `nextCursor` as it came)")


def _position(raw: Any) -> Position:
    if (
        not isinstance(raw, list)
        or len(raw) != 3
        or raw[0] not in (0, 1)
        or not isinstance(raw[1], str)
        or not isinstance(raw[2], str)
    ):
        raise _malformed()
    return Position(int(raw[0]), raw[1], raw[2])


def decode_cursor(raw: str, digest: str) -> Cursor:
    """The cursor in `raw`, which must belong to the list named by `digest`."""
    if not raw or len(raw) > MAX_CURSOR_LENGTH:
        raise _malformed()
    try:
        text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode("utf-8")
        body = json.loads(text)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise _malformed() from None
    if not isinstance(body, dict) or not isinstance(body.get("q"), str):
        raise _malformed()
    if body["q"] != digest:
        raise BadRequest(
            "cursor: it belongs to another list; keep the type, sort, filter and locale of the "
            "list that returned it"
        )
    if "p" in body:
        return Cursor(query=digest, position=_position(body["p"]))
    values, entry_id = body.get("v"), body.get("i")
    if not isinstance(values, list) or not isinstance(entry_id, str):
        raise _malformed()
    return Cursor(query=digest, values=tuple(values), id=entry_id)
