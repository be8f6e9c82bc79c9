"""The delivery log's page, search filters and cursors (the `byEndpoint` index, newest first).

A cursor carries a digest of the filters its page was asked with, so a cursor cannot be
replayed against other filters.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from content_service.errors import BadRequest
from content_service.storage.dynamo import values

from .delivery_rows import DeliveryRow

# Rows a filtered log query reads per request: filters drop rows after they are read.
FILTERED_SCAN = 200


@dataclass(frozen=True)
class Page:
    items: list[DeliveryRow]
    next_cursor: str | None


@dataclass(frozen=True)
class LogSearch:
    """The log's search filters: an event id, an entry id, a window of creation times."""

    event_id: str | None = None
    entry_id: str | None = None
    since_iso: str | None = None
    until_iso: str | None = None

    def key_range(self) -> str:
        if self.since_iso is not None and self.until_iso is not None:
            return " AND createdKey BETWEEN :since AND :until"
        if self.since_iso is not None:
            return " AND createdKey >= :since"
        if self.until_iso is not None:
            return " AND createdKey < :until"
        return ""

    def key_values(self) -> dict[str, str]:
        found = {"since": self.since_iso, "until": self.until_iso}
        return {name: value for name, value in found.items() if value is not None}


def log_filters(status: str | None, event: str | None, search: LogSearch) -> str:
    """A digest of the filters a log page was asked with; its cursor carries it."""
    chosen = [status, event, search.event_id, search.entry_id, search.since_iso, search.until_iso]
    text = json.dumps(chosen, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def cursor_after(item: Mapping[str, Any], filters: str) -> str:
    return encode_cursor({k: item[k] for k in ("id", "endpointId", "createdKey")}, filters)


def encode_cursor(key: Mapping[str, Any], filters: str) -> str:
    """The log's cursor: the last row's key in the index, and the filters that made the page.

    A key found under one set of filters may lie outside another's key range (a `since` after
    it): DynamoDB refuses such an ExclusiveStartKey, so the cursor is bound to its filters."""
    plain: dict[str, str] = {name: value["S"] for name, value in key.items()}
    plain["filters"] = filters
    raw = json.dumps(plain, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, endpoint_id: str, filters: str) -> dict[str, Any]:
    """The ExclusiveStartKey in `cursor`, which must come from this endpoint's log asked with
    the same filters (400 otherwise)."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        plain = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError):
        raise BadRequest("cursor is not one this service issued") from None
    expected = {"id", "endpointId", "createdKey", "filters"}
    if (
        not isinstance(plain, dict)
        or set(plain) != expected
        or not all(isinstance(v, str) and v for v in plain.values())
        or plain["endpointId"] != endpoint_id
    ):
        raise BadRequest("cursor is not one this service issued for this endpoint")
    if plain["filters"] != filters:
        raise BadRequest(
            "cursor belongs to the log with other filters; keep the status, event, eventId, "
            "entryId, since and until of the page that returned it"
        )
    return {name: {"S": plain[name]} for name in ("id", "endpointId", "createdKey")}


def log_filter(
    status: str | None, event: str | None, search: LogSearch, expression_values: dict[str, Any]
) -> tuple[list[str], dict[str, str]]:
    """The log's filter clauses and their attribute names; adds their values to
    `expression_values`, so the query names only what it uses."""
    names: dict[str, str] = {}
    filters: list[str] = []
    if status is not None:
        filters.append("#status = :status")
        expression_values.update(values(status=status))
        names["#status"] = "status"
    if event is not None:
        filters.append("event = :event")
        expression_values.update(values(event=event))
    if search.event_id is not None:
        filters.append("eventId = :eventId")
        expression_values.update(values(eventId=search.event_id))
    if search.entry_id is not None:
        # The entry id is inside the frozen body; `contains` narrows, the row decides.
        filters.append("contains(requestBody, :entryId)")
        expression_values.update(values(entryId=search.entry_id))
    return filters, names
