"""The request-limits middleware at the ASGI boundary, for what real HTTP cannot show
deterministically: a client leaving mid-body, and how far a refused body is read."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import Message

from content_service.api.request_limits import RequestLimitsMiddleware
from infra.http_protocol import head_refusal, request_target


class Recorder:
    def __init__(self) -> None:
        self.called = False
        self.body = b""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.called = True
        message = await receive()
        self.body = message["body"]
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def run(
    messages: list[dict[str, Any]], path: str = "/api/v1/content/x", **headers: str
) -> tuple[Recorder, list[Message], int]:
    """Runs the middleware (body cap 16 bytes) over `messages`: the app, what was sent, and
    how many messages were left unread."""
    app = Recorder()
    sent: list[Message] = []
    pending = list(messages)

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    middleware = RequestLimitsMiddleware(app, max_body_bytes=16)
    asyncio.run(middleware(scope, receive, send))
    return app, sent, len(pending)


def chunk(body: bytes, more: bool = True) -> dict[str, Any]:
    return {"type": "http.request", "body": body, "more_body": more}


def test_a_client_leaving_mid_body_reaches_no_route() -> None:
    app, sent, _ = run([chunk(b'{"a":'), {"type": "http.disconnect"}])
    assert not app.called
    assert sent == []


def test_a_streamed_body_is_refused_once_past_the_cap_and_read_no_further() -> None:
    app, sent, unread = run(
        [chunk(b"1234567890"), chunk(b"1234567890"), chunk(b"7"), chunk(b"", False)]
    )
    assert not app.called
    assert sent[0]["status"] == 413
    assert unread == 2  # the server drains the rest after the answer


def test_a_declared_length_over_the_cap_is_refused_before_reading() -> None:
    app, sent, unread = run([chunk(b"x" * 17, False)], **{"Content-Length": "17"})
    assert not app.called
    assert sent[0]["status"] == 413
    assert unread == 1


def test_the_body_reaches_the_route_whole() -> None:
    app, sent, _ = run(
        [chunk(b'{"a"'), chunk(b":1}", False)], **{"Content-Type": "application/json"}
    )
    assert app.body == b'{"a":1}'
    assert sent[0]["status"] == 204


def test_json_checks_apply_to_json_types_only_and_not_to_the_graphql_route() -> None:
    twice = [chunk(b'{"a":1,"a":2}', False)]  # 13 bytes
    _, sent, _ = run(twice, **{"Content-Type": "application/vnd.x+json"})
    assert sent[0]["status"] == 400
    for headers in ({"Content-Type": "text/plain"}, {}):
        app, _, _ = run(twice, **headers)
        assert app.called
    app, _, _ = run(twice, "/api/v1/graphql", **{"Content-Type": "application/json"})
    assert app.called  # the route reads its body itself, answering in GraphQL's shape


def test_a_graphql_refusal_is_http_200_with_errors() -> None:
    _, sent, _ = run([chunk(b"x" * 17, False)], "/api/v1/graphql", **{"Content-Length": "17"})
    assert sent[0]["status"] == 200
    body = json.loads(sent[1]["body"])
    assert body == {
        "errors": [
            {
                "message": "the request body exceeds 16 bytes",
                "extensions": {"status": 413, "code": "PAYLOAD_TOO_LARGE"},
            }
        ]
    }


def test_a_refused_request_head_is_named_and_placed() -> None:
    assert head_refusal(b"GET /" + b"x" * 100, 50)[0] == 414
    assert head_refusal(b"GET / HTTP/1.1\r\nA: " + b"x" * 100, 50)[0] == 431
    assert head_refusal(b"junk\r\n", 50)[0] == 400
    assert request_target(b"POST /api/v1/graphql?x=1 HTTP/1.1\r\n") == ("POST", "/api/v1/graphql")
    assert request_target(b"POST /api/v1/graph") == ("POST", "/api/v1/graph")
    assert request_target(b"") == ("", "")
