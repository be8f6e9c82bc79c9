"""Sync tokens: where a sync continues, opaque to clients (URL-safe base64 of compact JSON).

A token names the view it reads (`A` latest, `P` published), the `type` and `locale` the
initial sync was narrowed to, the change-log position its next delta starts after and, while
an initial sync is still paging, the partition and list cursor of its next page. It is not
signed: whatever a client makes of one, it reads only what its own credentials see.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

from content_service.clock import parse_iso_utc
from content_service.content.entries import View
from content_service.content.writes import TIME_LENGTH
from content_service.errors import BadRequest

MAX_TOKEN_LENGTH = 4096
_POSITION = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z(#[0-9a-f-]{1,64}#[0-9a-f]{8})?")
_VIEWS: dict[str, View] = {"A": "latest", "P": "published"}
_LETTERS = {view: letter for letter, view in _VIEWS.items()}


@dataclass(frozen=True)
class Walk:
    """The next page of an initial sync: a type, a locale and the list's cursor in them."""

    content_type: str
    locale: str
    cursor: str | None


@dataclass(frozen=True)
class SyncToken:
    view: View
    content_type: str | None
    locale: str | None
    position: str
    walk: Walk | None = None

    def encode(self) -> str:
        body: dict[str, Any] = {
            "v": _LETTERS[self.view],
            "t": self.content_type,
            "l": self.locale,
            "p": self.position,
        }
        if self.walk is not None:
            body["w"] = [self.walk.content_type, self.walk.locale, self.walk.cursor]
        raw = json.dumps(body, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @property
    def time(self) -> str:
        """The time of the position (ISO 8601, its leading part)."""
        return self.position[:TIME_LENGTH]


def _malformed() -> BadRequest:
    return BadRequest("token: not a sync token of this API; start an initial sync")


def _text(value: Any, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not 0 < len(value) <= MAX_TOKEN_LENGTH:
        raise _malformed()
    return value


def _walk(raw: Any) -> Walk | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 3:
        raise _malformed()
    return Walk(_text(raw[0], False) or "", _text(raw[1], False) or "", _text(raw[2]))


def decode_token(raw: str) -> SyncToken:
    """The token a `nextPageUrl` or `nextSyncUrl` carries; 400 for anything else."""
    try:
        body = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
    except (binascii.Error, ValueError):
        raise _malformed() from None
    if not isinstance(body, dict) or body.get("v") not in _VIEWS:
        raise _malformed()
    position = body.get("p")
    if not isinstance(position, str) or not _POSITION.fullmatch(position):
        raise _malformed()
    try:
        parse_iso_utc(position[:TIME_LENGTH])
    except ValueError:
        raise _malformed() from None
    return SyncToken(
        view=_VIEWS[body["v"]],
        content_type=_text(body.get("t")),
        locale=_text(body.get("l")),
        position=position,
        walk=_walk(body.get("w")),
    )
