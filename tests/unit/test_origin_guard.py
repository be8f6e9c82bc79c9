"""The origin guard (docs/api.md): which writes are refused, decided from headers alone."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

import pytest
from starlette.types import Receive, Scope, Send

from content_service.api.origin_guard import (
    OriginGuardMiddleware,
    normalise_origin,
    refusal_reason,
)

OWN = ("http://127.0.0.1:8000",)
COOKIE = "cs_session"


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "post"])
@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example"},
        {"origin": "http://127.0.0.1:8001"},
        {"origin": "https://127.0.0.1:8000"},
        {"origin": "null"},
        {"referer": "http://evil.example/page"},
        {"origin": "http://evil.example", "authorization": "Bearer cs_x"},
        {"cookie": f"{COOKIE}=abc"},
        {"cookie": f"other=1; {COOKIE}=abc"},
    ],
)
def test_foreign_or_missing_origin_on_writes_is_refused(
    method: str, headers: dict[str, str]
) -> None:
    assert refusal_reason(method, headers, OWN, COOKIE) is not None


@pytest.mark.parametrize(
    ("method", "headers"),
    [
        ("GET", {"origin": "http://evil.example"}),
        ("HEAD", {"cookie": f"{COOKIE}=abc"}),
        ("POST", {"origin": "http://127.0.0.1:8000"}),
        ("POST", {"origin": "HTTP://127.0.0.1:8000"}),
        ("POST", {"referer": "http://127.0.0.1:8000/webhooks/new?x=1"}),
        ("DELETE", {"authorization": "Bearer cs_x"}),
        ("POST", {}),
        ("POST", {"cookie": f"{COOKIE}=abc", "origin": "http://127.0.0.1:8000"}),
    ],
)
def test_same_origin_reads_and_token_clients_pass(method: str, headers: dict[str, str]) -> None:
    assert refusal_reason(method, headers, OWN, COOKIE) is None


def test_allowed_origins_extend_the_own_origin() -> None:
    allowed = (*OWN, "https://admin.example.com")
    assert refusal_reason("POST", {"origin": "https://admin.example.com"}, allowed, COOKIE) is None
    assert refusal_reason("POST", {"origin": "https://admin.example.org"}, allowed, COOKIE)


def test_origin_normalisation_drops_default_ports_and_case() -> None:
    assert normalise_origin("HTTPS://Example.COM:443/path") == "https://example.com"
    assert normalise_origin("http://example.com:80") == "http://example.com"
    assert normalise_origin("http://[::1]:8000") == "http://[::1]:8000"
    assert normalise_origin("null") is None
    assert normalise_origin("ftp://example.com") is None
    assert normalise_origin("http://example.com:99999") is None


def _answer_to(public_base_url: str, host: str, origin: str) -> int:
    """The status the guard's middleware gives a cookie write with these headers (the app
    behind it answers 204)."""
    sent: list[dict[str, Any]] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    guard = OriginGuardMiddleware(
        app, public_base_url=public_base_url, allowed_origins=(), session_cookie=COOKIE
    )
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/webhooks",
        "scheme": "https",
        "headers": [
            (b"host", host.encode()),
            (b"origin", origin.encode()),
            (b"cookie", f"{COOKIE}=abc".encode()),
        ],
    }
    asyncio.run(guard(scope, receive, send))
    status: int = sent[0]["status"]
    return status


def test_the_host_header_is_ignored_once_public_base_url_is_set() -> None:
    """A request whose Host and Origin both name the attacker's site (DNS rebinding, a proxy
    passing any Host) is refused when the service knows its own origin."""
    own = "https://cms.example.com"
    assert _answer_to(own, "cms.example.com", own) == 204
    assert _answer_to(own, "evil.example", "https://evil.example") == 403
    # Without PUBLIC_BASE_URL the request's own Host is all the guard has.
    assert _answer_to("", "cms.example.com", own) == 204
    assert _answer_to("", "cms.example.com", "https://evil.example") == 403
