"""Refusals made in front of the routes (request limits, the origin guard, the HTTP server
itself), in the shape of the route that was asked.

A REST route answers the API's `{"error": {"status", "code", "message", "details?"}}` with that
status. `POST /api/v1/graphql` answers HTTP 200 with `{"errors": [...]}`, the status in
`extensions.status` (docs/graphql.md, "Errors"), whatever refused it: GraphQL clients (Apollo,
`gql`, GraphiQL) read `errors[]` only from a 200.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Scope, Send

GRAPHQL_PATH = "/api/v1/graphql"
GRAPHQL_CODES = {
    400: "BAD_REQUEST",
    403: "FORBIDDEN",
    413: "PAYLOAD_TOO_LARGE",
    414: "URI_TOO_LONG",
    415: "UNSUPPORTED_MEDIA_TYPE",
    429: "RATE_LIMITED",
    431: "REQUEST_HEADER_FIELDS_TOO_LARGE",
}


def is_graphql_post(method: str, path: str) -> bool:
    return method.upper() == "POST" and path.rstrip("/") == GRAPHQL_PATH


def graphql_error(status: int, message: str, details: Any = None) -> dict[str, Any]:
    """One GraphQL error for a refusal of the whole request."""
    extensions: dict[str, Any] = {"status": status, "code": GRAPHQL_CODES.get(status, "ERROR")}
    if details is not None:
        extensions["details"] = details
    return {"message": message, "extensions": extensions}


def refusal(
    method: str, path: str, status: int, code: str, message: str, details: Any = None
) -> tuple[int, bytes]:
    """(HTTP status, JSON body) refusing a request to `method path`."""
    if is_graphql_post(method, path):
        body: dict[str, Any] = {"errors": [graphql_error(status, message, details)]}
        return 200, json.dumps(body).encode()
    error: dict[str, Any] = {"status": status, "code": code, "message": message}
    if details is not None:
        error["details"] = details
    return status, json.dumps({"error": error}).encode()


async def send_refusal(
    scope: Scope, send: Send, status: int, code: str, message: str, details: Any = None
) -> None:
    """Answers the request of `scope` with `refusal(...)` (ASGI middleware)."""
    answered, body = refusal(scope["method"], scope["path"], status, code, message, details)
    await send(
        {
            "type": "http.response.start",
            "status": answered,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
