"""The origin guard (docs/api.md): which writes are refused, decided from headers alone."""

from __future__ import annotations

import pytest

from content_service.api.origin_guard import normalise_origin, refusal_reason

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
