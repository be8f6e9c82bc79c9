"""The changes that alter cached answers without an entry changing write their own outbox
event, in the same transaction, for the edge purge (docs/api.md, "Cache tags"): a content type
replaced or deleted, a token narrowed or revoked. Webhook endpoints never receive them."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.clients import WorkspaceAccess
from tests.support.content import Storage, define


def kinds(storage: Storage, workspace_id: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in storage.events(workspace_id) if e["kind"] == kind]


def test_replacing_and_deleting_a_type_each_write_one_type_event(
    new_workspace: Any, storage: Storage
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    assert kinds(storage, workspace.id, "contentType.changed") == []
    body = {
        "name": "note",
        "fields": [{"name": "text", "type": "string"}, {"name": "n", "type": "integer"}],
    }
    replaced = workspace.full.put("/api/v1/content-types/note", json=body)
    assert replaced.status_code == 200, replaced.text
    assert workspace.full.delete("/api/v1/content-types/note").status_code == 204
    events = kinds(storage, workspace.id, "contentType.changed")
    assert [e["data"] for e in events] == [{"kind": "content_type", "id": "note"}] * 2


def test_narrowing_and_revoking_a_token_each_write_one_token_event(
    admin: httpx.Client, new_workspace: Any, storage: Storage
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = admin.post(
        "/api/v1/tokens", json={"name": "site", "workspaceId": workspace.id, "access": "read"}
    ).json()
    token_id = created["id"]
    narrowed = admin.patch(f"/api/v1/tokens/{token_id}", json={"audiences": ["members"]})
    assert narrowed.status_code == 200, narrowed.text
    assert narrowed.json()["audiences"] == ["members"]
    assert admin.delete(f"/api/v1/tokens/{token_id}").status_code == 204
    assert admin.delete(f"/api/v1/tokens/{token_id}").status_code == 204  # already revoked
    events = kinds(storage, workspace.id, "token.changed")
    assert [e["data"] for e in events] == [{"kind": "token", "id": token_id}] * 2
