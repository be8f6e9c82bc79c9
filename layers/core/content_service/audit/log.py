"""Reading the audit log: one workspace's records, newest first, filtered and paged.

The base table serves a workspace's records by time (`pk` = workspace, `sk` = time and id);
an `actor` filter reads the byActor index and a `target` filter the byTarget index instead
(each keyed `<workspace>#<kind>#<id>`, sorted by the same `sk`), so neither scans other
records. `since`/`until` bound `sk` in the key condition; `action` (and `actor` beside a
`target`) is a FilterExpression. A page holds up to `limit` records: a Query with a filter
may read more records than it returns, so up to `_READS` Queries fill one page, and the cursor
is where the last of them stopped. The cursor is base64url JSON of that position and a digest
of the filters: a cursor of another query is refused with 400.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from content_service.audit.records import actor_key, target_key
from content_service.clock import iso_utc, parse_iso_utc
from content_service.errors import BadRequest
from content_service.storage import dynamo
from content_service.storage.json_values import plain

MAX_LIMIT = 200
_READS = 10
_SHOWN = (
    "id",
    "occurredAt",
    "action",
    "actor",
    "target",
    "changes",
    "correlationId",
    "sourceAddress",
    "scheduleId",
)


@dataclass(frozen=True)
class AuditQuery:
    """What `GET /api/v1/audit` and `audit export` ask for; `actor` and `target` are
    `<kind>:<id>` (`user:…`, `token:…`, `entry:…`, `content_type:article`)."""

    workspace_id: str
    actor: str | None = None
    target: str | None = None
    action: str | None = None
    since: str | None = None
    until: str | None = None

    def digest(self) -> str:
        parts = [self.actor, self.target, self.action, self.since, self.until]
        text = json.dumps([self.workspace_id, *parts])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _kind_and_id(name: str, value: str) -> tuple[str, str]:
    kind, _, found = value.partition(":")
    if not kind or not found:
        raise BadRequest(f"{name} must be <kind>:<id>, such as user:<id> or entry:<id>")
    return kind, found


def _moment(name: str, value: str) -> str:
    try:
        return iso_utc(parse_iso_utc(value))
    except (ValueError, OverflowError):
        raise BadRequest(
            f"{name} must be an ISO 8601 date-time, such as 2026-01-31T12:00:00Z"
        ) from None


def _key_condition(query: AuditQuery) -> tuple[str | None, str, dict[str, Any], dict[str, str]]:
    """The index to read (None: the table), the key condition, its values and names."""
    names = {"#pk": "pk", "#sk": "sk"}
    if query.target is not None:
        kind, found = _kind_and_id("target", query.target)
        index, values = "byTarget", {":pk": target_key(query.workspace_id, kind, found)}
        names["#pk"] = "targetKey"
    elif query.actor is not None:
        kind, found = _kind_and_id("actor", query.actor)
        index, values = "byActor", {":pk": actor_key(query.workspace_id, kind, found)}
        names["#pk"] = "actorKey"
    else:
        index, values = None, {":pk": query.workspace_id}
    low = _moment("since", query.since) if query.since else "0000"
    high = (_moment("until", query.until) if query.until else "9999") + "#~"
    values.update({":low": low, ":high": high})
    return index, "#pk = :pk AND #sk BETWEEN :low AND :high", values, names


def _request(query: AuditQuery) -> dict[str, Any]:
    index, condition, values, names = _key_condition(query)
    filters: list[str] = []
    if query.action:
        filters.append("#action = :action")
        names["#action"], values[":action"] = "action", query.action
    if query.target is not None and query.actor is not None:
        kind, found = _kind_and_id("actor", query.actor)
        filters.append("#actorKey = :actor")
        names["#actorKey"] = "actorKey"
        values[":actor"] = actor_key(query.workspace_id, kind, found)
    request: dict[str, Any] = {
        "TableName": dynamo.tables().audit,
        "KeyConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": dynamo.encode(values),
        "ScanIndexForward": False,
    }
    if index is not None:
        request["IndexName"] = index
    if filters:
        request["FilterExpression"] = " AND ".join(filters)
    return request


def _encode_cursor(query: AuditQuery, position: dict[str, Any]) -> str:
    body = {"q": query.digest(), "k": dynamo.decode(position)}
    raw = json.dumps(body, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode_cursor(query: AuditQuery, cursor: str) -> dict[str, Any]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        body = json.loads(raw)
        position = body["k"]
        valid = body["q"] == query.digest() and isinstance(position, dict)
    except (binascii.Error, ValueError, KeyError, TypeError):
        valid = False
    if not valid or not all(isinstance(v, str) for v in position.values()):
        raise BadRequest("cursor is malformed or belongs to another query")
    return dynamo.encode(position)


def shown(item: dict[str, Any]) -> dict[str, Any]:
    """A record as the API and the export show it (no key attributes, no TTL)."""
    return {name: plain(item.get(name)) for name in _SHOWN}


def page(
    query: AuditQuery, limit: int, cursor: str | None
) -> tuple[list[dict[str, Any]], str | None]:
    """Up to `limit` records, newest first, and the cursor of the next page (None: the end)."""
    request = _request(query)
    start = _decode_cursor(query, cursor) if cursor else None
    found: list[dict[str, Any]] = []
    for _ in range(_READS):
        if start is not None:
            request["ExclusiveStartKey"] = start
        request["Limit"] = limit - len(found)
        items, start = dynamo.query_page(request)
        found.extend(dynamo.decode(raw) for raw in items)
        if start is None or len(found) >= limit:
            break
    return [shown(item) for item in found], _encode_cursor(query, start) if start else None


def every(query: AuditQuery) -> Iterator[dict[str, Any]]:
    """Every record the query matches, newest first (the export)."""
    cursor: str | None = None
    while True:
        records, cursor = page(query, MAX_LIMIT, cursor)
        yield from records
        if cursor is None:
            return
