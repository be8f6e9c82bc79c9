"""Send test (spec 3.1, 6.1): a `ping` to one endpoint, now, from the API process.

Never queued, no delivery row, not counted against the failure budget; signed and sent exactly
like a delivery (same headers, same pinned sender and URL policy), attempt 1.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from content_service.clock import Clock, iso_utc

from .catalogue import PING
from .endpoint_store import Endpoint
from .envelope import freeze, ping_envelope
from .http_sender import Sender
from .outgoing import request_headers


@dataclass(frozen=True)
class PingResult:
    ok: bool
    status_code: int | None
    duration_ms: int
    response_snippet: str
    error: str | None
    delivery_id: str
    event_id: str

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "statusCode": self.status_code,
            "durationMs": self.duration_ms,
            "responseSnippet": self.response_snippet,
            "error": self.error,
        }


def send_ping(
    endpoint: Endpoint, actor: Mapping[str, str] | None, sender: Sender, clock: Clock
) -> PingResult:
    delivery_id, event_id = str(uuid.uuid4()), str(uuid.uuid4())
    now = clock.now()
    body = freeze(ping_envelope(delivery_id, event_id, iso_utc(now), endpoint.id, actor))
    headers = request_headers(
        event=PING,
        delivery_id=delivery_id,
        event_id=event_id,
        workspace_id=None,
        attempt=1,
        secret=endpoint.secret,
        body=body,
        timestamp=int(now),
        custom=endpoint.headers,
    )
    try:
        result = sender.post(endpoint.url, body, headers)
    except ValueError as error:
        return PingResult(False, None, 0, "", f"request not sent: {error}", delivery_id, event_id)
    return PingResult(
        ok=result.ok,
        status_code=result.status_code,
        duration_ms=result.duration_ms,
        response_snippet=result.response_snippet,
        error=result.error,
        delivery_id=delivery_id,
        event_id=event_id,
    )
