"""The event catalogue of spec 6.1, as data.

The catalogue is the service (spec 9.3): validation of an endpoint's event kinds, the admin
picker and `GET /api/webhook-events` all read this one table, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Group = Literal["content", "system"]


@dataclass(frozen=True)
class EventKind:
    """One row of the catalogue."""

    kind: str
    group: Group
    filtered_by_content_type: bool
    carries_workspace: bool


PING = "ping"

CATALOGUE: tuple[EventKind, ...] = (
    EventKind("entry.created", "content", True, True),
    EventKind("entry.updated", "content", True, True),
    EventKind("entry.published", "content", True, True),
    EventKind("entry.unpublished", "content", True, True),
    EventKind("entry.deleted", "content", True, True),
    EventKind("entry.restored", "content", True, True),
    EventKind("entry.purged", "content", True, True),
    EventKind(PING, "system", False, False),
)

ENTRY_EVENT_KINDS: tuple[str, ...] = tuple(
    event.kind for event in CATALOGUE if event.kind.startswith("entry.")
)

# `ping` is only sent by Send test to one endpoint, so subscribing to it means nothing.
SUBSCRIBABLE_KINDS: frozenset[str] = frozenset(
    event.kind for event in CATALOGUE if event.group == "content"
)

_BY_KIND = {event.kind: event for event in CATALOGUE}


def is_known_kind(kind: str) -> bool:
    """True for any kind this server knows, `ping` included."""
    return kind in _BY_KIND


def to_json() -> list[dict[str, str | bool]]:
    """The body of `GET /api/webhook-events` (CONTRACT.md), in catalogue order."""
    return [
        {
            "kind": event.kind,
            "group": event.group,
            "filteredByContentType": event.filtered_by_content_type,
            "carriesWorkspace": event.carries_workspace,
        }
        for event in CATALOGUE
    ]
