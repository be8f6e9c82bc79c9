"""End to end on the local stack: an event reaches a real receiver on 127.0.0.1, signed.

The path is the real one: an outbox item in the events table (written by the content API, or
by the test exactly as the content API writes it), the table's stream, the fan-out handler,
the delivery queue, the delivery handler, the pinned sender, the receiver. `drain(stack)`
runs the pollers in the test's thread, so nothing is waited for.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from content_service.webhooks.sending import verify_signature
from harness.receiver import Answer, Received, Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.webhooks import (
    ENVELOPE_FIELDS,
    Hooks,
    Receiving,
    drain,
    row,
    stripe_accepts,
    write_event,
)

UUID_FIELDS = ("id", "eventId")


def assert_headers_and_envelope(
    request: Received,
    *,
    secret: str,
    kind: str,
    workspace_id: str | None,
    attempt: int,
    data: dict[str, Any],
    actor: dict[str, str] | None,
) -> dict[str, Any]:
    """Every header and the envelope (docs/api.md, "What a receiver gets"), and the signature two
    ways."""
    assert request.method == "POST"
    assert request.header("Content-Type") == "application/json"
    assert request.header("User-Agent") == "Service-Webhooks/1"
    assert request.header("X-Service-Event") == kind
    assert request.header("X-Service-Attempt") == str(attempt)
    if workspace_id is None:
        assert "x-service-workspace" not in request.header_names()
    else:
        assert request.header("X-Service-Workspace") == workspace_id

    body: dict[str, Any] = json.loads(request.body)
    assert list(body) == ENVELOPE_FIELDS
    for name in UUID_FIELDS:
        uuid.UUID(body[name])
    assert body["id"] == request.header("X-Service-Delivery")
    assert body["eventId"] == request.header("X-Service-Event-Id")
    assert body["event"] == kind
    assert body["workspaceId"] == workspace_id
    assert body["actor"] == actor
    assert body["data"] == data
    assert body["occurredAt"].endswith("Z")
    # Compact UTF-8 JSON: the frozen bytes, not a re-serialisation.
    assert request.body == json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()

    header = request.header("X-Service-Signature")
    assert header is not None
    # Stripe's verifier (independent code) and ours agree on the raw bytes.
    assert stripe_accepts(request, secret)
    verify_signature(request.body, header, secret)
    return body


def test_outbox_event_reaches_a_receiver_signed(stack: LocalStack, receiving: Receiving) -> None:
    workspace, hooks, receiver = receiving
    endpoint = hooks.create(receiver.url(), workspaces=[workspace.id])
    actor = {"id": str(uuid.uuid4()), "email": "editor@example.com"}
    event = write_event(
        workspace_id=workspace.id, kind="entry.published", title="Grüße ✓", actor=actor
    )

    drain(stack)

    assert len(receiver.requests) == 1
    body = assert_headers_and_envelope(
        receiver.requests[0],
        secret=endpoint["secret"],
        kind="entry.published",
        workspace_id=workspace.id,
        attempt=1,
        data=event["data"],
        actor=actor,
    )
    assert body["eventId"] == event["id"]
    assert body["occurredAt"] == event["occurredAt"]
    delivery = hooks.delivery(endpoint["id"], body["id"])
    assert delivery["status"] == "succeeded"
    assert delivery["attempts"] == 1
    assert delivery["lastStatusCode"] == 200
    assert delivery["requestBody"] == receiver.requests[0].body.decode()


def test_rotated_secret_signs_the_next_attempt(
    stack: LocalStack, clock: FakeClock, receiving: Receiving
) -> None:
    workspace, hooks, receiver = receiving
    endpoint = hooks.create(receiver.url(), workspaces=[workspace.id])
    old_secret = endpoint["secret"]
    receiver.respond(Answer(503))
    write_event(workspace_id=workspace.id)

    drain(stack)
    assert len(receiver.requests) == 1
    first = receiver.requests[0]
    delivery_id = first.header("X-Service-Delivery")
    assert delivery_id is not None
    assert row(delivery_id).status == "failed"

    rotated = hooks.client.post(f"/api/webhooks/{endpoint['id']}/rotate-secret")
    assert rotated.status_code == 200
    new_secret = rotated.json()["secret"]
    assert new_secret != old_secret
    assert rotated.json()["secretHint"] == new_secret[-4:]
    assert hooks.get(endpoint["id"])["secretHint"] == new_secret[-4:]

    # Past the retry's window (at most 12 s) and the sweep's grace for a delayed message.
    clock.advance(12 + 61)
    stack.tick("Sweep")
    drain(stack)

    assert len(receiver.requests) == 2
    second = receiver.requests[1]
    assert second.header("X-Service-Delivery") == delivery_id
    assert second.body == first.body
    header = second.header("X-Service-Signature")
    assert header is not None
    assert stripe_accepts(second, new_secret)
    verify_signature(second.body, header, new_secret, now=int(clock.now()))
    assert not stripe_accepts(second, old_secret)
    assert second.header("X-Service-Attempt") == "2"
    assert row(delivery_id).status == "succeeded"


def test_entry_write_through_the_content_api_reaches_a_receiver(
    stack: LocalStack, receiving: Receiving
) -> None:
    """The whole chain from the content routes of docs/api.md; needs the content capability."""
    workspace, hooks, receiver = receiving
    endpoint = hooks.create(receiver.url(), workspaces=[workspace.id], events=["entry.created"])
    type_name = f"article_{uuid.uuid4().hex[:8]}"
    created_type = workspace.full.post(
        "/api/v1/content-types",
        json={
            "name": type_name,
            "kind": "collection",
            "localized": False,
            "audienceGated": False,
            "titleField": "title",
            "fields": [{"name": "title", "type": "string", "required": True}],
        },
    )
    assert created_type.status_code == 201, created_type.text
    created = workspace.full.post(
        f"/api/v1/content/{type_name}", json={"values": {"title": "Webhooks end to end"}}
    )
    assert created.status_code == 201, created.text
    entry = created.json()

    drain(stack)

    assert len(receiver.requests) == 1
    body = assert_headers_and_envelope(
        receiver.requests[0],
        secret=endpoint["secret"],
        kind="entry.created",
        workspace_id=workspace.id,
        attempt=1,
        data={
            "kind": "content_entry",
            "id": entry["id"],
            "contentType": type_name,
            "title": "Webhooks end to end",
        },
        actor=None,  # written with an API token
    )
    assert hooks.delivery(endpoint["id"], body["id"])["status"] == "succeeded"


def test_send_test_pings_synchronously_and_queues_nothing(
    hooks: Hooks, receiver: Receiver, credentials: dict[str, Any], local_receivers_allowed: None
) -> None:
    endpoint = hooks.create(receiver.url(), allWorkspaces=False)
    receiver.respond(Answer(200, b"pong " + b"x" * 5000))
    started = time.monotonic()
    response = hooks.client.post(f"/api/webhooks/{endpoint['id']}/test")
    assert time.monotonic() - started < 10
    assert response.status_code == 200, response.text
    result = response.json()
    assert set(result) == {"ok", "statusCode", "durationMs", "responseSnippet", "error"}
    assert result["ok"] is True
    assert result["statusCode"] == 200
    assert result["error"] is None
    assert isinstance(result["durationMs"], int)
    assert result["responseSnippet"] == ("pong " + "x" * 5000)[:2048]

    assert len(receiver.requests) == 1
    me = hooks.client.get("/api/v1/me").json()
    assert_headers_and_envelope(
        receiver.requests[0],
        secret=endpoint["secret"],
        kind="ping",
        workspace_id=None,
        attempt=1,
        data={"kind": "endpoint", "id": endpoint["id"]},
        actor={"id": me["id"], "email": credentials["admin"]["email"]},
    )
    # Never queued, no row, not counted.
    assert hooks.deliveries(endpoint["id"]) == []
    assert hooks.get(endpoint["id"])["consecutiveDead"] == 0


def test_send_test_reports_a_failure_without_counting_it(
    hooks: Hooks, receiver: Receiver, local_receivers_allowed: None
) -> None:
    endpoint = hooks.create(receiver.url())
    receiver.respond(Answer(410, b"gone"))
    result = hooks.client.post(f"/api/webhooks/{endpoint['id']}/test").json()
    assert result["ok"] is False
    assert result["statusCode"] == 410
    assert result["responseSnippet"] == "gone"
    assert hooks.get(endpoint["id"])["consecutiveDead"] == 0
    assert hooks.get(endpoint["id"])["enabled"] is True


def test_send_test_to_a_closed_port_reports_the_error(
    hooks: Hooks, local_receivers_allowed: None
) -> None:
    from harness.receiver import refused_port

    endpoint = hooks.create(f"http://127.0.0.1:{refused_port()}/hook")
    result = hooks.client.post(f"/api/webhooks/{endpoint['id']}/test").json()
    assert result["ok"] is False
    assert result["statusCode"] is None
    assert "refused" in result["error"]
