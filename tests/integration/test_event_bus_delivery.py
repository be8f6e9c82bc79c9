"""EventBridge destinations against the emulator: a bus with a rule whose target is an SQS
queue receives each envelope once, as a `PutEvents` entry (`source` content-service,
`detail-type` the kind, `detail` the frozen envelope); a bus off the allow-list is refused; a
failed entry is retried on the ladder and counted like an HTTP failure."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from content_service.settings import SettingsError, WebhookOptions
from content_service.webhooks.endpoints import OPERATIONAL_KINDS
from harness.receiver import Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.settings import webhook_options
from tests.support.webhooks import (
    Hooks,
    all_rows_for_endpoint,
    drain,
    endpoint,
    make_worker,
    received_notices,
    row,
    seed_rows,
    sender_for,
    write_event,
)

pytestmark = pytest.mark.usefixtures("stack")


@dataclass
class Bus:
    arn: str
    name: str
    queue_url: str
    events: Any
    sqs: Any

    def received(self) -> list[dict[str, Any]]:
        """Every event the rule's target queue holds (read and deleted)."""
        found: list[dict[str, Any]] = []
        while True:
            answer = self.sqs.receive_message(QueueUrl=self.queue_url, MaxNumberOfMessages=10)
            messages = answer.get("Messages", [])
            if not messages:
                return found
            for message in messages:
                found.append(json.loads(message["Body"]))
                self.sqs.delete_message(
                    QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"]
                )


@pytest.fixture
def bus(stack: LocalStack) -> Iterator[Bus]:
    """A bus in the emulator with a rule for the service's events and an SQS target, allowed
    by WEBHOOKS_EVENTBRIDGE_BUSES for this test."""
    session, url = stack.emulator.session(), stack.emulator.endpoint_url
    events, sqs = session.client("events", endpoint_url=url), stack.emulator.sqs()
    name = f"content-hooks-{uuid.uuid4().hex[:8]}"
    arn = events.create_event_bus(Name=name)["EventBusArn"]
    queue = sqs.create_queue(QueueName=f"{name}-target")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])
    events.put_rule(
        Name="content-service",
        EventBusName=name,
        EventPattern=json.dumps({"source": ["content-service"]}),
    )
    events.put_targets(
        Rule="content-service",
        EventBusName=name,
        Targets=[{"Id": "inbox", "Arn": queue_arn["Attributes"]["QueueArn"]}],
    )
    with webhook_options(eventbridge_buses=(arn,)):
        yield Bus(arn, name, queue, events, sqs)


def test_a_rule_on_the_bus_receives_each_envelope_once(
    stack: LocalStack, hooks: Hooks, bus: Bus, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(None, type="eventbridge", eventBusArn=bus.arn, workspaces=[workspace.id])
    assert created["url"] is None
    assert created["type"] == "eventbridge"
    written = [
        write_event(workspace_id=workspace.id, kind=kind, title=f"On the bus {n}")
        for n, kind in enumerate(("entry.created", "entry.published", "entry.deleted"))
    ]
    drain(stack)
    rows = {r.event_id: r for r in all_rows_for_endpoint(created["id"])}
    received = bus.received()
    assert sorted(e["detail"]["eventId"] for e in received) == sorted(e["id"] for e in written)
    for event in received:
        assert event["source"] == "content-service"
        delivered = rows[event["detail"]["eventId"]]
        assert event["detail-type"] == delivered.event
        assert event["detail"] == json.loads(delivered.request_body)  # the frozen envelope
        assert delivered.status == "succeeded"
        assert delivered.last_status_code is None
        assert json.loads(delivered.response_snippet or "{}")["EventId"] == event["id"]
    drain(stack)
    assert bus.received() == []  # once: nothing more arrives


def test_send_test_puts_a_ping_on_the_bus(hooks: Hooks, bus: Bus) -> None:
    created = hooks.create(None, type="eventbridge", eventBusArn=bus.arn, workspaces=[])
    answer = hooks.client.post(f"/api/webhooks/{created['id']}/test").json()
    assert answer["ok"] is True
    assert answer["statusCode"] is None
    (ping,) = bus.received()
    assert ping["detail-type"] == "ping"
    assert ping["detail"]["data"] == {"kind": "endpoint", "id": created["id"]}


def test_a_bus_off_the_allow_list_is_refused(hooks: Hooks, bus: Bus) -> None:
    other = bus.arn.replace(bus.name, "somebody-elses-bus")
    response = hooks.client.post(
        "/api/webhooks", json={"type": "eventbridge", "eventBusArn": other, "workspaces": []}
    )
    assert response.status_code == 422
    assert "not on the allow-list" in response.text
    with webhook_options(eventbridge_buses=()):
        empty = hooks.client.post(
            "/api/webhooks",
            json={"type": "eventbridge", "eventBusArn": bus.arn, "workspaces": []},
        )
    assert empty.status_code == 422
    assert "every bus is refused" in empty.text


@pytest.mark.parametrize(
    "extra",
    [
        {"url": "https://hooks.example.com/in"},
        {"headers": {"Authorization": "Bearer x"}},
        {"signatureScheme": "standard"},
        {"mode": "pull"},
    ],
)
def test_http_fields_do_not_apply_to_an_event_bus(
    hooks: Hooks, bus: Bus, extra: dict[str, Any]
) -> None:
    body = {"type": "eventbridge", "eventBusArn": bus.arn, "workspaces": [], **extra}
    response = hooks.client.post("/api/webhooks", json=body)
    assert response.status_code == 422, response.text
    assert next(iter(extra)) in response.text


def test_the_type_stays_and_a_bus_needs_an_eventbridge_endpoint(
    hooks: Hooks, bus: Bus, local_receivers_allowed: None
) -> None:
    on_bus = hooks.create(None, type="eventbridge", eventBusArn=bus.arn, workspaces=[])
    http = hooks.create("http://127.0.0.1:9/in", workspaces=[])
    for target, body in (
        (on_bus, {"type": "http"}),
        (on_bus, {"url": "http://127.0.0.1:9/in"}),
        (http, {"eventBusArn": bus.arn}),
    ):
        response = hooks.client.patch(f"/api/webhooks/{target['id']}", json=body)
        assert response.status_code == 422, body
    refused = hooks.client.post(
        "/api/webhooks", json={"url": "http://127.0.0.1:9/in", "eventBusArn": bus.arn}
    )
    assert refused.status_code == 422
    assert hooks.client.post("/api/webhooks", json={"workspaces": []}).status_code == 422


def test_a_failed_entry_is_retried_on_the_ladder_and_counted(
    hooks: Hooks, bus: Bus, clock: FakeClock, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = hooks.create(None, type="eventbridge", eventBusArn=bus.arn, workspaces=[workspace.id])
    bus.events.remove_targets(Rule="content-service", EventBusName=bus.name, Ids=["inbox"])
    bus.events.delete_rule(Name="content-service", EventBusName=bus.name)
    bus.events.delete_event_bus(Name=bus.name)  # every put now fails
    (seeded,) = seed_rows(created["id"], clock)
    with sender_for() as sender:
        worker = make_worker(sender, clock)
        results = []
        for _ in range(6):
            results.append(worker.process(seeded.id).result)
            clock.advance(3 * 3600)
    assert results == ["failed"] * 5 + ["dead"]
    dead = row(seeded.id)
    assert dead.attempts == 6
    assert dead.last_error is not None
    assert "PutEvents" in dead.last_error
    assert endpoint(created["id"]).consecutive_dead == 1


def test_notices_about_a_bus_endpoint_name_the_bus_never_its_arn(
    stack: LocalStack, hooks: Hooks, bus: Bus, new_workspace: Any
) -> None:
    """A bus taken off the allow-list fails each put until the endpoint is disabled; back on
    it, the endpoint recovers. The notices name the bus, not its ARN, account or region."""
    workspace: WorkspaceAccess = new_workspace()
    account = bus.arn.split(":")[4]
    with (
        Receiver() as watcher,
        webhook_options(
            allow_private_networks=True,
            allow_insecure_urls=True,
            max_attempts=1,
            auto_disable_after=2,
        ),
    ):
        hooks.create(watcher.url("/ops"), allWorkspaces=True, events=list(OPERATIONAL_KINDS))
        created = hooks.create(
            None, type="eventbridge", eventBusArn=bus.arn, workspaces=[workspace.id]
        )
        with webhook_options(eventbridge_buses=()):
            for _ in range(2):
                write_event(workspace_id=workspace.id, kind="entry.updated")
            drain(stack)
        assert endpoint(created["id"]).enabled is False
        hooks.patch(created["id"], enabled=True)
        write_event(workspace_id=workspace.id, kind="entry.updated")
        drain(stack)
    received = received_notices(watcher, ("arn:aws", account))
    for notice in received:
        assert (notice["data"]["id"], notice["data"]["host"]) == (created["id"], bus.name)
    assert f"event bus {bus.name} is not on" in received[1]["data"]["reason"]


def test_the_allow_list_is_read_from_the_environment() -> None:
    arn = "arn:aws:events:eu-west-1:123456789012:event-bus/content"
    options = WebhookOptions.from_env({"WEBHOOKS_EVENTBRIDGE_BUSES": f" {arn} ,{arn}-2,"})
    assert options.eventbridge_buses == (arn, f"{arn}-2")
    assert WebhookOptions.from_env({}).eventbridge_buses == ()
    with pytest.raises(SettingsError, match="not an event bus ARN"):
        WebhookOptions.from_env({"WEBHOOKS_EVENTBRIDGE_BUSES": "content-bus"})
