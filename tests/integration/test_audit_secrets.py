"""No secret in the audit log: one change of every audited kind (entries, an asset, a schedule
made and run, a content type, tokens, a webhook endpoint with a secret and an Authorization
header, its rotation, a user with a password, a sign-in, a failed sign-in, a sign-out), then
every stored record (the audit table read whole), every record the API shows and the
`audit export` output are searched for each token, secret, header value, password, password
hash and session id the changes involved, and their digests: none may appear.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from typing import Any

import httpx
import pytest

from content_service import runtime
from content_service.clock import iso_utc
from content_service.content.writes import run_due
from content_service.identity.models import UserRecord
from content_service.identity.tokens import TokenSpec, create_token
from content_service.identity.users import create_user
from content_service.identity.workspaces import create_workspace
from content_service.storage import dynamo
from harness.receiver import Receiver
from harness.webhooks import FakeClock
from tests.support.assets import new_asset, png
from tests.support.cli import run_cli
from tests.support.clients import ClientFactory, sign_in
from tests.support.content import create, define
from tests.support.webhooks import Hooks

HEADER_VALUE = "Bearer header-credential-41c7e"


def _ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


def _session_id(client: httpx.Client) -> str:
    """The session id inside the signed session cookie (base64 JSON, then the signature)."""
    cookie = client.cookies.get("cs_session")
    assert cookie is not None
    payload = cookie.split(".")[0]
    session: dict[str, str] = json.loads(base64.b64decode(payload + "=" * (-len(payload) % 4)))
    return session["sid"]


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _content_changes(full: httpx.Client) -> None:
    """An entry created, changed, published, scheduled (the schedule run), deleted; an asset."""
    define(full, "article", [{"name": "title", "type": "string", "required": True}])
    entry_id = create(full, "article", {"title": "First"})["id"]
    url = f"/api/v1/content/article/{entry_id}"
    _ok(full.patch(url, json={"values": {"title": "Second"}}))
    _ok(full.post(f"{url}/publish"))
    clock = FakeClock()
    at = iso_utc(clock.now() + 120)
    _ok(full.post(f"{url}/schedules", json={"action": "unpublish", "at": at}), 201)
    clock.advance(180)
    run_due(lambda: False, clock)
    _ok(full.delete(url), 204)
    new_asset(full, png(), "logo.png", "image/png", title="Logo")


def _admin_changes(hooks: Hooks, receiver: Receiver, workspace_id: str) -> list[str]:
    """A token made, changed and revoked; an endpoint made with a secret and an Authorization
    header, its headers and secret changed, deleted. Answers the secrets they showed."""
    admin = hooks.client
    body = {"name": "scanned", "workspaceId": workspace_id, "access": "read"}
    token = _ok(admin.post("/api/v1/tokens", json=body), 201)
    _ok(admin.patch(f"/api/v1/tokens/{token['id']}", json={"rateLimit": 5}))
    _ok(admin.delete(f"/api/v1/tokens/{token['id']}"), 204)
    made = hooks.create(
        receiver.url("/scanned"), workspaces=[workspace_id], headers={"Authorization": HEADER_VALUE}
    )
    hooks.patch(made["id"], headers={"Authorization": HEADER_VALUE + "-2"})
    rotated = _ok(admin.post(f"/api/webhooks/{made['id']}/rotate-secret"))
    _ok(admin.delete(f"/api/webhooks/{made['id']}"), 204)
    return [token["token"], made["secret"], rotated["secret"]]


def _sign_in_changes(make_client: ClientFactory) -> list[str]:
    """A user made with a password, a failed sign-in, a sign-in and a sign-out; answers the
    password tried, the password, its hash and the session id."""
    email, password = f"scan-{uuid.uuid4().hex[:8]}@example.com", "scanned password 9f2"
    user = create_user(runtime.settings(), email, "editor", password)
    wrong = "wrong password 9f2 zz"
    assert make_client().post("/login", data={"email": email, "password": wrong}).status_code == 401
    client = sign_in(make_client(), email, password)
    session = _session_id(client)
    assert client.post("/logout").status_code == 303
    stored = UserRecord.get(f"USER#{user.id}", "USER")
    return [wrong, password, stored.passwordHash, session]


def _exported(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert run_cli("audit", "export", *argv) == 0
    return capsys.readouterr().out


def test_no_record_holds_a_secret(
    make_client: ClientFactory,
    hooks: Hooks,
    receiver: Receiver,
    local_receivers_allowed: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    slug = f"ws-{uuid.uuid4().hex[:12]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    bearer, _ = create_token(TokenSpec(name="scan", workspace_id=workspace.id, access="full"))
    _content_changes(make_client(bearer))
    secrets = [bearer, HEADER_VALUE, *_admin_changes(hooks, receiver, workspace.id)]
    secrets += _sign_in_changes(make_client)
    capsys.readouterr()

    scan = {"TableName": dynamo.tables().audit, "ConsistentRead": True}
    stored = [dynamo.decode(i) for page in dynamo.pages("scan", scan, None) for i in page["Items"]]
    admin, in_workspace = hooks.client, {"X-Workspace-Id": workspace.id}
    shown = [
        admin.get("/api/v1/audit", params={"limit": "200", "scope": scope}, headers=in_workspace)
        for scope in ("workspace", "service")
    ]
    assert [r.status_code for r in shown] == [200, 200]
    exported = _exported(capsys, "--workspace", slug) + _exported(capsys, "--service")
    everything = "\n".join([json.dumps(stored, default=str), *(r.text for r in shown), exported])
    actions = {r["action"] for r in stored if r["pk"] in (workspace.id, "service")}
    assert {"entry.created", "entry.updated", "entry.published", "entry.unpublished"} <= actions
    assert {"token.created", "token.updated", "token.revoked", "webhook.created"} <= actions
    assert {"webhook.updated", "webhook.secretRotated", "user.created", "signOut"} <= actions
    assert {"signIn.failed", "signIn.succeeded", "contentType.created"} <= actions
    for secret in secrets:
        assert secret not in everything
        assert _digest(secret) not in everything
    assert "header-credential" not in everything
