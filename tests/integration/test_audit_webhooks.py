"""Webhook endpoints and sign-outs in the audit log, over real HTTP: each change to an endpoint
(create, update, disable, enable, secret rotation, redeliver, retry, recover, delete; the
worker's automatic disable too) leaves exactly one `webhook.*` record in the `service` log
naming who made it and what changed, never a secret or a header value; the send test and a
listener's pull change nothing and leave none; signing out leaves `signOut`.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx

from content_service import runtime
from content_service.identity.users import create_user
from content_service.webhooks import services
from harness.receiver import Receiver
from harness.webhooks import FakeClock
from tests.support.audit_log import every_record
from tests.support.clients import ClientFactory, WorkspaceAccess, sign_in
from tests.support.webhooks import Hooks, Receiving, endpoint, mark_failed, seed_rows

HEADER_VALUE = "Bearer receiver-credential-7f3a9"


def service_log(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    """Every record of the `service` log the filters match, newest first."""
    return every_record(client, **{"scope": "service", **params})


def _ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


def test_each_endpoint_change_leaves_one_record_without_secrets(
    credentials: dict[str, Any], receiving: Receiving
) -> None:
    workspace, hooks, receiver = receiving
    admin = hooks.client
    made = hooks.create(
        receiver.url("/hook"),
        workspaces=[workspace.id],
        headers={"Authorization": HEADER_VALUE},
        rateLimit=5,
    )
    base = f"/api/webhooks/{made['id']}"
    hooks.patch(made["id"], url=receiver.url("/moved"), events=["entry.created"], rateLimit=None)
    hooks.patch(made["id"], enabled=False)
    hooks.patch(made["id"], enabled=True)
    rotated = _ok(admin.post(f"{base}/rotate-secret", json={"graceSeconds": 60}))
    row, failed = seed_rows(made["id"], FakeClock(), count=2, workspace_id=workspace.id)
    mark_failed(failed.id)
    _ok(admin.post(f"{base}/deliveries/{row.id}/redeliver"), 202)
    _ok(admin.post(f"{base}/deliveries/{failed.id}/retry"), 202)
    _ok(admin.post(f"{base}/recover", json={"since": "2026-01-01T00:00:00Z"}), 202)
    _ok(admin.post(f"{base}/test"))
    _ok(admin.delete(base), 204)

    records = list(reversed(service_log(admin, target=f"webhook:{made['id']}")))
    assert [r["action"] for r in records] == [
        "webhook.created",
        "webhook.updated",
        "webhook.disabled",
        "webhook.enabled",
        "webhook.secretRotated",
        "webhook.redelivered",
        "webhook.retried",
        "webhook.recoveryStarted",
        "webhook.deleted",
    ]
    admin_actor = {"kind": "user", "email": credentials["admin"]["email"]}
    assert all({k: r["actor"][k] for k in admin_actor} == admin_actor for r in records)
    created, updated, disabled, enabled, rotation = (r["changes"] for r in records[:5])
    assert created["fields"] == [
        "allWorkspaces",
        "contentTypes",
        "enabled",
        "events",
        "headers",
        "mode",
        "rateLimit",
        "secret",
        "signatureScheme",
        "type",
        "url",
        "workspaces",
    ]
    assert created["values"]["headers"] == ["Authorization"]
    assert "secret" not in created["values"]
    assert updated == {
        "fields": ["events", "rateLimit", "url"],
        "values": {"events": ["entry.created"], "rateLimit": None, "url": receiver.url("/moved")},
    }
    assert disabled == {"fields": ["enabled"], "values": {"enabled": False}}
    assert enabled == {"fields": ["enabled"], "values": {"enabled": True}}
    assert rotation == {"fields": ["graceSeconds", "secret"], "values": {"graceSeconds": 60}}
    assert records[5]["changes"]["values"]["redeliveryOf"] == row.id
    assert records[6]["changes"]["values"] == {"delivery": failed.id}
    assert all(r["correlationId"] and r["sourceAddress"] for r in records)
    everything = json.dumps(records)
    for secret in (made["secret"], rotated["secret"], HEADER_VALUE, "receiver-credential"):
        assert secret not in everything


def test_a_listeners_pull_changes_nothing_worth_a_record(
    hooks: Hooks, receiver: Receiver, new_workspace: Any, local_receivers_allowed: None
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    listener = hooks.create(receiver.url("/pulled"), workspaces=[workspace.id], mode="pull")
    _ok(hooks.client.post(f"/api/webhooks/{listener['id']}/pull", json={"wait": 0}))

    records = service_log(hooks.client, target=f"webhook:{listener['id']}")
    assert [r["action"] for r in records] == ["webhook.created"]


def test_the_workers_automatic_disable_is_recorded_as_the_worker(
    hooks: Hooks, receiver: Receiver, new_workspace: Any, local_receivers_allowed: None
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    made = hooks.create(receiver.url("/dying"), workspaces=[workspace.id])
    notices = services.endpoint_notices(runtime.settings(), FakeClock())

    assert notices.disabled(endpoint(made["id"]), "5 deliveries in a row were dead")
    assert not notices.disabled(endpoint(made["id"]), "again")

    disabled = service_log(hooks.client, target=f"webhook:{made['id']}", action="webhook.disabled")
    assert [(r["actor"], r["changes"]) for r in disabled] == [
        (
            {"kind": "system", "id": "webhooks"},
            {"fields": ["enabled"], "values": {"enabled": False}},
        )
    ]


def test_signing_out_is_recorded_as_the_user(
    make_client: ClientFactory, admin: httpx.Client
) -> None:
    email, password = f"out-{uuid.uuid4().hex[:8]}@example.com", "a long password 2"
    user = create_user(runtime.settings(), email, "editor", password)
    client = sign_in(make_client(), email, password)

    assert client.post("/logout").status_code == 303
    assert client.post("/logout").status_code == 303  # already out: nothing more to record

    records = service_log(admin, target=f"user:{user.id}")
    assert [r["action"] for r in records] == ["signOut", "signIn.succeeded", "user.created"]
    assert records[0]["actor"] == {"kind": "user", "id": user.id, "email": email}
