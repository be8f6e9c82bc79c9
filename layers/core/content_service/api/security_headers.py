"""The headers every answer carries, in one middleware in front of everything else.

- Every answer: `X-Content-Type-Options: nosniff` (a JSON answer echoing a receiver's text is
  never sniffed into HTML) and `Referrer-Policy: same-origin` (an admin page's URL, with its
  endpoint and delivery ids, never leaves in a Referer).
- Every HTML page: the Content-Security-Policy below (with the assets bucket's origin for the
  media pages' previews and uploads), whose `frame-ancestors 'none'` (and the
  older `X-Frame-Options: DENY`) keeps the sign-in and admin pages out of other sites' frames.
  No page has an inline script or style, and the vendored GraphiQL and Swagger UI need none
  either, so scripts and styles come from the app's own origin only, with no 'unsafe-inline',
  hash or nonce (the browser tests fail on anything the policy refuses; docs/decisions.md).
- Over https (the request's scheme, which Mangum takes from API Gateway's `X-Forwarded-Proto`, or
  that header itself behind another proxy, or an https `PUBLIC_BASE_URL`): HSTS, and every cookie
  the app sets is `Secure`.
"""

from __future__ import annotations

import functools

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from content_service import runtime
from content_service.api.http_middleware import HttpMiddleware
from content_service.assets import objects


def page_policy(bucket_origin: str = "") -> str:
    """The pages' policy; `bucket_origin` (the assets bucket's, where the media pages show
    previews from and upload to) joins `img-src` and `connect-src`."""
    extra = f" {bucket_origin}" if bucket_origin else ""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            f"img-src 'self' data:{extra}",
            "font-src 'self' data:",
            f"connect-src 'self'{extra}",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


@functools.cache
def _bucket_policy(_settings_key: tuple[str, str | None, str]) -> str:
    return page_policy(objects.bucket_origin())


def current_page_policy() -> str:
    """The policy for this stack's bucket (presigning is local: no request is made)."""
    settings = runtime.settings()
    return _bucket_policy((settings.assets_bucket, settings.aws_endpoint_url, settings.region))


REFERRER_POLICY = "same-origin"
HSTS = "max-age=31536000"


def came_over_https(scope: Scope, public_base_url: str) -> bool:
    if scope.get("scheme") == "https" or public_base_url.startswith("https://"):
        return True
    forwarded = Headers(scope=scope).get("x-forwarded-proto", "")
    return forwarded.split(",")[0].strip().lower() == "https"


def secure_cookie(value: str) -> str:
    """A Set-Cookie value with the `Secure` attribute (added when it lacks one)."""
    attributes = [part.strip().lower() for part in value.split(";")[1:]]
    return value if "secure" in attributes else value + "; Secure"


class SecurityHeadersMiddleware(HttpMiddleware):
    def __init__(self, app: ASGIApp, *, public_base_url: str) -> None:
        super().__init__(app)
        self.public_base_url = public_base_url

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        https = came_over_https(scope, self.public_base_url)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                _add_headers(message, https)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _add_headers(message: Message, https: bool) -> None:
    headers = MutableHeaders(scope=message)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", REFERRER_POLICY)
    if headers.get("content-type", "").lower().startswith("text/html"):
        headers.setdefault("Content-Security-Policy", current_page_policy())
        headers.setdefault("X-Frame-Options", "DENY")
    if https:
        headers.setdefault("Strict-Transport-Security", HSTS)
        message["headers"] = [
            (name, secure_cookie(value.decode("latin-1")).encode("latin-1"))
            if name.lower() == b"set-cookie"
            else (name, value)
            for name, value in message["headers"]
        ]
