"""What every request must be before any route sees it: a bounded URL and headers, a body of at
most MAX_BODY_BYTES however it is sent, and a JSON body this service accepts.

One middleware, in front of every route, so the rule is the same everywhere:
- the URL (path and query string, as sent) at most MAX_URL_BYTES: else 414;
- the header lines at most MAX_HEADER_BYTES together: else 431;
- the body at most MAX_BODY_BYTES: a declared `Content-Length` over it is refused before
  anything is read, a chunked body as soon as the bytes read pass it (413). The body is read
  here in full (it is bounded) and handed on, so no route can mistake the refusal for its own
  failure;
- a JSON body (`application/json` or `+json`) is UTF-8 JSON without a key named twice in one
  object and without a lone surrogate (`content_service.strict_json`): else 400 naming where.
  The GraphQL route parses its own body with the same rule, so its refusals are GraphQL errors.

Refusals take the shape of the route asked (`api.refusals`): the API's error body (docs/api.md), or
HTTP 200 with `errors[].extensions.status` on `POST /api/v1/graphql`. The local HTTP server
reads request heads up to SERVER_HEAD_BYTES, so the limits above are answered here rather than
by a connection reset (`infra/http_protocol.py` answers anything longer).
"""

from __future__ import annotations

from email.message import Message as MimeMessage
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from content_service import strict_json
from content_service.api.http_middleware import HttpMiddleware
from content_service.api.refusals import is_graphql_post, send_refusal

MAX_BODY_BYTES = 1024 * 1024
MAX_URL_BYTES = 64 * 1024
MAX_HEADER_BYTES = 64 * 1024
SERVER_HEAD_BYTES = 256 * 1024
"""What the local server buffers of a request line and headers: above both limits together."""

Refusal = tuple[int, str, str, Any]
"""(status, code, message, details) for `api.refusals.send_refusal`."""


def url_bytes(scope: Scope) -> int:
    path = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
    return len(path) + len(scope.get("query_string") or b"")


def header_bytes(scope: Scope) -> int:
    return sum(len(name) + len(value) + 4 for name, value in scope["headers"])


def declared_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def is_json(scope: Scope) -> bool:
    """The content types FastAPI decodes as JSON: `application/json` and `application/*+json`."""
    for name, value in scope["headers"]:
        if name.lower() == b"content-type":
            parsed = MimeMessage()
            parsed["content-type"] = value.decode("latin-1")
            subtype = parsed.get_content_subtype()
            return parsed.get_content_maintype() == "application" and (
                subtype == "json" or subtype.endswith("+json")
            )
    return False


class RequestLimitsMiddleware(HttpMiddleware):
    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_url_bytes: int = MAX_URL_BYTES,
        max_header_bytes: int = MAX_HEADER_BYTES,
    ) -> None:
        super().__init__(app)
        self.max_body_bytes = max_body_bytes
        self.max_url_bytes = max_url_bytes
        self.max_header_bytes = max_header_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = b""
        refused = self._head_refusal(scope)
        if refused is None:
            try:
                body, refused = await self._body(scope, receive)
            except _ClientLeft:
                return  # nobody is there to answer, and a cut body must not reach a route
        if refused is not None:
            await send_refusal(scope, send, *refused)
            return
        await self.app(scope, _replay(body, receive), send)

    def _head_refusal(self, scope: Scope) -> Refusal | None:
        if url_bytes(scope) > self.max_url_bytes:
            return 414, "uri_too_long", f"the URL exceeds {self.max_url_bytes} bytes", None
        if header_bytes(scope) > self.max_header_bytes:
            message = f"the request headers exceed {self.max_header_bytes} bytes"
            return 431, "headers_too_large", message, None
        return None

    async def _body(self, scope: Scope, receive: Receive) -> tuple[bytes, Refusal | None]:
        too_large = (
            413,
            "payload_too_large",
            f"the request body exceeds {self.max_body_bytes} bytes",
            None,
        )
        if (declared_length(scope) or 0) > self.max_body_bytes:
            return b"", too_large
        body = await _read(receive, self.max_body_bytes)
        if body is None:
            return b"", too_large
        if body and is_json(scope) and not is_graphql_post(scope["method"], scope["path"]):
            try:
                strict_json.loads(body)
            except strict_json.JsonRefused as refused:
                message = f"the request body is refused: {refused}"
                return body, (400, "bad_request", message, refused.details())
        return body, None


class _ClientLeft(Exception):
    pass


async def _read(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None as soon as it passes the limit (the rest is not read here: the
    server drains it after the answer, as for any body a route leaves unread)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise _ClientLeft
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` handing the app the body read, then whatever the server says next (the
    client's disconnect)."""
    pending = True

    async def replay() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
