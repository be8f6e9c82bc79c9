"""An event as the content capability's outbox writes it and the webhook fan-out reads it.

`{id, kind, occurredAt, workspaceId, actor, data}`: one item in the events table per entry
write, in the same transaction as the entry. The fan-out reads it from the table's stream.

Every event is written with a fan-out marker, `fanoutShard`, which puts it in the sparse
`byPendingFanout` index (partitioned by shard, sorted by `occurredAt`); the fan-out removes the
marker once the event's delivery rows exist and are queued. The minute sweep fans out again
any event still in the index after a grace period: a stream batch that failed for good, a
local stack restarted after a crash (docs/decisions.md, D30).

The shape lives in storage, not in either capability, so content writes it and webhooks read
it without one importing the other.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from content_service.clock import iso_utc
from content_service.storage.json_values import NotJson, plain

PENDING_FANOUT_INDEX = "byPendingFanout"
FANOUT_SHARDS = 16
# The fan-out reads an event within seconds; the item only needs to outlive stream retries.
EVENT_TTL_SECONDS = 7 * 24 * 3600


def fanout_shard(event_id: str) -> str:
    """The marker's value: a shard derived from the event id, so no index partition is hot."""
    try:
        number = int(event_id.replace("-", "")[-4:], 16)
    except ValueError:
        number = sum(event_id.encode())
    return f"{number % FANOUT_SHARDS:02d}"


def new_event_item(
    kind: str,
    now: float,
    *,
    actor: Mapping[str, str] | None,
    data: Mapping[str, Any],
    workspace_id: str | None = None,
) -> dict[str, Any]:
    """A new event's item: a fresh id, its time, and the fan-out marker and expiry every event
    carries; `workspaceId` only for an event that belongs to one (an endpoint notice has none)."""
    event_id = str(uuid.uuid4())
    item: dict[str, Any] = {"id": event_id, "kind": kind, "occurredAt": iso_utc(now)}
    if workspace_id is not None:
        item["workspaceId"] = workspace_id
    item["actor"] = dict(actor) if actor is not None else None
    item["data"] = dict(data)
    item["fanoutShard"] = fanout_shard(event_id)
    item["expiresAt"] = int(now) + EVENT_TTL_SECONDS
    return item


class MalformedEvent(ValueError):
    """The item is not an outbox event; retrying cannot help, so it is logged and skipped."""


def _json(value: Any) -> Any:
    try:
        return plain(value)
    except NotJson as error:
        raise MalformedEvent(str(error)) from None


def _text(item: Mapping[str, Any], name: str) -> str:
    value = item.get(name)
    if not isinstance(value, str) or not value:
        raise MalformedEvent(f"outbox event has no {name}")
    return value


@dataclass(frozen=True)
class OutboxEvent:
    id: str
    kind: str
    occurred_at: str
    workspace_id: str | None
    actor: dict[str, Any] | None
    data: dict[str, Any]

    @property
    def content_type(self) -> str | None:
        value = self.data.get("contentType")
        return value if isinstance(value, str) else None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> OutboxEvent:
        """Reads a deserialised item (a stream image); raises `MalformedEvent`."""
        workspace_id = item.get("workspaceId")
        if workspace_id is not None and (not isinstance(workspace_id, str) or not workspace_id):
            raise MalformedEvent("outbox event workspaceId must be a string or null")
        actor = item.get("actor")
        if actor is not None:
            if not isinstance(actor, Mapping) or not all(
                isinstance(actor.get(key), str) for key in ("id", "email")
            ):
                raise MalformedEvent("outbox event actor must be {id, email} or null")
            actor = _json(actor)
        data = item.get("data")
        if not isinstance(data, Mapping):
            raise MalformedEvent("outbox event has no data object")
        data = _json(data)
        if not isinstance(data.get("kind"), str) or not isinstance(data.get("id"), str):
            raise MalformedEvent("outbox event data must name its kind and id")
        return cls(
            id=_text(item, "id"),
            kind=_text(item, "kind"),
            occurred_at=_text(item, "occurredAt"),
            workspace_id=workspace_id,
            actor=actor,
            data=data,
        )
