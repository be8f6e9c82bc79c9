"""Per-token request rates at the API: every request a token authenticates is counted
(`identity.rate_limits`), and its answer says where the token stands.

`admit` runs where the token is authenticated (`api.auth.optional_caller`), once per request,
so REST, GraphQL, the SDL and `/api/v1/me` all count, and a 304 counts like any answer.
Over the limit it raises `TooManyRequests`: REST answers 429, GraphQL HTTP 200 with one error
whose `extensions.status` is 429. `RateLimitHeadersMiddleware` puts the decision's
`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (and `Retry-After` on a refusal) on
the answer, whichever protocol made it. Signed-in users are not counted.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from content_service import runtime
from content_service.api.http_middleware import HttpMiddleware
from content_service.errors import TooManyRequests
from content_service.identity.principal import TokenCaller
from content_service.identity.rate_limits import RateDecision, limit_for, limiter

STATE_KEY = "rate_decision"


def admit(request: Request, caller: TokenCaller) -> None:
    """Counts the request against the token's rate; refuses it when over."""
    limit = limit_for(caller, runtime.settings())
    if limit is None:
        return
    decision = limiter.admit(caller.token_id, limit)
    setattr(request.state, STATE_KEY, decision)
    if not decision.allowed:
        raise TooManyRequests(
            f"this token is over its rate of {limit} requests per second; retry after "
            f"{decision.reset_seconds} s"
        )


class RateLimitHeadersMiddleware(HttpMiddleware):
    """Adds the request's rate decision, if one was made, to its answer's headers."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:

        async def send_with_rate(message: Message) -> None:
            if message["type"] == "http.response.start":
                decision = scope.get("state", {}).get(STATE_KEY)
                if isinstance(decision, RateDecision):
                    message["headers"] = [
                        *message.get("headers", []),
                        *(
                            (name.lower().encode(), value.encode())
                            for name, value in decision.headers().items()
                        ),
                    ]
            await send(message)

        await self.app(scope, receive, send_with_rate)
