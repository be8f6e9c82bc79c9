"""Rotation with a grace period, and the Standard Webhooks scheme, checked by independent
verifiers: Stripe's (`t=,v1=`) and the official `standardwebhooks` package.

Real receivers on 127.0.0.1, the delivery core as the handler builds it (or the whole pipeline
through `drain`), and an injected clock to step past a grace period instead of waiting.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from content_service.webhooks.endpoints import MAX_OLDER_SECRETS
from content_service.webhooks.sending import LADDER_SECONDS
from harness.receiver import Answer, Received, Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.webhooks import (
    Hooks,
    drain,
    make_worker,
    row,
    seed_rows,
    sender_for,
    stripe_accepts,
    write_event,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")

HOUR = 3600


def standard_accepts(request: Received, secret: str, body: bytes | None = None) -> bool:
    try:
        Webhook(secret).verify(request.body if body is None else body, dict(request.headers))
    except WebhookVerificationError:
        return False
    return True


def rotate(hooks: Hooks, endpoint_id: str, **body: Any) -> dict[str, Any]:
    response = hooks.client.post(f"/api/webhooks/{endpoint_id}/rotate-secret", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_during_a_grace_hour_every_send_verifies_with_either_secret_then_only_the_new(
    hooks: Hooks, receiver: Receiver, clock: FakeClock, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(receiver.url(), workspaces=[workspace.id])
    old = created["secret"]
    receiver.respond(Answer(503))  # the first delivery fails: its retry waits in the queue
    (retried,) = seed_rows(created["id"], clock)
    with sender_for() as sender:
        assert make_worker(sender, clock).process(retried.id).result == "failed"
    assert row(retried.id).status == "failed"

    rotated = rotate(hooks, created["id"], graceSeconds=HOUR)
    new = rotated["secret"]
    assert new != old
    assert new.startswith("whsec_")
    assert rotated["olderSecrets"] == [
        {"secretHint": old[-4:], "expiresAt": rotated["olderSecrets"][0]["expiresAt"]}
    ]
    shown = hooks.get(created["id"])
    assert shown["secretHint"] == new[-4:]
    assert [o["secretHint"] for o in shown["olderSecrets"]] == [old[-4:]]
    assert old not in json.dumps(shown)
    assert new not in json.dumps(shown)

    (following,) = seed_rows(created["id"], clock)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        assert worker.process(following.id).result == "succeeded"
        clock.advance(LADDER_SECONDS[0] * 1.2 + 1)  # the queued retry comes due
        assert worker.process(retried.id).result == "succeeded"
    first, during, retry = receiver.requests
    assert stripe_accepts(first, old)
    assert not stripe_accepts(first, new)
    for request in (during, retry):
        header = request.header("X-Service-Signature") or ""
        assert header.count("v1=") == 2  # newest first: the new secret's, then the old one's
        assert stripe_accepts(request, new)
        assert stripe_accepts(request, old)
    assert retry.header("X-Service-Attempt") == "2"

    clock.advance(HOUR)  # past the grace
    (after,) = seed_rows(created["id"], clock)
    with sender_for() as sender:
        assert make_worker(sender, clock).process(after.id).result == "succeeded"
    last = receiver.requests[-1]
    assert (last.header("X-Service-Signature") or "").count("v1=") == 1
    assert stripe_accepts(last, new)
    assert not stripe_accepts(last, old)
    assert hooks.get(created["id"])["olderSecrets"] == []


@pytest.mark.parametrize("grace", [604_801, -1, 10**12, "3600", 1.5, None, True])
def test_a_grace_outside_0_to_7_days_is_refused_with_422(
    hooks: Hooks, receiver: Receiver, grace: Any
) -> None:
    created = hooks.create(receiver.url(), workspaces=[])
    response = hooks.client.post(
        f"/api/webhooks/{created['id']}/rotate-secret", json={"graceSeconds": grace}
    )
    assert response.status_code == 422, response.text
    assert hooks.get(created["id"])["secretHint"] == created["secret"][-4:]  # nothing rotated


def test_seven_days_is_the_longest_grace_and_ten_older_secrets_live_at_once(
    hooks: Hooks, receiver: Receiver, clock: FakeClock
) -> None:
    created = hooks.create(receiver.url(), workspaces=[])
    secrets = [created["secret"]]
    for _ in range(MAX_OLDER_SECRETS + 2):
        secrets.append(rotate(hooks, created["id"], graceSeconds=604_800)["secret"])
        clock.advance(1)
    older = hooks.get(created["id"])["olderSecrets"]
    # Newest first; the two oldest went when the eleventh and twelfth were kept.
    assert [o["secretHint"] for o in older] == [s[-4:] for s in reversed(secrets[2:-1])]
    # A rotation without a grace stops the replaced secret now, and keeps the others' expiry.
    immediate = rotate(hooks, created["id"])
    assert immediate["olderSecrets"] == older


def test_standard_webhooks_verifies_real_deliveries_and_refuses_a_tampered_body(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(receiver.url(), workspaces=[workspace.id], signatureScheme="standard")
    assert created["signatureScheme"] == "standard"
    secret = created["secret"]
    event = write_event(workspace_id=workspace.id, kind="entry.published")
    drain(stack)
    (first,) = receiver.requests
    assert standard_accepts(first, secret)
    assert stripe_accepts(first, secret)  # X-Service-Signature is kept, same secret
    assert first.header("webhook-id") == event["id"] == first.header("X-Service-Event-Id")
    service_t = (first.header("X-Service-Signature") or "").split(",")[0]
    assert service_t == f"t={first.header('webhook-timestamp')}"
    tampered = first.body.replace(b"entry.published", b"entry.purged")
    assert tampered != first.body
    assert not standard_accepts(first, secret, tampered)

    # A redelivery keeps the webhook-id: receivers deduplicate on it.
    delivery_id = first.header("X-Service-Delivery")
    again = hooks.client.post(f"/api/webhooks/{created['id']}/deliveries/{delivery_id}/redeliver")
    assert again.status_code == 202
    drain(stack)
    redelivered = receiver.requests[1]
    assert redelivered.header("webhook-id") == event["id"]
    assert redelivered.header("X-Service-Delivery") != delivery_id
    assert standard_accepts(redelivered, secret)

    # During a rotation's grace both secrets verify; the new secret is standard too.
    new = rotate(hooks, created["id"], graceSeconds=HOUR)["secret"]
    write_event(workspace_id=workspace.id, kind="entry.updated")
    drain(stack)
    during = receiver.requests[2]
    assert len((during.header("webhook-signature") or "").split(" ")) == 2
    assert standard_accepts(during, new)
    assert standard_accepts(during, secret)
    assert not standard_accepts(during, new, during.body + b" ")


def test_send_test_of_a_standard_endpoint_verifies_too(hooks: Hooks, receiver: Receiver) -> None:
    created = hooks.create(receiver.url(), workspaces=[], signatureScheme="standard")
    response = hooks.client.post(f"/api/webhooks/{created['id']}/test")
    assert response.json()["ok"] is True
    (ping,) = receiver.requests
    assert standard_accepts(ping, created["secret"])
    assert ping.header("webhook-id") == ping.header("X-Service-Event-Id")


def test_a_service_endpoint_carries_no_standard_headers(hooks: Hooks, receiver: Receiver) -> None:
    created = hooks.create(receiver.url(), workspaces=[])
    assert created["signatureScheme"] == "service"
    hooks.client.post(f"/api/webhooks/{created['id']}/test")
    (ping,) = receiver.requests
    assert not {"webhook-id", "webhook-timestamp", "webhook-signature"} & ping.header_names()
    assert stripe_accepts(ping, created["secret"])


def test_the_scheme_is_chosen_at_creation(hooks: Hooks, receiver: Receiver) -> None:
    created = hooks.create(receiver.url(), workspaces=[])
    response = hooks.client.patch(
        f"/api/webhooks/{created['id']}", json={"signatureScheme": "standard"}
    )
    assert response.status_code == 422
    assert "signatureScheme" in response.text
    same = hooks.client.patch(f"/api/webhooks/{created['id']}", json={"signatureScheme": "service"})
    assert same.status_code == 200
    bad = hooks.client.post(
        "/api/webhooks", json={"url": receiver.url(), "signatureScheme": "svix"}
    )
    assert bad.status_code == 422


@pytest.mark.parametrize("name", ["webhook-id", "Webhook-Signature", "WEBHOOK-TIMESTAMP"])
def test_the_standard_headers_cannot_be_custom_headers(
    hooks: Hooks, receiver: Receiver, name: str
) -> None:
    response = hooks.client.post(
        "/api/webhooks", json={"url": receiver.url(), "headers": {name: "forged"}}
    )
    assert response.status_code == 422
