"""The event catalogue (docs/webhooks.md, "Catalogue and Send test"), as data.

The catalogue is the service: validation of an endpoint's event kinds, the admin
picker and `GET /api/webhook-events` all read this one table, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Group = Literal["content", "operational", "system"]


@dataclass(frozen=True)
class EventKind:
    """One row of the catalogue."""

    kind: str
    group: Group
    filtered_by_content_type: bool
    carries_workspace: bool
    description: str


PING = "ping"

CATALOGUE: tuple[EventKind, ...] = (
    EventKind(
        "entry.created", "content", True, True, "An entry was created; it starts as a draft."
    ),
    EventKind(
        "entry.updated",
        "content",
        True,
        True,
        "An entry's values or relations changed (published or not).",
    ),
    EventKind(
        "entry.published", "content", True, True, "An entry was published: read tokens see it."
    ),
    EventKind(
        "entry.unpublished",
        "content",
        True,
        True,
        "A published entry went back to draft: read tokens no longer see it.",
    ),
    EventKind(
        "entry.deleted", "content", True, True, "An entry was moved to the trash (restorable)."
    ),
    EventKind("entry.restored", "content", True, True, "A trashed entry was brought back."),
    EventKind("entry.purged", "content", True, True, "A trashed entry was removed for good."),
    EventKind(
        PING,
        "system",
        False,
        False,
        "Sent only by Send test, to check an endpoint and its signature verification.",
    ),
    # Notices about the endpoints themselves (docs/webhooks.md, "Operational events").
    EventKind(
        "endpoint.failing",
        "operational",
        False,
        False,
        "An endpoint's consecutive dead deliveries reached half of autoDisableAfter.",
    ),
    EventKind(
        "endpoint.disabled",
        "operational",
        False,
        False,
        "An endpoint was disabled (after autoDisableAfter dead deliveries in a row, or by an "
        "administrator); data.reason says why.",
    ),
    EventKind(
        "endpoint.recovered",
        "operational",
        False,
        False,
        "The first successful delivery to an endpoint that was failing or disabled.",
    ),
)

# The ids of every example envelope: fixed, so the catalogue is the same on every call.
EXAMPLE_DELIVERY_ID = "5f0c6a53-2a56-4b0e-9c1e-6a7d2c9e0b11"
EXAMPLE_EVENT_ID = "9b2e7f4c-81d3-4f6a-a0c5-3e8d1b7f6a22"
EXAMPLE_WORKSPACE_ID = "0d7c3b9e-6f1a-4c2d-8e5b-7a9f1c3e5d33"
EXAMPLE_ENTRY_ID = "c4a8e1f2-3b5d-4e6f-9a7c-1d2e3f4a5b44"
EXAMPLE_USER_ID = "7e6d5c4b-3a29-4f18-8e07-d6c5b4a39255"
EXAMPLE_ENDPOINT_ID = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e66"
EXAMPLE_OCCURRED_AT = "2026-01-15T09:30:00.000Z"

ENTRY_EVENT_KINDS: tuple[str, ...] = tuple(
    event.kind for event in CATALOGUE if event.kind.startswith("entry.")
)

OPERATIONAL_KINDS: tuple[str, ...] = tuple(
    event.kind for event in CATALOGUE if event.group == "operational"
)

# `ping` is only sent by Send test to one endpoint, so subscribing to it means nothing.
SUBSCRIBABLE_KINDS: frozenset[str] = frozenset(
    event.kind for event in CATALOGUE if event.group in ("content", "operational")
)

# What an operational event's `data.kind` is: the event is about a webhook endpoint.
ENDPOINT_SUBJECT = "webhook_endpoint"

_BY_KIND = {event.kind: event for event in CATALOGUE}


def is_known_kind(kind: str) -> bool:
    """True for any kind this server knows, `ping` included."""
    return kind in _BY_KIND


def kind_of(kind: str) -> EventKind:
    return _BY_KIND[kind]


def example_envelope(kind: str) -> dict[str, Any]:
    """An envelope of `kind` exactly as a receiver gets it, with example ids."""
    event = _BY_KIND[kind]
    data: dict[str, Any]
    if event.kind == PING:
        data = {"kind": "endpoint", "id": EXAMPLE_ENDPOINT_ID}
    elif event.group == "operational":
        data = _operational_example(event.kind)
    else:
        data = {
            "kind": "content_entry",
            "id": EXAMPLE_ENTRY_ID,
            "contentType": "blog_post",
            "title": "Hello, world",
        }
    return {
        "id": EXAMPLE_DELIVERY_ID,
        "event": event.kind,
        "eventId": EXAMPLE_EVENT_ID,
        "occurredAt": EXAMPLE_OCCURRED_AT,
        "workspaceId": EXAMPLE_WORKSPACE_ID if event.carries_workspace else None,
        "actor": (
            {"id": EXAMPLE_USER_ID, "email": "editor@example.com"}
            if event.group == "content"
            else None
        ),
        "data": data,
    }


def _operational_example(kind: str) -> dict[str, Any]:
    reasons = {
        "endpoint.failing": (
            f"10 consecutive dead deliveries (last: {EXAMPLE_DELIVERY_ID}, HTTP 410 is final); "
            "disabled at 20"
        ),
        "endpoint.disabled": (
            f"disabled after 20 consecutive dead deliveries (last: {EXAMPLE_DELIVERY_ID}, "
            "HTTP 410 is final)"
        ),
        "endpoint.recovered": f"delivery {EXAMPLE_DELIVERY_ID} succeeded",
    }
    return {
        "kind": ENDPOINT_SUBJECT,
        "id": EXAMPLE_ENDPOINT_ID,
        "host": "hooks.example.com",
        "reason": reasons[kind],
        "consecutiveDead": {"endpoint.failing": 10, "endpoint.disabled": 20}.get(kind, 0),
    }


def catalogue_json() -> list[dict[str, Any]]:
    """The body of `GET /api/webhook-events` (docs/api.md), in catalogue order."""
    return [
        {
            "kind": event.kind,
            "group": event.group,
            "filteredByContentType": event.filtered_by_content_type,
            "carriesWorkspace": event.carries_workspace,
            "description": event.description,
            "example": example_envelope(event.kind),
        }
        for event in CATALOGUE
    ]
