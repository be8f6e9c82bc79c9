"""Which outbox events purge the edge, and the tags they purge (docs/api.md, "Cache tags")."""

from __future__ import annotations

import pytest

from content_service.content.cache_tags import entry_tag, list_tag, token_tag, workspace_tag
from content_service.edge.changes import EdgeChange, edge_change, entry_change, tags_of
from content_service.storage.outbox_event import OutboxEvent


def event(kind: str, **data: str) -> OutboxEvent:
    body = {"kind": "content_entry", "id": "e1", "contentType": "post", **data}
    return OutboxEvent("ev", kind, "2026-01-01T00:00:00Z", "ws", None, body)


@pytest.mark.parametrize(
    "kind",
    ["entry.published", "entry.unpublished", "entry.deleted", "entry.restored", "entry.purged"],
)
def test_a_visible_change_purges_the_entry_and_its_type_s_lists(kind: str) -> None:
    change = entry_change(event(kind))
    assert change == EdgeChange("entry", "ws", content_type="post", entry_id="e1")
    assert set(change.tags()) == {entry_tag("ws", "e1"), list_tag("ws", "post")}


@pytest.mark.parametrize("kind", ["entry.created", "entry.updated", "endpoint.disabled"])
def test_a_draft_change_purges_nothing(kind: str) -> None:
    assert entry_change(event(kind)) is None


def test_workspace_and_token_changes_purge_their_tags_each_once() -> None:
    changes = [
        EdgeChange("workspace", "ws"),
        EdgeChange("token", "ws", token_id="t1"),
        EdgeChange("workspace", "ws"),
    ]
    assert tags_of(changes) == sorted({workspace_tag("ws"), token_tag("t1")})


def test_a_type_change_purges_the_workspace_and_a_token_change_the_token() -> None:
    type_event = OutboxEvent(
        "ev", "contentType.changed", "t", "ws", None, {"kind": "content_type", "id": "post"}
    )
    token_event = OutboxEvent("ev", "token.changed", "t", "ws", None, {"kind": "token", "id": "t1"})
    assert edge_change(type_event) == EdgeChange("workspace", "ws")
    assert edge_change(token_event) == EdgeChange("token", "ws", token_id="t1")
    assert edge_change(event("entry.published")) == entry_change(event("entry.published"))
    assert edge_change(event("entry.updated")) is None
