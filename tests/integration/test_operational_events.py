"""Operational events through the whole pipeline: an endpoint answering 410 turns failing, then
disabled; a second endpoint subscribed to the notices hears each transition exactly once, and
the recovery after a re-enable; the alarm topic hears them too, naming the endpoint.

Both endpoints are real receivers on 127.0.0.1; `drain` runs the fan-out and delivery handlers,
so a notice travels as any event does: outbox, stream, fan-out, queue, delivery.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from content_service import runtime
from content_service.webhooks import services, wiring
from content_service.webhooks.endpoints import OPERATIONAL_KINDS, Endpoint
from content_service.webhooks.operations import failing_threshold
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock, store_endpoint
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.resolver import FakeResolver
from tests.support.settings import settings_changed, webhook_options
from tests.support.webhooks import (
    Hooks,
    drain,
    endpoint,
    purge_endpoint,
    received_notices,
    stripe_accepts,
    write_event,
)

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")


@pytest.fixture
def watcher() -> Iterator[Receiver]:
    """The second endpoint's receiver: it hears the notices."""
    with Receiver() as running:
        yield running


def notices(receiver: Receiver) -> list[dict[str, Any]]:
    return [json.loads(r.body) for r in receiver.requests]


def watch(hooks: Hooks, watcher: Receiver) -> dict[str, Any]:
    return hooks.create(watcher.url("/ops"), allWorkspaces=True, events=list(OPERATIONAL_KINDS))


def test_twenty_410s_give_one_failing_and_one_disabled_then_one_recovered(
    stack: LocalStack,
    hooks: Hooks,
    receiver: Receiver,
    watcher: Receiver,
    new_workspace: Any,
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    gone = hooks.create(receiver.url(), workspaces=[workspace.id])
    watching = watch(hooks, watcher)
    receiver.always(Answer(410, b"gone"))
    for index in range(20):
        write_event(workspace_id=workspace.id, kind="entry.updated", title=f"Post {index}")
    drain(stack)
    assert len(receiver.requests) == 20
    assert endpoint(gone["id"]).enabled is False

    # The watcher hears every endpoint's notices; other tests' endpoints share the stack.
    def about_gone() -> list[dict[str, Any]]:
        return [n for n in notices(watcher) if n["data"].get("id") == gone["id"]]

    received = about_gone()
    assert [n["event"] for n in received] == ["endpoint.failing", "endpoint.disabled"]
    failing, disabled = received
    for notice, count in ((failing, 10), (disabled, 20)):
        assert notice["workspaceId"] is None
        assert notice["actor"] is None
        assert notice["data"]["kind"] == "webhook_endpoint"
        assert notice["data"]["id"] == gone["id"]
        assert notice["data"]["host"] == "127.0.0.1"
        assert notice["data"]["consecutiveDead"] == count
    assert "10 consecutive dead deliveries" in failing["data"]["reason"]
    assert disabled["data"]["reason"] == endpoint(gone["id"]).disabled_reason
    assert "disabled after 20 consecutive dead deliveries" in disabled["data"]["reason"]
    assert "HTTP 410 is final" in disabled["data"]["reason"]
    for request in watcher.requests:
        assert stripe_accepts(request, watching["secret"])
        assert request.header("X-Service-Workspace") is None
    assert hooks.get(gone["id"])["alertState"] == "disabled"

    # Disabled: more events make no rows and no notices.
    write_event(workspace_id=workspace.id, kind="entry.updated")
    drain(stack)
    assert len(receiver.requests) == 20
    assert len(about_gone()) == 2

    # Re-enabled, one success: one endpoint.recovered; a second success says nothing.
    assert hooks.patch(gone["id"], enabled=True)["alertState"] == "disabled"
    receiver.always(Answer(200))
    for _ in range(2):
        write_event(workspace_id=workspace.id, kind="entry.published")
        drain(stack)
    assert [n["event"] for n in about_gone()] == [
        "endpoint.failing",
        "endpoint.disabled",
        "endpoint.recovered",
    ]
    recovered = about_gone()[2]
    assert recovered["data"]["id"] == gone["id"]
    assert "succeeded" in recovered["data"]["reason"]
    after = hooks.get(gone["id"])
    assert after["alertState"] is None
    assert after["consecutiveDead"] == 0


# A Slack-style URL's secret is its path; others keep one in the query or the user name.
SECRET_TARGET = "/services/T000/B000/XXXXSECRET?token=QUERYSECRET"
CREDENTIALS = "hook-user:PASSWORDSECRET@"
REFUSED_ANSWER = "100.100.100.200"  # CGNAT: refused even with private networks allowed
NEVER_TOLD = (
    "/services",
    "T000",
    "B000",
    "XXXXSECRET",
    "token",
    "QUERYSECRET",
    "hook-user",
    "PASSWORDSECRET",
    REFUSED_ANSWER,
)


@pytest.mark.parametrize(
    ("host", "userinfo", "answers"),
    [
        pytest.param("127.0.0.1", CREDENTIALS, [], id="refused-for-its-credentials"),
        pytest.param("secret-hooks.test", "", [REFUSED_ANSWER], id="resolves-to-a-refused-address"),
    ],
)
def test_notices_name_the_host_never_the_path_query_credentials_or_resolved_address(
    stack: LocalStack,
    hooks: Hooks,
    receiver: Receiver,
    watcher: Receiver,
    host: str,
    userinfo: str,
    answers: list[str],
) -> None:
    """An endpoint whose URL holds secrets (stored before the policy refused credentials, or
    whose name has since resolved to a refused address) fails until disabled, then recovers:
    the notices another workspace's receiver hears name its id and host, and nowhere in their
    bodies its path, query, credentials or the address its name resolved to."""
    resolver = FakeResolver({host: answers} if answers else {})
    watch(hooks, watcher)
    with (
        wiring.overridden(resolver=resolver),
        webhook_options(max_attempts=1, auto_disable_after=2),
    ):
        leaky = store_endpoint(f"http://{userinfo}{host}:{receiver.port}{SECRET_TARGET}")
        try:
            for _ in range(2):
                write_event(workspace_id=leaky.workspaces[0], kind="entry.updated")
            drain(stack)
            disabled_reason = endpoint(leaky.id).disabled_reason
            resolver.answer(host, ["127.0.0.1"])
            hooks.patch(leaky.id, enabled=True, url=f"http://{host}:{receiver.port}{SECRET_TARGET}")
            receiver.always(Answer(200))
            write_event(workspace_id=leaky.workspaces[0], kind="entry.updated")
            drain(stack)
        finally:
            purge_endpoint(leaky.id)

    received = received_notices(watcher, NEVER_TOLD)
    for notice in received:
        assert list(notice["data"]) == ["kind", "id", "host", "reason", "consecutiveDead"]
        assert (notice["data"]["id"], notice["data"]["host"]) == (leaky.id, host)
    failing, disabled, _ = received
    assert "attempt 1 of 1 failed" in failing["data"]["reason"]
    assert disabled["data"]["reason"] == disabled_reason


def test_a_notice_is_never_sent_to_the_endpoint_it_is_about(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, watcher: Receiver, new_workspace: Any
) -> None:
    """An `allWorkspaces` endpoint that takes the notices fails, then recovers: the notices of
    both go to the other such endpoint, never to it."""
    workspace: WorkspaceAccess = new_workspace()
    kinds = ["entry.updated", "endpoint.failing", "endpoint.recovered"]
    subject = hooks.create(receiver.url(), allWorkspaces=True, events=kinds)
    watch(hooks, watcher)
    receiver.always(Answer(410))
    for _ in range(10):
        write_event(workspace_id=workspace.id, kind="entry.updated")
    drain(stack)
    receiver.always(Answer(200))
    write_event(workspace_id=workspace.id, kind="entry.updated")
    drain(stack)
    assert [json.loads(r.body)["event"] for r in receiver.requests] == ["entry.updated"] * 11
    assert [(n["event"], n["data"]["id"]) for n in notices(watcher)] == [
        ("endpoint.failing", subject["id"]),
        ("endpoint.recovered", subject["id"]),
    ]


def test_an_administrators_disable_is_announced_with_the_administrator_as_actor(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, watcher: Receiver
) -> None:
    target = hooks.create(receiver.url(), workspaces=[])
    watch(hooks, watcher)
    hooks.patch(target["id"], enabled=False)
    drain(stack)
    (notice,) = notices(watcher)
    assert notice["event"] == "endpoint.disabled"
    assert notice["data"]["id"] == target["id"]
    assert notice["data"]["reason"] == "disabled by an administrator"
    assert notice["actor"]["email"]


def test_an_administrator_disabling_twice_gives_one_notice(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, watcher: Receiver
) -> None:
    target = hooks.create(receiver.url(), workspaces=[])
    watch(hooks, watcher)
    for _ in range(2):
        hooks.patch(target["id"], enabled=False)
    hooks.patch(target["id"], enabled=False, events=["entry.created"])
    drain(stack)
    assert [n["event"] for n in notices(watcher)] == ["endpoint.disabled"]
    assert hooks.get(target["id"])["events"] == ["entry.created"]  # the rest still applied
    # An administrator's disable is not an alert: re-enabled, a success announces nothing.
    assert hooks.patch(target["id"], enabled=True)["alertState"] is None


def test_each_transition_is_written_once_however_many_workers_race_for_it(
    stack: LocalStack, stored: Endpoint, clock: FakeClock
) -> None:
    notices_ = services.endpoint_notices(runtime.settings(), clock)
    assert notices_.failing(stored, "one") is True
    assert notices_.failing(stored, "two") is False
    assert notices_.disabled(stored, "three") is True
    assert notices_.disabled(stored, "four") is False
    assert notices_.recovered(stored, "disabled", "five") is True
    assert notices_.recovered(stored, "disabled", "six") is False
    drain(stack)  # the three notices, so they reach no later test's watcher


@pytest.mark.parametrize(("limit", "failing_at"), [(20, 10), (3, 2), (2, 1), (1, None)])
def test_failing_is_half_of_auto_disable_after(limit: int, failing_at: int | None) -> None:
    assert failing_threshold(limit) == failing_at


def test_the_alarm_topic_hears_each_notice_naming_the_endpoint(
    stack: LocalStack, hooks: Hooks, receiver: Receiver
) -> None:
    session = stack.emulator.session()
    url = stack.emulator.endpoint_url
    sns = session.client("sns", endpoint_url=url)
    sqs = session.client("sqs", endpoint_url=url)
    topic = sns.create_topic(Name="content-service-alarms")["TopicArn"]
    queue = sqs.create_queue(QueueName="alarm-inbox")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn["QueueArn"])
    target = hooks.create(receiver.url(), workspaces=[])
    with settings_changed(lambda s: dataclasses.replace(s, alarm_topic_arn=topic)):
        hooks.patch(target["id"], enabled=False)
        drain(stack)
    messages = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    bodies = [json.loads(m["Body"]) for m in messages]
    (published,) = [b for b in bodies if target["id"] in b["Subject"]]
    assert published["Subject"] == f"Webhook endpoint disabled: {target['id']}"
    assert f"Webhook endpoint {target['id']} (127.0.0.1) is disabled." in published["Message"]
    assert target["url"] not in published["Message"]
    assert "disabled by an administrator" in published["Message"]
