"""HTTP caching of content reads (docs/api.md, "Caching").

Every successful GET of content (an entry, a list, a relations page, a GraphQL query over GET)
carries a strong `ETag` (SHA-256 of its body) and answers a matching `If-None-Match` with 304
and no body. Who may keep the answer depends on one question, whatever the visibility rules:
is it a read token's answer? A read token sees what anyone with that token sees, so a shared
cache (CloudFront, nginx) may keep it for `CONTENT_CACHE_SECONDS`, keyed by the token:

- read token: `public, max-age=0, s-maxage=N, stale-while-revalidate=M` (browsers revalidate
  every time, shared caches keep it N seconds); with N = 0, `private, no-cache`;
- full token or signed-in user (drafts, previews, anything a write may change the next
  moment): `private, no-store`;
- any refusal or GraphQL answer with errors: `no-store` (the error handlers say it too).

Every answer varies by `Authorization` (`Vary`), and the edge keys its cache on that header,
so no answer reaches a token it was not made for.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from content_service import runtime
from content_service.api.http_middleware import HttpMiddleware
from content_service.content import cache_tags
from content_service.identity.principal import Caller, TokenCaller
from content_service.settings import Delivery

NO_STORE = "no-store"
PRIVATE = "private, no-store"


def render_json(content: Any) -> bytes:
    """JSON as Starlette's JSONResponse writes it (UTF-8, compact)."""
    return json.dumps(
        content, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")


def entity_tag(body: bytes) -> str:
    """A strong validator: the same bytes, and only those, give the same tag."""
    digest = hashlib.sha256(body).digest()[:18]
    return '"' + base64.urlsafe_b64encode(digest).decode() + '"'


def cache_control(caller: Caller, delivery: Delivery) -> str:
    if isinstance(caller, TokenCaller) and caller.access == "read":
        if delivery.cache_seconds == 0:
            return "private, no-cache"
        return (
            f"public, max-age=0, s-maxage={delivery.cache_seconds}, "
            f"stale-while-revalidate={delivery.stale_seconds}"
        )
    return PRIVATE


def not_modified(if_none_match: str | None, tag: str) -> bool:
    """RFC 9110 13.1.2: `*`, or any listed tag equal to ours under weak comparison."""
    if if_none_match is None:
        return False
    listed = [t.strip() for t in if_none_match.split(",")]
    return any(t == "*" or t.removeprefix("W/") == tag for t in listed)


def cached_answer(
    request: Request,
    caller: Caller,
    body: bytes,
    media_type: str = "application/json",
    *,
    vary: str = "Authorization",
    headers: Mapping[str, str] | None = None,
) -> Response:
    """A successful content read, with its validator and caching headers; 304 when the
    client's `If-None-Match` already names this body."""
    tag = entity_tag(body)
    validators = {
        **(headers or {}),
        **_surrogate_key(caller),
        "ETag": tag,
        "Cache-Control": cache_control(caller, runtime.settings().delivery),
        "Vary": vary,
    }
    if not_modified(request.headers.get("if-none-match"), tag):
        return Response(status_code=304, headers=validators)
    return Response(body, media_type=media_type, headers=validators)


def _surrogate_key(caller: Caller) -> dict[str, str]:
    """The answer's cache tags, as the reads made for it recorded them."""
    collected = cache_tags.current()
    if collected is None or not collected.workspaces:
        return {}
    token_id = caller.token_id if isinstance(caller, TokenCaller) else None
    return {cache_tags.HEADER: collected.header(token_id)}


class CacheTagsMiddleware(HttpMiddleware):
    """Gives each request a collector of cache tags, which the reads fill (on whichever thread
    serves them) and `cached_answer` turns into `Surrogate-Key`."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        with cache_tags.collecting():
            await self.app(scope, receive, send)


def uncached_answer(
    body: bytes,
    media_type: str = "application/json",
    *,
    vary: str = "Authorization, Accept",
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """An answer no cache may keep: a GraphQL POST's, or one carrying errors."""
    return Response(
        body,
        status_code=status_code,
        media_type=media_type,
        headers={**(headers or {}), "Cache-Control": NO_STORE, "Vary": vary},
    )
