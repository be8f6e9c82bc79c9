"""The envelope of a delivery (docs/api.md) and its frozen bytes.

The body is frozen when the delivery row is created: compact JSON, UTF-8, fields in the
envelope's order. Every attempt sends these exact bytes and signs them, so retries are
byte-identical. A redelivery re-freezes the same envelope with its own new `id`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from content_service.storage.outbox_event import OutboxEvent


def envelope(delivery_id: str, event: OutboxEvent) -> dict[str, Any]:
    return {
        "id": delivery_id,
        "event": event.kind,
        "eventId": event.id,
        "occurredAt": event.occurred_at,
        "workspaceId": event.workspace_id,
        "actor": event.actor,
        "data": event.data,
    }


def freeze(body: Mapping[str, Any]) -> bytes:
    """Compact UTF-8 JSON; refuses NaN and infinities, which are not JSON."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def refreeze(frozen: bytes, delivery_id: str) -> bytes:
    """The same envelope with a new delivery id (redeliver); every other byte is kept."""
    body = json.loads(frozen)
    if not isinstance(body, dict) or "id" not in body:
        raise ValueError("a frozen body must be an envelope")
    body["id"] = delivery_id
    return freeze(body)
