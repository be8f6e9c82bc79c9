"""Every answer's security headers, every page's Content-Security-Policy, and the session cookie's
`Secure` flag behind a forwarded https (API Gateway's own event: test_api_handler_events.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from content_service.api.auth import SESSION_COOKIE
from content_service.api.security_headers import current_page_policy
from content_service.webhooks import wiring
from tests.support.clients import ClientFactory, sign_in
from tests.support.resolver import FakeResolver
from tests.support.webhooks import Hooks

URL = "https://hooks.example.com/in"


@pytest.fixture(autouse=True)
def public_dns() -> Iterator[None]:
    with wiring.overridden(resolver=FakeResolver({"hooks.example.com": ["93.184.215.14"]})):
        yield


def assert_every_answer_headers(response: httpx.Response) -> None:
    assert response.headers["X-Content-Type-Options"] == "nosniff", response.url
    assert response.headers["Referrer-Policy"] == "same-origin", response.url


def assert_page_headers(response: httpx.Response) -> None:
    assert response.headers["content-type"].startswith("text/html"), response.url
    assert_every_answer_headers(response)
    policy = response.headers["Content-Security-Policy"]
    assert policy == current_page_policy()
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["frame-ancestors"] == "'none'"
    assert directives["script-src"] == "'self'"
    assert "unsafe-inline" not in policy
    assert "unsafe-eval" not in policy
    assert response.headers["X-Frame-Options"] == "DENY"


def test_every_page_carries_the_policy(
    make_client: ClientFactory, hooks: Hooks, credentials: dict[str, Any]
) -> None:
    endpoint = hooks.create(URL, allWorkspaces=True)
    admin = sign_in(make_client(), credentials["admin"]["email"], credentials["admin"]["password"])
    anonymous = make_client()
    pages = {
        anonymous: ["/", "/login", "/api/v1/docs", "/api/v1/graphql/playground"],
        admin: [
            "/",
            "/webhooks",
            "/webhooks/new",
            f"/webhooks/{endpoint['id']}",
            f"/webhooks/{endpoint['id']}/edit",
            f"/webhooks/{uuid.uuid4()}",  # the not-found page
        ],
    }
    seen = []
    for client, paths in pages.items():
        for path in paths:
            response = client.get(path, follow_redirects=False)
            assert response.status_code in (200, 404), (path, response.status_code)
            assert_page_headers(response)
            seen.append(response.status_code)
    assert 404 in seen


def test_json_answers_and_assets_are_never_sniffed(
    make_client: ClientFactory, hooks: Hooks, new_workspace: Any
) -> None:
    workspace = new_workspace()
    endpoint = hooks.create(URL, workspaces=[workspace.id])
    answers = [
        workspace.full.get("/api/v1/me"),
        make_client().get("/healthz"),
        make_client().get("/api/v1/me"),  # 401 in the API's error shape
        hooks.client.get(f"/api/webhooks/{endpoint['id']}/deliveries"),
        make_client().get("/static/app.css"),
    ]
    for response in answers:
        assert_every_answer_headers(response)
        assert "Content-Security-Policy" not in response.headers
        assert "Strict-Transport-Security" not in response.headers  # plain http here


def test_the_session_cookie_is_secure_behind_a_forwarded_https(
    make_client: ClientFactory, credentials: dict[str, Any], base_url: str
) -> None:
    """A TLS proxy in front says https in `X-Forwarded-Proto`; the browser's Origin is https."""
    admin = credentials["admin"]
    form = {"email": admin["email"], "password": admin["password"]}

    plain = make_client().post("/login", data=form, follow_redirects=False)
    assert plain.status_code == 303
    assert "secure" not in plain.headers["set-cookie"].lower()
    assert "Strict-Transport-Security" not in plain.headers

    https_origin = base_url.replace("http://", "https://")
    forwarded = make_client(**{"X-Forwarded-Proto": "https", "Origin": https_origin})
    answer = forwarded.post("/login", data=form, follow_redirects=False)
    assert answer.status_code == 303
    attributes = [a.strip().lower() for a in answer.headers["set-cookie"].split(";")]
    assert attributes[0].startswith(f"{SESSION_COOKIE}=")
    assert {"secure", "httponly", "samesite=lax"} <= set(attributes)
    assert answer.headers["Strict-Transport-Security"] == "max-age=31536000"
