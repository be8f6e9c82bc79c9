"""The origin guard (docs/api.md, "Authentication"), one piece in front of every write route.

A write (POST, PUT, PATCH, DELETE) whose `Origin`, or `Referer` when `Origin` is absent, names an
origin other than the service's own (or one in ALLOWED_ORIGINS) is refused with 403. The service's
own origin is `PUBLIC_BASE_URL` when set; only without it is the request's `Host` taken. A write
authenticated by the session cookie that carries neither header is refused too: a browser always
sends one, so its absence means a client we cannot vouch for. Bearer-token clients (no cookie)
may omit both.

It runs as ASGI middleware rather than a per-route dependency so a new write route cannot forget it.
Its refusal has the shape of the route asked: on `POST /api/v1/graphql`, HTTP 200 with the 403 in
`errors[].extensions.status` (docs/graphql.md, "Errors"), elsewhere the API's error body
(docs/api.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from content_service.api.http_middleware import HttpMiddleware
from content_service.api.refusals import send_refusal

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_origin(value: str) -> str | None:
    """`scheme://host[:port]` in lower case without a default port; None if not an origin."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def refusal_reason(
    method: str,
    headers: Mapping[str, str],
    allowed_origins: Iterable[str],
    session_cookie: str,
) -> str | None:
    """Why a request must be refused, or None. `headers` has lower-case names."""
    if method.upper() not in WRITE_METHODS:
        return None
    claimed = headers.get("origin")
    source = "Origin"
    if claimed is None and headers.get("referer"):
        claimed, source = headers["referer"], "Referer"
    if claimed is None:
        cookie_auth = f"{session_cookie}=" in headers.get("cookie", "") and (
            "authorization" not in headers
        )
        if cookie_auth:
            return "a write made with a session cookie must carry an Origin or Referer header"
        return None
    origin = normalise_origin(claimed)
    allowed = {o for o in (normalise_origin(a) for a in allowed_origins) if o}
    if origin is None or origin not in allowed:
        return f"cross-origin write refused: the {source} header names a foreign origin"
    return None


def own_origins(
    scope: Scope, public_base_url: str, allowed_origins: Iterable[str]
) -> tuple[str, ...]:
    """The origins a write may come from: `PUBLIC_BASE_URL` when it is set, and only then the
    request's own scheme and `Host` otherwise (a client chooses its `Host`: a DNS-rebinding page
    or a proxy that passes any `Host` would otherwise make a foreign origin "own"); plus
    `ALLOWED_ORIGINS`."""
    if public_base_url:
        own = public_base_url
    else:
        host = Headers(scope=scope).get("host", "")
        own = f"{scope.get('scheme', 'http')}://{host}"
    return (own, *(o for o in allowed_origins if o))


class OriginGuardMiddleware(HttpMiddleware):
    def __init__(
        self,
        app: ASGIApp,
        *,
        public_base_url: str,
        allowed_origins: Iterable[str],
        session_cookie: str,
    ) -> None:
        super().__init__(app)
        self.public_base_url = public_base_url
        self.allowed_origins = tuple(allowed_origins)
        self.session_cookie = session_cookie

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in WRITE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origins = own_origins(scope, self.public_base_url, self.allowed_origins)
        reason = refusal_reason(scope["method"], headers, origins, self.session_cookie)
        if reason is None:
            await self.app(scope, receive, send)
            return
        await send_refusal(scope, send, 403, "forbidden_origin", reason)
