"""The headers of a delivery request (docs/webhooks.md, "Delivery"), shared by deliveries and
the send test."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..endpoints import SignatureScheme, standard_key
from .signing import signature_header, standard_signature

USER_AGENT = "Service-Webhooks/1"
CONTENT_TYPE = "application/json"


def request_headers(
    *,
    event: str,
    delivery_id: str,
    event_id: str,
    workspace_id: str | None,
    attempt: int,
    secret: str | Sequence[str],
    body: bytes,
    timestamp: int,
    custom: Mapping[str, str],
    scheme: SignatureScheme = "service",
) -> dict[str, str]:
    """The fixed headers, then the endpoint's custom ones (validated never to collide).

    `X-Service-Workspace` is omitted when the event has no workspace. The signature covers the
    exact body bytes with every secret valid now (`secret`: one, or several newest first while
    a rotation's grace period runs). A `standard` endpoint also gets the Standard Webhooks
    headers: `webhook-id` (the event id, stable across retries and redeliveries),
    `webhook-timestamp` and `webhook-signature` (one `v1,<base64>` per secret, space-separated).
    """
    secrets = [secret] if isinstance(secret, str) else list(secret)
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
    headers["X-Service-Signature"] = signature_header(secrets, timestamp, body)
    if scheme == "standard":
        headers["webhook-id"] = event_id
        headers["webhook-timestamp"] = str(timestamp)
        headers["webhook-signature"] = " ".join(
            standard_signature(standard_key(s), event_id, timestamp, body) for s in secrets
        )
    for name, value in custom.items():
        headers[name] = value
    return headers
