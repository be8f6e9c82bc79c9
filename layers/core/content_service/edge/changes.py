"""What a change means at the edge: the answers a cache must drop after it (docs/api.md,
"Cache tags").

An `EdgeChange` is one thing a read token may now see differently: an entry or asset (its
answers and its type's lists), a whole workspace (a content type changed), or one token (it was
narrowed or revoked). A purger turns changes into what its edge understands: Varnish and Fastly
purge by the tags (`tags()`), CloudFront invalidates paths. Changes come from the outbox events,
so the purge runs after the write, never inside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from content_service.content.cache_tags import change_tags, token_tag, workspace_tag
from content_service.storage.edge_events import TOKEN_CHANGED, TYPE_CHANGED
from content_service.storage.outbox_event import OutboxEvent

VISIBLE_ENTRY_EVENTS = frozenset(
    {"entry.published", "entry.unpublished", "entry.deleted", "entry.restored", "entry.purged"}
)
"""The entry events that can change what a read token sees (its published view): a draft's
creation or update changes nothing a cache holds."""

Scope = Literal["entry", "workspace", "token"]


@dataclass(frozen=True)
class EdgeChange:
    scope: Scope
    workspace_id: str
    content_type: str = ""
    entry_id: str = ""
    token_id: str = ""
    event_id: str = field(default="", compare=False)
    """The outbox event it came from: a purge named after its events is the same purge when a
    batch is retried (CloudFront's `CallerReference`)."""

    def tags(self) -> list[str]:
        if self.scope == "entry":
            return change_tags(self.workspace_id, self.content_type, self.entry_id)
        if self.scope == "token":
            return [token_tag(self.token_id)]
        return [workspace_tag(self.workspace_id)]


def entry_change(event: OutboxEvent) -> EdgeChange | None:
    """The edge change of an entry event, or None when the event changes no cached answer."""
    if event.kind not in VISIBLE_ENTRY_EVENTS or event.workspace_id is None:
        return None
    if event.data.get("kind") != "content_entry" or event.content_type is None:
        return None
    return EdgeChange(
        "entry",
        event.workspace_id,
        content_type=event.content_type,
        entry_id=event.data["id"],
        event_id=event.id,
    )


def edge_change(event: OutboxEvent) -> EdgeChange | None:
    """What any outbox event means at the edge: an entry's visible change, a content type
    replaced or deleted (the workspace), a token narrowed or revoked; None for the rest."""
    subject = event.data.get("id")
    if event.workspace_id is None or not isinstance(subject, str):
        return None
    if event.kind == TYPE_CHANGED:
        return EdgeChange("workspace", event.workspace_id, event_id=event.id)
    if event.kind == TOKEN_CHANGED:
        return EdgeChange("token", event.workspace_id, token_id=subject, event_id=event.id)
    return entry_change(event)


def tags_of(changes: Iterable[EdgeChange]) -> list[str]:
    """Every tag the changes purge, each once, in a stable order."""
    return sorted({tag for change in changes for tag in change.tags()})


class PurgeFailed(Exception):
    """The edge did not confirm a purge: its answers may still be stale, so the caller retries."""


class Purger(Protocol):
    """An edge's purge: drops every cached answer the changes may alter, or raises
    `PurgeFailed` when the edge did not confirm it."""

    def purge(self, changes: Sequence[EdgeChange]) -> None: ...
