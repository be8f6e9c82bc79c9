"""The headers of a delivery request (spec 6.2), shared by deliveries and the send test."""

from __future__ import annotations

from collections.abc import Mapping

from .signing import signature_header

USER_AGENT = "Service-Webhooks/1"
CONTENT_TYPE = "application/json"


def request_headers(
    *,
    event: str,
    delivery_id: str,
    event_id: str,
    workspace_id: str | None,
    attempt: int,
    secret: str,
    body: bytes,
    timestamp: int,
    custom: Mapping[str, str],
) -> dict[str, str]:
    """The fixed headers, then the endpoint's custom ones (validated never to collide).

    `X-Service-Workspace` is omitted when the event has no workspace. The signature covers the
    exact body bytes with the endpoint's current secret (spec 6.3; rotation applies at once).
    """
    headers = {
        "Content-Type": CONTENT_TYPE,
        "User-Agent": USER_AGENT,
        "X-Service-Event": event,
        "X-Service-Delivery": delivery_id,
        "X-Service-Event-Id": event_id,
    }
    if workspace_id:
        headers["X-Service-Workspace"] = workspace_id
    headers["X-Service-Attempt"] = str(attempt)
    headers["X-Service-Signature"] = signature_header(secret, timestamp, body)
    for name, value in custom.items():
        headers[name] = value
    return headers
