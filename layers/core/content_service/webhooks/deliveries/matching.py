"""Subscription matching (docs/webhooks.md, "Fan-out"): an event reaches an endpoint when all
three sets match.

1. Workspace: `allWorkspaces`, or the event's workspace is in the endpoint's list. An empty
   list means none, not all; an event without a workspace reaches only `allWorkspaces`.
2. Event kind: an empty set means every kind, including kinds added to the catalogue later.
3. Content type: an empty set means every type, including types created later; applied only
   to kinds the catalogue says are filtered by content type.
Only the catalogue's subscribable kinds are delivered at all (`ping` is never fanned out),
and a disabled endpoint takes no new deliveries. An operational event (about an endpoint: it is
failing, disabled, recovered) has no workspace, so by rule 1 it reaches `allWorkspaces`
endpoints only, and never the endpoint it is about. There is no expression language.
"""

from __future__ import annotations

from content_service.storage.outbox_event import OutboxEvent

from ..endpoints import CATALOGUE, ENDPOINT_SUBJECT, SUBSCRIBABLE_KINDS, Endpoint

_FILTERED_BY_TYPE = frozenset(e.kind for e in CATALOGUE if e.filtered_by_content_type)


def workspace_matches(endpoint: Endpoint, workspace_id: str | None) -> bool:
    if endpoint.all_workspaces:
        return True
    return workspace_id is not None and workspace_id in endpoint.workspaces


def kind_matches(endpoint: Endpoint, kind: str) -> bool:
    return not endpoint.events or kind in endpoint.events


def content_type_matches(endpoint: Endpoint, kind: str, content_type: str | None) -> bool:
    if not endpoint.content_types or kind not in _FILTERED_BY_TYPE:
        return True
    return content_type is not None and content_type in endpoint.content_types


def is_about(endpoint: Endpoint, event: OutboxEvent) -> bool:
    """Whether the event is a notice about this very endpoint."""
    return event.data.get("kind") == ENDPOINT_SUBJECT and event.data.get("id") == endpoint.id


def matches(endpoint: Endpoint, event: OutboxEvent) -> bool:
    return (
        endpoint.enabled
        and event.kind in SUBSCRIBABLE_KINDS
        and workspace_matches(endpoint, event.workspace_id)
        and kind_matches(endpoint, event.kind)
        and content_type_matches(endpoint, event.kind, event.content_type)
        and not is_about(endpoint, event)
    )
