"""Send test (docs/webhooks.md, "Catalogue and Send test"): a `ping` to one endpoint, now, from
the API process.

Never queued, no delivery row, not counted against the failure budget; signed and sent exactly
like a delivery (same headers, same pinned sender and URL policy), attempt 1. Another kind of
the catalogue may be sent instead: its example envelope (`catalogue.example_envelope`) with
fresh ids, marked `X-Service-Test: 1` so a receiver can tell it from a real event.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from content_service import camel
from content_service.clock import Clock, iso_utc
from content_service.storage.outbox_event import OutboxEvent

from ..sending import EventBusSender, Sender, SendResult, envelope, freeze, request_headers
from .catalogue import EXAMPLE_WORKSPACE_ID, PING, example_envelope, kind_of
from .endpoint_store import Endpoint


@dataclass(frozen=True)
class PingResult:
    """A Send test's one attempt, and the ids it was sent under."""

    sent: SendResult
    delivery_id: str
    event_id: str

    def to_json(self) -> dict[str, Any]:
        shown = camel.dump(self.sent, ("status_code", "duration_ms", "response_snippet", "error"))
        return {"ok": self.sent.ok, **shown}


TEST_HEADER = "X-Service-Test"


def send_test_envelope(
    kind: str,
    delivery_id: str,
    event_id: str,
    occurred_at: str,
    endpoint: Endpoint,
    actor: Mapping[str, str] | None,
) -> dict[str, Any]:
    """The envelope a Send test of `kind` posts: `ping`'s data names the endpoint and it
    carries no workspace (docs/api.md, Send test); another kind's data is its example's, in the
    endpoint's first workspace when the kind carries one."""
    data = (
        {"kind": "endpoint", "id": endpoint.id} if kind == PING else example_envelope(kind)["data"]
    )
    workspace_id = None
    if kind_of(kind).carries_workspace:
        workspace_id = endpoint.workspaces[0] if endpoint.workspaces else EXAMPLE_WORKSPACE_ID
    event = OutboxEvent(
        id=event_id,
        kind=kind,
        occurred_at=occurred_at,
        workspace_id=workspace_id,
        actor=dict(actor) if actor is not None else None,
        data=data,
    )
    return envelope(delivery_id, event)


def send_ping(
    endpoint: Endpoint,
    actor: Mapping[str, str] | None,
    sender: Sender,
    clock: Clock,
    kind: str = PING,
    bus: EventBusSender | None = None,
) -> PingResult:
    """Posts the test to the endpoint's URL, or puts it on its event bus (`bus`)."""
    delivery_id, event_id = str(uuid.uuid4()), str(uuid.uuid4())
    now = clock.now()
    sent = send_test_envelope(kind, delivery_id, event_id, iso_utc(now), endpoint, actor)
    body = freeze(sent)
    if endpoint.event_bus and bus is not None:
        return PingResult(bus.put(endpoint.event_bus_arn or "", kind, body), delivery_id, event_id)
    try:
        headers = request_headers(
            event=kind,
            delivery_id=delivery_id,
            event_id=event_id,
            workspace_id=sent["workspaceId"],
            attempt=1,
            secret=endpoint.signing_secrets(now),
            body=body,
            timestamp=int(now),
            custom=endpoint.header_values(),
            scheme=endpoint.signature_scheme,
        )
        if kind != PING:
            headers[TEST_HEADER] = "1"
        result = sender.post(endpoint.url, body, headers)
    except ValueError as error:
        return PingResult(SendResult.not_sent(error), delivery_id, event_id)
    return PingResult(result, delivery_id, event_id)
