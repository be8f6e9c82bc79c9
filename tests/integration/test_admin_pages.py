"""The webhook admin pages over HTTP: who may see them, what they are served with, and what
the server renders (filters, the catalogue-fed picker, the header rules, escaping)."""

from __future__ import annotations

import dataclasses
import json
import re
import uuid
from html import unescape
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from content_service.webhooks.endpoints import rules_json
from harness.webhooks import FakeClock
from tests.support.admin_pages import editor_user
from tests.support.clients import WorkspaceAccess, sign_in
from tests.support.settings import settings_changed
from tests.support.webhooks import Hooks, seed_rows

LOCAL = "http://127.0.0.1:9"


@pytest.fixture
def endpoint(hooks: Hooks, new_workspace: Any, local_receivers_allowed: None) -> dict[str, Any]:
    workspace: WorkspaceAccess = new_workspace()
    return hooks.create(f"{LOCAL}/pages-{uuid.uuid4().hex[:8]}", workspaces=[workspace.id])


def page_paths(endpoint_id: str) -> list[str]:
    return [
        "/webhooks",
        "/webhooks?enabled=disabled&q=x",
        "/webhooks/new",
        f"/webhooks/{endpoint_id}",
        f"/webhooks/{endpoint_id}?status=dead&event=entry.created",
        f"/webhooks/{endpoint_id}/edit",
    ]


def test_a_signed_out_visitor_is_sent_to_sign_in_with_next(
    anonymous: httpx.Client, endpoint: dict[str, Any]
) -> None:
    for path in [*page_paths(endpoint["id"]), f"/webhooks/{uuid.uuid4()}"]:
        response = anonymous.get(path)
        assert response.status_code == 303, path
        assert response.headers["location"] == f"/login?next={quote(path, safe='')}"
        # The sign-in form carries the page to return to.
        form = anonymous.get(response.headers["location"])
        assert f'name="next" value="{path.replace("&", "&amp;")}"' in form.text


def test_a_bearer_token_is_refused_with_a_403_page(
    make_client: Any, endpoint: dict[str, Any], new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    client = make_client(workspace.full_token)
    for path in page_paths(endpoint["id"]):
        response = client.get(path)
        assert response.status_code == 403, path
        assert response.headers["content-type"].startswith("text/html")
        assert "You need the admin role" in response.text
        assert "API tokens cannot open the admin pages" in response.text
        assert endpoint["url"] not in response.text


def test_an_editor_is_refused_with_a_403_page(make_client: Any, endpoint: dict[str, Any]) -> None:
    editor = editor_user()
    client = sign_in(make_client(), editor.email, editor.password)
    for path in page_paths(endpoint["id"]):
        response = client.get(path)
        assert response.status_code == 403, path
        assert "You need the admin role" in response.text
        assert "with the editor role" in response.text
        assert endpoint["url"] not in response.text


def test_pages_are_served_with_a_strict_policy(
    admin_session: httpx.Client, endpoint: dict[str, Any]
) -> None:
    for path in page_paths(endpoint["id"]):
        response = admin_session.get(path)
        assert response.status_code == 200, path
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "same-origin"
        # Scripts come from this origin only; no inline script runs.
        for tag in re.findall(r"<script\b[^>]*>", response.text):
            assert 'src="/static/admin/' in tag or 'type="application/json"' in tag, tag
        assert "http://" not in " ".join(re.findall(r'(?:src|href)="([^"]+)"', response.text))


def test_static_assets_are_served_by_the_app(admin_session: httpx.Client) -> None:
    for name, kind in [
        ("common.js", "javascript"),
        ("editor.js", "javascript"),
        ("endpoint.js", "javascript"),
        ("admin.css", "text/css"),
    ]:
        response = admin_session.get(f"/static/admin/{name}")
        assert response.status_code == 200, name
        assert kind in response.headers["content-type"]


def test_unknown_endpoints_get_a_404_page(admin_session: httpx.Client) -> None:
    for path in (
        f"/webhooks/{uuid.uuid4()}",
        "/webhooks/not-an-id",
        f"/webhooks/{uuid.uuid4()}/edit",
    ):
        response = admin_session.get(path)
        assert response.status_code == 404, path
        assert "No such webhook endpoint" in response.text


def test_the_editor_offers_the_catalogue_and_the_header_rules(
    admin_session: httpx.Client,
) -> None:
    catalogue = admin_session.get("/api/webhook-events").json()
    page = admin_session.get("/webhooks/new").text
    offered = re.findall(r'name="events" value="([^"]+)"', page)
    assert offered == [e["kind"] for e in catalogue if e["group"] in ("content", "operational")]
    assert "ping" not in offered
    rules = re.search(r'<script type="application/json" id="header-rules">(.*?)</script>', page)
    assert rules is not None
    assert json.loads(rules.group(1)) == rules_json()
    for name in rules_json()["reservedNames"]:  # type: ignore[attr-defined]
        assert f"<code>{name}</code>" in page
    assert "<code>X-Service-</code>" in page


def test_the_editor_lists_workspaces_and_keeps_the_endpoint_values(
    admin_session: httpx.Client, hooks: Hooks, new_workspace: Any, local_receivers_allowed: None
) -> None:
    first: WorkspaceAccess = new_workspace()
    second: WorkspaceAccess = new_workspace()
    created = hooks.create(
        f"{LOCAL}/edit-me",
        workspaces=[second.id],
        events=["entry.deleted"],
        contentTypes=["blog_post", "author"],
        headers={"Authorization": "Bearer abc"},
    )
    page = admin_session.get(f"/webhooks/{created['id']}/edit").text
    assert f'value="{first.id}" data-slug="{first.slug}">' in page
    assert f'value="{second.id}" data-slug="{second.slug}" checked>' in page
    assert re.search(r'value="entry.deleted" checked>', page)
    assert 'value="blog_post, author"' in page
    assert 'value="Bearer abc"' in page
    assert created["secret"] not in page


def test_list_filters(
    admin_session: httpx.Client, hooks: Hooks, local_receivers_allowed: None
) -> None:
    tag = uuid.uuid4().hex[:10]
    everything = hooks.create(f"{LOCAL}/{tag}/all", allWorkspaces=True)
    deletes = hooks.create(f"{LOCAL}/{tag}/deletes", allWorkspaces=True, events=["entry.deleted"])
    off = hooks.create(f"{LOCAL}/{tag}/off", allWorkspaces=True)
    hooks.patch(off["id"], enabled=False)

    def listed(**query: str) -> set[str]:
        page = admin_session.get("/webhooks", params={"q": tag, **query}).text
        return set(re.findall(r'data-endpoint-id="([^"]+)"', page))

    assert listed() == {everything["id"], deletes["id"], off["id"]}
    assert listed(enabled="disabled") == {off["id"]}
    assert listed(enabled="enabled") == {everything["id"], deletes["id"]}
    # An endpoint with no event kinds receives every kind, so it matches any kind filter.
    assert listed(event="entry.created") == {everything["id"], off["id"]}
    assert listed(event="entry.deleted") == {everything["id"], deletes["id"], off["id"]}
    assert listed(q=f"{tag}/DELETES") == {deletes["id"]}
    assert listed(enabled="nonsense", event="nonsense") == listed()
    page = admin_session.get("/webhooks", params={"q": tag, "enabled": "disabled"}).text
    assert "disabled by an administrator" in page


def test_a_stale_cursor_shows_the_newest_page(
    admin_session: httpx.Client, endpoint: dict[str, Any]
) -> None:
    (row,) = seed_rows(endpoint["id"], FakeClock())
    response = admin_session.get(f"/webhooks/{endpoint['id']}", params={"cursor": "bogus"})
    assert response.status_code == 200
    assert "no longer available" in response.text
    assert f'data-delivery-id="{row.id}"' in response.text
    limited = admin_session.get(f"/webhooks/{endpoint['id']}", params={"limit": "0"})
    assert limited.status_code == 400


def test_hostile_values_are_escaped_by_the_server(
    admin_session: httpx.Client, hooks: Hooks, local_receivers_allowed: None
) -> None:
    script = "<script>alert(1)</script>"
    created = hooks.create(
        f"{LOCAL}/{uuid.uuid4().hex[:8]}/{script}",
        allWorkspaces=True,
        headers={"X-Note": f'"><img src=x onerror=alert(2)>{script}'},
    )
    for path in ("/webhooks", f"/webhooks/{created['id']}", f"/webhooks/{created['id']}/edit"):
        page = admin_session.get(path).text
        assert script not in page, path
        assert "<img src=x" not in page, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page, path
        assert script in unescape(page)


def test_a_favicon_answers_at_the_address_browsers_ask(base_url: str) -> None:
    response = httpx.get(f"{base_url}/favicon.ico")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert response.content.startswith(b"<svg")
    assert httpx.get(f"{base_url}/static/favicon.svg").content == response.content


def test_the_reference_pages_are_off_unless_enabled(base_url: str) -> None:
    with settings_changed(lambda s: dataclasses.replace(s, api_reference_enabled=False)):
        for path in ("/api/v1/docs", "/api/v1/graphql/playground"):
            response = httpx.get(f"{base_url}{path}")
            assert response.status_code == 404
            assert "API_REFERENCE_ENABLED" in response.json()["error"]["message"]
        assert "off here" in httpx.get(f"{base_url}/").text
    assert 'href="/api/v1/docs"' in httpx.get(f"{base_url}/").text
