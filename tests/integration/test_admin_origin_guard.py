"""Cross-origin writes are refused (docs/api.md, "Authentication"), over HTTP with a real session.

The admin pages write only through the webhooks API, so every write route of that API is tried
with the admin's session cookie and a foreign `Origin`, a foreign `Referer`, an opaque `null`
origin, a look-alike host, and with neither header. Each must answer 403 `forbidden_origin`
and change nothing: no endpoint, secret, delivery row or outgoing request differs afterwards.
The same requests from the page's own origin then succeed, so the refusals are the guard's.
The page routes accept no writes at all, and the sign-in pages refuse foreign writes too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute

from content_service.api.routes import admin, webhooks
from content_service.webhooks import services
from harness.receiver import Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.webhooks import Hooks, mark_failed, rows_for_endpoint, seed_rows, settings

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
WEBHOOK_WRITES = {
    ("POST", "/api/webhooks"),
    ("PATCH", "/api/webhooks/{endpoint_id}"),
    ("DELETE", "/api/webhooks/{endpoint_id}"),
    ("POST", "/api/webhooks/{endpoint_id}/rotate-secret"),
    ("POST", "/api/webhooks/{endpoint_id}/test"),
    ("POST", "/api/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver"),
    ("POST", "/api/webhooks/{endpoint_id}/deliveries/{delivery_id}/retry"),
    ("POST", "/api/webhooks/{endpoint_id}/recover"),
    ("POST", "/api/webhooks/{endpoint_id}/pull"),
}
FOREIGN = "http://evil.example"


def write_routes(*routers: Any) -> set[tuple[str, str]]:
    found = set()
    for router in routers:
        for route in router.routes:
            if isinstance(route, APIRoute):
                methods = route.methods or set()
                found |= {(method, route.path) for method in methods & WRITE_METHODS}
    return found


def test_every_write_route_is_covered_here() -> None:
    """A new write route must be added to WEBHOOK_WRITES (and so to the tests below)."""
    assert write_routes(webhooks.router) == WEBHOOK_WRITES
    assert write_routes(admin.router) == set(), "the admin pages must not accept writes"


def header_variants(base_url: str) -> dict[str, dict[str, str]]:
    return {
        "foreign Origin": {"Origin": FOREIGN},
        "foreign Origin, own Referer": {"Origin": FOREIGN, "Referer": f"{base_url}/webhooks"},
        "foreign Referer": {"Referer": f"{FOREIGN}/webhooks"},
        "null Origin": {"Origin": "null"},
        "look-alike Origin": {"Origin": f"{base_url}.evil.example"},
        "other port": {"Origin": base_url.rsplit(":", 1)[0] + ":1"},
        "neither Origin nor Referer": {},
    }


@pytest.fixture
def bare_session(base_url: str, admin_session: httpx.Client) -> Iterator[httpx.Client]:
    """The admin's session cookie on a client that adds no Origin or Referer of its own."""
    with httpx.Client(base_url=base_url, cookies=admin_session.cookies, timeout=30) as client:
        yield client


@pytest.fixture
def target(
    hooks: Hooks, receiver: Receiver, new_workspace: Any, local_receivers_allowed: None
) -> dict[str, Any]:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(receiver.url("/guarded"), workspaces=[workspace.id])
    listener = hooks.create(receiver.url("/pulled"), workspaces=[workspace.id], mode="pull")
    row, failed = seed_rows(endpoint["id"], FakeClock(), count=2)
    mark_failed(failed.id)
    return {
        "endpoint": endpoint,
        "delivery_id": row.id,
        "failed_id": failed.id,
        "listener": listener,
        "workspace": workspace,
    }


def requests_for(target: dict[str, Any], receiver: Receiver) -> list[tuple[str, str, Any, int]]:
    """(method, path, JSON body, status when allowed) for every webhook write route."""
    endpoint_id = target["endpoint"]["id"]
    base = f"/api/webhooks/{endpoint_id}"
    workspace_id = target["workspace"].id
    return [
        ("POST", f"{base}/rotate-secret", None, 200),
        ("POST", f"{base}/test", None, 200),
        ("POST", f"{base}/deliveries/{target['delivery_id']}/redeliver", None, 202),
        ("POST", f"{base}/deliveries/{target['failed_id']}/retry", None, 202),
        ("POST", f"{base}/recover", {"since": "2026-01-01T00:00:00Z"}, 202),
        ("POST", f"/api/webhooks/{target['listener']['id']}/pull", {"wait": 0}, 200),
        ("PATCH", base, {"url": receiver.url("/moved"), "enabled": False}, 200),
        ("POST", "/api/webhooks", {"url": receiver.url("/new"), "workspaces": [workspace_id]}, 201),
        ("DELETE", base, None, 204),
    ]


def state(endpoint_id: str, receiver: Receiver) -> dict[str, Any]:
    """Everything a webhook write could change."""
    endpoints = services.endpoint_store(settings()).all()
    return {
        "endpoints": sorted(
            (e.id, e.url, e.secret, e.enabled, e.disabled_reason, e.updated_at, e.lease_expires_at)
            for e in endpoints
        ),
        "deliveries": sorted(
            (r.id, r.status, r.attempts, r.next_attempt_at) for r in rows_for_endpoint(endpoint_id)
        ),
        "received": len(receiver.requests),
    }


def test_cross_origin_webhook_writes_are_refused_and_change_nothing(
    stack: LocalStack,
    base_url: str,
    bare_session: httpx.Client,
    target: dict[str, Any],
    receiver: Receiver,
    hooks: Hooks,
) -> None:
    endpoint_id = target["endpoint"]["id"]
    requests = requests_for(target, receiver)
    assert {(m, p) for m, p, _, _ in requests} != set()
    before = state(endpoint_id, receiver)
    tried = 0
    for variant, headers in header_variants(base_url).items():
        for method, path, body, _ in requests:
            response = bare_session.request(method, path, json=body, headers=headers)
            assert response.status_code == 403, (variant, method, path, response.text)
            error = response.json()["error"]
            assert error["code"] == "forbidden_origin", (variant, method, path, error)
            tried += 1
    assert tried == len(header_variants(base_url)) * len(WEBHOOK_WRITES)
    assert state(endpoint_id, receiver) == before

    # From the page's own origin the same requests go through: the refusals were the guard's.
    for method, path, body, allowed in requests:
        response = bare_session.request(method, path, json=body, headers={"Origin": base_url})
        assert response.status_code == allowed, (method, path, response.text)
        if method == "POST" and path == "/api/webhooks":
            hooks.created.append(response.json()["id"])
    assert state(endpoint_id, receiver) != before
    stack.drain()  # the redelivery queued above, so no later test's drain meets it


def test_a_same_origin_referer_alone_is_accepted(
    base_url: str, bare_session: httpx.Client, target: dict[str, Any]
) -> None:
    """Browsers that send no Origin still send the Referer (pages use `same-origin` policy)."""
    endpoint_id = target["endpoint"]["id"]
    response = bare_session.post(
        f"/api/webhooks/{endpoint_id}/rotate-secret",
        headers={"Referer": f"{base_url}/webhooks/{endpoint_id}"},
    )
    assert response.status_code == 200, response.text


def test_page_routes_accept_no_writes(
    base_url: str, bare_session: httpx.Client, target: dict[str, Any], receiver: Receiver
) -> None:
    endpoint_id = target["endpoint"]["id"]
    paths = [
        "/webhooks",
        "/webhooks/new",
        f"/webhooks/{endpoint_id}",
        f"/webhooks/{endpoint_id}/edit",
    ]
    before = state(endpoint_id, receiver)
    for path in paths:
        for method in sorted(WRITE_METHODS):
            foreign = bare_session.request(method, path, headers={"Origin": FOREIGN})
            assert foreign.status_code == 403, (method, path)
            assert foreign.json()["error"]["code"] == "forbidden_origin"
            bare = bare_session.request(method, path)
            assert bare.status_code == 403, (method, path)
            own = bare_session.request(method, path, headers={"Origin": base_url})
            assert own.status_code == 405, (method, path, own.text)
    assert state(endpoint_id, receiver) == before


def test_sign_in_and_sign_out_refuse_foreign_writes(
    base_url: str, bare_session: httpx.Client, credentials: dict[str, Any]
) -> None:
    """A foreign page can neither sign the admin out nor sign the browser in as someone else."""
    for headers in header_variants(base_url).values():
        refused = bare_session.post("/logout", headers=headers)
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "forbidden_origin"
    assert bare_session.get("/api/v1/me").json()["role"] == "admin"
    admin = credentials["admin"]
    forged = bare_session.post(
        "/login",
        data={"email": admin["email"], "password": admin["password"]},
        headers={"Origin": FOREIGN},
    )
    assert forged.status_code == 403
    assert forged.json()["error"]["code"] == "forbidden_origin"


def test_writes_take_json_only(
    base_url: str, bare_session: httpx.Client, target: dict[str, Any], receiver: Receiver
) -> None:
    """A body a cross-site form could send (no CORS preflight) is never read as JSON, even when
    the Origin check would pass."""
    endpoint_id = target["endpoint"]["id"]
    before = state(endpoint_id, receiver)
    body = json.dumps({"url": receiver.url("/plain"), "allWorkspaces": True})
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        response = bare_session.post(
            "/api/webhooks",
            content=body.encode(),
            headers={"Origin": base_url, "Content-Type": content_type},
        )
        assert response.status_code == 422, (content_type, response.text)
        patched = bare_session.patch(
            f"/api/webhooks/{endpoint_id}",
            content=json.dumps({"enabled": False}).encode(),
            headers={"Origin": base_url, "Content-Type": content_type},
        )
        assert patched.status_code == 422, (content_type, patched.text)
    assert state(endpoint_id, receiver) == before
