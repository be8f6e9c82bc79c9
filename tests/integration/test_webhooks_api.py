"""The webhooks API (docs/api.md) through real HTTP: shapes, validation, access, the log."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from content_service import runtime
from content_service.clock import iso_utc
from content_service.identity.users import create_user
from content_service.webhooks import services, wiring
from content_service.webhooks.endpoints import catalogue_json
from harness.webhooks import FakeClock
from tests.support.clients import ClientFactory, WorkspaceAccess, sign_in
from tests.support.resolver import FakeResolver
from tests.support.settings import webhook_options
from tests.support.webhooks import HOSTILE_URLS, Hooks, hostile_resolver, seed_rows

PUBLIC = FakeResolver({"hooks.example.com": ["93.184.215.14"]})
URL = "https://hooks.example.com/in"
ENDPOINT_FIELDS = {
    "id",
    "url",
    "secretHint",
    "workspaces",
    "allWorkspaces",
    "events",
    "contentTypes",
    "headers",
    "enabled",
    "disabledReason",
    "consecutiveDead",
    "createdAt",
    "updatedAt",
    "mode",
    "leaseExpiresAt",
    "signatureScheme",
    "olderSecrets",
    "alertState",
    "rateLimit",
    "pausedUntil",
    "type",
    "eventBusArn",
}
DELIVERY_FIELDS = {
    "id",
    "endpointId",
    "eventId",
    "event",
    "status",
    "attempts",
    "nextAttemptAt",
    "createdAt",
    "updatedAt",
    "requestBody",
    "lastStatusCode",
    "lastDurationMs",
    "responseSnippet",
    "lastError",
    "redeliveryOf",
    "recoveryId",
    "recoveredBy",
}


@pytest.fixture(autouse=True)
def public_dns() -> Iterator[None]:
    """`hooks.example.com` resolves to a public address; no test here asks real DNS."""
    with wiring.overridden(resolver=PUBLIC):
        yield


def error_of(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["status"] == status
    assert error["message"]
    return error


# -- catalogue and endpoint records ---------------------------------------------------------


def test_event_catalogue_route_is_the_catalogue(hooks: Hooks) -> None:
    response = hooks.client.get("/api/webhook-events")
    assert response.status_code == 200
    assert response.json() == catalogue_json()
    (ping,) = [row for row in response.json() if row["kind"] == "ping"]
    assert {k: v for k, v in ping.items() if k not in ("description", "example")} == {
        "kind": "ping",
        "group": "system",
        "filteredByContentType": False,
        "carriesWorkspace": False,
    }
    assert ping["example"]["event"] == "ping"


def test_create_returns_the_secret_once(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(
        URL,
        workspaces=[workspace.slug],
        events=["entry.published", "entry.published", "entry.deleted"],
        contentTypes=["blog_post"],
        headers={"Authorization": "Bearer receiver-gate"},
    )
    assert set(created) == ENDPOINT_FIELDS | {"secret"}
    assert re.fullmatch(r"whsec_[A-Za-z0-9_-]{43}", created["secret"])
    assert created["secretHint"] == created["secret"][-4:]
    assert created["workspaces"] == [workspace.id]  # a slug is stored as the id
    assert created["events"] == ["entry.published", "entry.deleted"]
    assert created["contentTypes"] == ["blog_post"]
    assert created["headers"] == {"Authorization": "Bearer receiver-gate"}
    assert created["allWorkspaces"] is False
    assert created["enabled"] is True
    assert created["disabledReason"] is None
    assert created["consecutiveDead"] == 0

    read = hooks.get(created["id"])
    assert set(read) == ENDPOINT_FIELDS
    assert "secret" not in read
    assert read["secretHint"] == created["secretHint"]

    listed = hooks.client.get("/api/webhooks").json()["items"]
    mine = [item for item in listed if item["id"] == created["id"]]
    assert len(mine) == 1
    assert "secret" not in mine[0]
    assert mine[0]["latestDelivery"] is None


def test_defaults_of_a_minimal_endpoint(hooks: Hooks) -> None:
    created = hooks.create(URL)
    assert created["workspaces"] == []
    assert created["allWorkspaces"] is False
    assert created["events"] == []
    assert created["contentTypes"] == []
    assert created["headers"] == {}


def test_list_shows_each_endpoints_latest_delivery(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(URL, workspaces=[workspace.id])
    rows = seed_rows(endpoint["id"], FakeClock(), count=2)
    listed = hooks.client.get("/api/webhooks").json()["items"]
    latest = next(i for i in listed if i["id"] == endpoint["id"])["latestDelivery"]
    assert latest["id"] == rows[-1].id
    assert latest["status"] == "pending"
    assert list(latest) == [  # docs/webhooks.md, "API notes beyond the route table"
        *("id", "event", "status", "attempts", "lastStatusCode", "lastError"),
        *("createdAt", "updatedAt"),
    ]


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"url": URL, "events": ["entry.archived"]}, "entry.archived"),
        ({"url": URL, "events": ["ping"]}, "ping"),
        ({"url": URL, "workspaces": ["no-such-workspace"]}, "does not exist"),
        ({"url": URL, "workspaces": [str(uuid.uuid4())]}, "does not exist"),
        ({"url": URL, "contentTypes": ["Blog Post"]}, "snake_case"),
        ({"url": URL, "headers": {"X-Service-Signature": "forged"}}, "reserved prefix"),
        ({"url": URL, "headers": {"x-service-event": "forged"}}, "reserved prefix"),
        ({"url": URL, "headers": {"host": "elsewhere"}}, "set by the service"),
        ({"url": URL, "headers": {"Content-Type": "text/plain"}}, "set by the service"),
        ({"url": URL, "headers": {"CONTENT-LENGTH": "1"}}, "set by the service"),
        ({"url": URL, "headers": {"Transfer-Encoding": "chunked"}}, "set by the service"),
        ({"url": URL, "headers": {"Connection": "close"}}, "set by the service"),
        ({"url": URL, "headers": {"user-agent": "me"}}, "set by the service"),
        ({"url": URL, "headers": {"X-Ok": "a\r\nInjected: yes"}}, "control"),
        ({"url": URL, "headers": {"Bad Name": "x"}}, "token"),
        ({"url": URL, "headers": {"X-A": "1", "x-a": "2"}}, "differ only in case"),
        ({"url": "https://nowhere.example/in"}, "could not be resolved"),
        ({"url": "http://hooks.example.com/in"}, "http URLs are refused"),
        ({"url": "ftp://hooks.example.com/in"}, "scheme"),
        ({"url": "not a url"}, "whitespace"),
    ],
)
def test_invalid_endpoints_are_422(hooks: Hooks, body: dict[str, Any], fragment: str) -> None:
    error = error_of(hooks.client.post("/api/webhooks", json=body), 422)
    assert error["code"] == "validation_failed"
    assert fragment in error["message"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"url": 5},
        {"url": URL, "allWorkspaces": "yes"},
        {"url": URL, "events": "entry.created"},
        {"url": URL, "headers": {"X-A": 1}},
        {"url": URL, "unknown": True},
        {"url": URL, "enabled": None},
        {"url": URL, "workspaces": ["w"] * 201},
    ],
)
def test_malformed_bodies_are_422_not_500(hooks: Hooks, body: dict[str, Any]) -> None:
    error_of(hooks.client.post("/api/webhooks", json=body), 422)


def test_unparsable_json_is_a_400(hooks: Hooks) -> None:
    response = hooks.client.post(
        "/api/webhooks", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert error_of(response, 400)["code"] == "bad_request"
    assert response.json()["error"]["status"] == response.status_code


# -- SSRF on create and update ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "answers", "reason"), HOSTILE_URLS, ids=[h[0] for h in HOSTILE_URLS]
)
def test_hostile_urls_are_refused_on_create(
    hooks: Hooks, template: str, answers: list[str] | None, reason: str
) -> None:
    url = template.format(port=8443)
    with (
        webhook_options(allow_insecure_urls=True),
        wiring.overridden(resolver=hostile_resolver(8443)),
    ):
        error = error_of(hooks.client.post("/api/webhooks", json={"url": url}), 422)
    assert reason in error["message"], error
    assert error["details"]["field"] == "url"


def test_hostile_table_has_at_least_forty_urls() -> None:
    assert len(HOSTILE_URLS) >= 40


def test_hostile_url_is_refused_on_update(hooks: Hooks) -> None:
    endpoint = hooks.create(URL)
    with wiring.overridden(resolver=FakeResolver({"inside.test": ["10.0.0.8"]})):
        response = hooks.client.patch(
            f"/api/webhooks/{endpoint['id']}", json={"url": "https://inside.test/"}
        )
    assert "RFC 1918" in error_of(response, 422)["message"]
    assert hooks.get(endpoint["id"])["url"] == URL


def test_metadata_address_is_refused_even_with_private_networks_allowed(hooks: Hooks) -> None:
    with webhook_options(allow_private_networks=True, allow_insecure_urls=True):
        response = hooks.client.post(
            "/api/webhooks", json={"url": "http://169.254.169.254/latest/meta-data/"}
        )
        assert "cloud metadata" in error_of(response, 422)["message"]
        allowed = hooks.client.post("/api/webhooks", json={"url": "http://127.0.0.1:9/hook"})
        assert allowed.status_code == 201
        hooks.created.append(allowed.json()["id"])


# -- update, re-enable, delete, rotate --------------------------------------------------------


def test_patch_changes_only_what_it_names(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(URL, events=["entry.created"], headers={"X-Gate": "1"})
    patched = hooks.patch(endpoint["id"], workspaces=[workspace.id], contentTypes=["page"])
    assert patched["workspaces"] == [workspace.id]
    assert patched["contentTypes"] == ["page"]
    assert patched["events"] == ["entry.created"]
    assert patched["headers"] == {"X-Gate": "1"}
    assert patched["secretHint"] == endpoint["secretHint"]
    assert patched["updatedAt"] >= endpoint["updatedAt"]
    null = hooks.client.patch(f"/api/webhooks/{endpoint['id']}", json={"events": None})
    assert "events" in error_of(null, 422)["message"]


def test_disable_and_re_enable_clears_the_counter(hooks: Hooks) -> None:
    endpoint = hooks.create(URL)
    store = services.endpoint_store(runtime.settings())
    for _ in range(3):
        store.count_dead(endpoint["id"])
    disabled = hooks.patch(endpoint["id"], enabled=False)
    assert disabled["enabled"] is False
    assert disabled["disabledReason"] == "disabled by an administrator"
    assert disabled["consecutiveDead"] == 3
    enabled = hooks.patch(endpoint["id"], enabled=True)
    assert enabled["enabled"] is True
    assert enabled["disabledReason"] is None
    assert enabled["consecutiveDead"] == 0


def test_delete_then_404(hooks: Hooks) -> None:
    endpoint = hooks.create(URL)
    assert hooks.client.delete(f"/api/webhooks/{endpoint['id']}").status_code == 204
    error_of(hooks.client.get(f"/api/webhooks/{endpoint['id']}"), 404)
    error_of(hooks.client.delete(f"/api/webhooks/{endpoint['id']}"), 404)
    error_of(hooks.client.post(f"/api/webhooks/{endpoint['id']}/rotate-secret"), 404)


@pytest.mark.parametrize("endpoint_id", ["nope", "1" * 300, "0b7c1d2e-3f40-4a51-8b62-7c83d94ea5f6"])
def test_unknown_endpoint_ids_are_404(hooks: Hooks, endpoint_id: str) -> None:
    for method, path in [
        ("GET", ""),
        ("PATCH", ""),
        ("DELETE", ""),
        ("POST", "/rotate-secret"),
        ("POST", "/test"),
        ("GET", "/deliveries"),
        ("GET", f"/deliveries/{uuid.uuid4()}"),
        ("POST", f"/deliveries/{uuid.uuid4()}/redeliver"),
    ]:
        response = hooks.client.request(
            method,
            f"/api/webhooks/{endpoint_id}{path}",
            json={} if method in ("PATCH", "POST") else None,
        )
        error_of(response, 404)


def test_rotation_returns_a_new_secret_once(hooks: Hooks) -> None:
    endpoint = hooks.create(URL)
    rotated = hooks.client.post(f"/api/webhooks/{endpoint['id']}/rotate-secret")
    assert rotated.status_code == 200
    body = rotated.json()
    assert set(body) == {"secret", "secretHint", "olderSecrets"}
    assert body["olderSecrets"] == []  # no grace: the old secret stops now
    assert body["secret"] != endpoint["secret"]
    assert re.fullmatch(r"whsec_[A-Za-z0-9_-]{43}", body["secret"])
    assert hooks.get(endpoint["id"])["secretHint"] == body["secret"][-4:]


# -- the delivery log ------------------------------------------------------------------------


def test_delivery_log_is_newest_first_with_a_cursor(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(URL, workspaces=[workspace.id])
    rows = seed_rows(endpoint["id"], FakeClock(), count=5)
    newest_first = [r.id for r in reversed(rows)]

    first = hooks.client.get(f"/api/webhooks/{endpoint['id']}/deliveries", params={"limit": 2})
    assert first.status_code == 200
    page = first.json()
    assert set(page) == {"items", "nextCursor"}
    assert [i["id"] for i in page["items"]] == newest_first[:2]
    assert set(page["items"][0]) == DELIVERY_FIELDS
    seen = [i["id"] for i in page["items"]]
    cursor = page["nextCursor"]
    while cursor:
        page = hooks.client.get(
            f"/api/webhooks/{endpoint['id']}/deliveries", params={"limit": 2, "cursor": cursor}
        ).json()
        seen += [i["id"] for i in page["items"]]
        cursor = page["nextCursor"]
    assert seen == newest_first
    assert hooks.deliveries(endpoint["id"]) == hooks.deliveries(endpoint["id"], limit=25)


def test_delivery_log_filters_by_status_and_event(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(URL, workspaces=[workspace.id])
    clock = FakeClock()
    created = seed_rows(endpoint["id"], clock, count=3, kind="entry.created")
    published = seed_rows(endpoint["id"], clock, count=2, kind="entry.published")
    by_event = hooks.deliveries(endpoint["id"], event="entry.published")
    assert [i["id"] for i in by_event] == [r.id for r in reversed(published)]
    assert hooks.deliveries(endpoint["id"], status="succeeded") == []
    pending = hooks.deliveries(endpoint["id"], status="pending", event="entry.created", limit=2)
    assert [i["id"] for i in pending] == [r.id for r in reversed(created)][:2]


@pytest.mark.parametrize(
    "query",
    [
        {"status": "done"},
        {"event": "entry.archived"},
        {"limit": 0},
        {"limit": 101},
        {"limit": "ten"},
        {"cursor": "!!!"},
        {"cursor": "eyJ4IjoxfQ"},
    ],
)
def test_bad_log_queries_are_400(hooks: Hooks, query: dict[str, Any]) -> None:
    endpoint = hooks.create(URL)
    response = hooks.client.get(f"/api/webhooks/{endpoint['id']}/deliveries", params=query)
    assert error_of(response, 400)["code"] == "bad_request"


def test_a_cursor_of_another_endpoint_is_400(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    first = hooks.create(URL, workspaces=[workspace.id])
    second = hooks.create(URL, workspaces=[workspace.id])
    seed_rows(first["id"], FakeClock(), count=2)
    cursor = hooks.client.get(
        f"/api/webhooks/{first['id']}/deliveries", params={"limit": 1}
    ).json()["nextCursor"]
    assert cursor
    response = hooks.client.get(
        f"/api/webhooks/{second['id']}/deliveries", params={"cursor": cursor}
    )
    error_of(response, 400)


def test_a_cursor_reused_with_other_filters_is_400_and_never_reaches_storage(
    hooks: Hooks, new_workspace: Any
) -> None:
    """A cursor taken without `since`, reused with a `since` after its row, would be an
    ExclusiveStartKey outside the key range: DynamoDB refuses it (moto answered an empty page).
    The cursor names its filters, so the API answers 400; the same filters page on."""
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(URL, workspaces=[workspace.id])
    clock = FakeClock(1_900_000_000)
    rows = seed_rows(endpoint["id"], clock, count=3)
    log = f"/api/webhooks/{endpoint['id']}/deliveries"
    cursor = hooks.client.get(log, params={"limit": 2}).json()["nextCursor"]
    assert cursor
    since = iso_utc(1_900_000_000 + 1.5)
    for other in ({"since": since}, {"status": "pending"}, {"event": "entry.created"}):
        response = hooks.client.get(log, params={"limit": 2, "cursor": cursor, **other})
        assert "other filters" in error_of(response, 400)["message"]
    page = hooks.client.get(log, params={"limit": 2, "cursor": cursor}).json()
    assert [i["id"] for i in page["items"]] == [rows[0].id]
    windowed = hooks.client.get(log, params={"limit": 1, "since": since}).json()
    assert [i["id"] for i in windowed["items"]] == [rows[2].id]
    rest = hooks.client.get(
        log, params={"limit": 1, "since": since, "cursor": windowed["nextCursor"]}
    ).json()
    assert rest == {"items": [], "nextCursor": None}


def test_one_delivery_with_body_and_attempts(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(URL, workspaces=[workspace.id])
    (seeded,) = seed_rows(endpoint["id"], FakeClock())
    detail = hooks.delivery(endpoint["id"], seeded.id)
    assert set(detail) == DELIVERY_FIELDS | {"attemptLog", "workspaceId"}
    assert detail["requestBody"] == seeded.request_body
    assert detail["attemptLog"] == []
    assert detail["status"] == "pending"
    assert detail["workspaceId"] == workspace.id


def test_another_endpoints_delivery_is_404(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    mine = hooks.create(URL, workspaces=[workspace.id])
    theirs = hooks.create(URL, workspaces=[workspace.id])
    (row,) = seed_rows(theirs["id"], FakeClock())
    error_of(hooks.client.get(f"/api/webhooks/{mine['id']}/deliveries/{row.id}"), 404)
    error_of(hooks.client.post(f"/api/webhooks/{mine['id']}/deliveries/{row.id}/redeliver"), 404)
    assert hooks.delivery(theirs["id"], row.id)["id"] == row.id


def test_redeliver_gives_a_new_id_and_the_same_event_id(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(URL, workspaces=[workspace.id])
    (original,) = seed_rows(endpoint["id"], FakeClock())
    response = hooks.client.post(
        f"/api/webhooks/{endpoint['id']}/deliveries/{original.id}/redeliver"
    )
    assert response.status_code == 202, response.text
    again = response.json()
    assert again["id"] != original.id
    assert again["eventId"] == original.event_id
    assert again["event"] == original.event
    assert again["status"] == "pending"
    assert again["attempts"] == 0
    body, original_body = json.loads(again["requestBody"]), json.loads(original.request_body)
    assert body["id"] == again["id"]
    assert {**body, "id": None} == {**original_body, "id": None}
    assert hooks.delivery(endpoint["id"], again["id"])["eventId"] == original.event_id
    assert hooks.delivery(endpoint["id"], original.id)["id"] == original.id


def test_redeliver_to_a_disabled_endpoint_is_409(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(URL, workspaces=[workspace.id])
    (row,) = seed_rows(endpoint["id"], FakeClock())
    hooks.patch(endpoint["id"], enabled=False)
    response = hooks.client.post(f"/api/webhooks/{endpoint['id']}/deliveries/{row.id}/redeliver")
    assert error_of(response, 409)["code"] == "conflict"


# -- access: admin only, every route ---------------------------------------------------------


ROUTES = [
    ("GET", "/api/webhook-events"),
    ("GET", "/api/webhooks"),
    ("POST", "/api/webhooks"),
    ("GET", "/api/webhooks/{id}"),
    ("PATCH", "/api/webhooks/{id}"),
    ("DELETE", "/api/webhooks/{id}"),
    ("POST", "/api/webhooks/{id}/rotate-secret"),
    ("POST", "/api/webhooks/{id}/test"),
    ("GET", "/api/webhooks/{id}/deliveries"),
    ("GET", "/api/webhooks/{id}/deliveries/{delivery}"),
    ("POST", "/api/webhooks/{id}/deliveries/{delivery}/redeliver"),
]


@pytest.fixture
def target(hooks: Hooks, new_workspace: Any) -> dict[str, str]:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(URL, workspaces=[workspace.id])
    (row,) = seed_rows(endpoint["id"], FakeClock())
    return {"id": endpoint["id"], "delivery": row.id}


def _call(client: httpx.Client, method: str, path: str, ids: dict[str, str]) -> httpx.Response:
    url = path.format(**ids)
    body = {"url": URL} if method in ("POST", "PATCH") else None
    return client.request(method, url, json=body)


@pytest.fixture(scope="module")
def editor(base_url: str) -> Iterator[httpx.Client]:
    email = f"editor-{uuid.uuid4().hex[:10]}@example.com"
    create_user(runtime.settings(), email, "editor", "editor-password-1")
    with httpx.Client(base_url=base_url, headers={"Origin": base_url}, timeout=30) as client:
        yield sign_in(client, email, "editor-password-1")


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_non_admins_are_refused_on_every_route(
    make_client: ClientFactory,
    editor: httpx.Client,
    new_workspace: Any,
    target: dict[str, str],
    hooks: Hooks,
    method: str,
    path: str,
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    anonymous = make_client()
    assert error_of(_call(anonymous, method, path, target), 401)["code"] == "unauthorized"
    for client in (workspace.full, workspace.read, editor):
        assert error_of(_call(client, method, path, target), 403)["code"] == "forbidden"
    # Nothing changed behind the refusals.
    assert hooks.get(target["id"])["url"] == URL
    assert hooks.delivery(target["id"], target["delivery"])["status"] == "pending"


def test_cookie_write_from_another_origin_is_refused(
    hooks: Hooks, credentials: dict[str, Any], make_client: ClientFactory
) -> None:
    admin = sign_in(make_client(), credentials["admin"]["email"], credentials["admin"]["password"])
    response = admin.post(
        "/api/webhooks", json={"url": URL}, headers={"Origin": "https://evil.example"}
    )
    assert response.status_code == 403
