"""The failure queues on moto, replayed by `content-service replay ...` to a real receiver
or a real Varnish edge.

A stream batch reaches the fan-out's OnFailure queue the way it does on AWS: the fan-out fails
on it (its deliveries table is unavailable) until the poller's retries run out; the edge
purge's, when no edge answers its purge. A delivery message reaches the DLQ the way SQS moves
it: received `maxReceiveCount` times, never deleted. The replay command, a dry run first, then
delivers (or purges) each exactly once, and again nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from content_service import runtime
from content_service.content.cache_tags import entry_tag
from content_service.webhooks.sending import message_body
from harness.receiver import Receiver, refused_port
from harness.varnish_edge import VarnishEdge
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.cli import run_cli
from tests.support.clients import WorkspaceAccess
from tests.support.content import create, define, publish
from tests.support.settings import settings_changed, webhook_options
from tests.support.webhooks import Hooks, rows_for_endpoint, seed_rows, write_event

pytestmark = pytest.mark.usefixtures("stack")


@contextmanager
def deliveries_table_unavailable() -> Iterator[None]:
    with settings_changed(
        lambda s: dataclasses.replace(
            s, tables=dataclasses.replace(s.tables, deliveries="no-such-table")
        )
    ):
        yield


@contextmanager
def local_receivers() -> Iterator[None]:
    with webhook_options(allow_private_networks=True, allow_insecure_urls=True):
        yield


def replay(*argv: str) -> dict[str, Any]:
    """Runs the CLI in this process. Only what the CLI prints is read: the API served by this
    process logs to stdout too."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = run_cli("replay", *argv)
    assert code == 0
    report: dict[str, Any] = json.loads(printed.getvalue())
    return report


def queue_bodies(stack: LocalStack, url: str) -> list[str]:
    """Bodies of the visible messages, received without hiding them."""
    sqs = stack.emulator.sqs()
    seen: dict[str, str] = {}
    for _ in range(5):
        for message in sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0
        ).get("Messages", []):
            seen[message["MessageId"]] = message["Body"]
    return list(seen.values())


def test_a_stream_batch_the_fan_out_gave_up_on_is_replayed_exactly_once(
    stack: LocalStack,
    hooks: Hooks,
    receiver: Receiver,
    new_workspace: Any,
) -> None:
    failures = runtime.settings().tables.fanout_failure_queue_url
    stack.emulator.sqs().purge_queue(QueueUrl=failures)
    workspace: WorkspaceAccess = new_workspace()
    with local_receivers():
        created = hooks.create(receiver.url(), workspaces=[workspace.id])
    event = write_event(workspace_id=workspace.id)

    with deliveries_table_unavailable():
        stack.drain()
    assert rows_for_endpoint(created["id"]) == []
    (description,) = [json.loads(b) for b in queue_bodies(stack, failures)]
    assert description["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert description["DDBStreamBatchInfo"]["batchSize"] >= 1

    dry = replay("fanout-failures")
    assert dry["dryRun"] is True
    (item,) = dry["items"]
    assert item["action"] == "fan out"
    assert {"eventId": event["id"], "kind": "entry.created", "matched": 1} in item["events"]
    assert rows_for_endpoint(created["id"]) == []
    assert len(queue_bodies(stack, failures)) == 1

    done = replay("fanout-failures", "--execute")
    assert done["actions"] == {"fan out": 1}
    assert queue_bodies(stack, failures) == []
    with local_receivers():
        stack.drain()
        assert replay("fanout-failures", "--execute")["messages"] == 0
        stack.drain()
    assert [r.header("X-Service-Event-Id") for r in receiver.requests] == [event["id"]]
    assert [row.status for row in rows_for_endpoint(created["id"])] == ["succeeded"]


def test_a_stream_batch_the_edge_purge_gave_up_on_is_purged_by_the_replay(
    stack: LocalStack,
    base_url: str,
    tmp_path: Any,
    new_workspace: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failures = runtime.settings().tables.purge_failure_queue_url
    stack.emulator.sqs().purge_queue(QueueUrl=failures)
    workspace: WorkspaceAccess = new_workspace()
    define(workspace.full, "article", [{"name": "title", "type": "string"}])
    article = create(workspace.full, "article", {"title": "before"})
    publish(workspace.full, "article", article["id"])
    stack.drain()
    url = f"/api/v1/content/article/{article['id']}"
    with (
        VarnishEdge(tmp_path / "varnish", base_url) as edge,
        httpx.Client(
            base_url=edge.url, headers={"Authorization": f"Bearer {workspace.read_token}"}
        ) as reader,
    ):
        assert reader.get(url).headers["x-cache"] == "MISS"
        assert workspace.full.patch(url, json={"values": {"title": "after"}}).status_code == 200
        publish(workspace.full, "article", article["id"])
        nowhere = f"http://127.0.0.1:{refused_port()}/"
        with settings_changed(lambda s: dataclasses.replace(s, edge_purge_url=nowhere)):
            stack.drain()
        (description,) = [json.loads(b) for b in queue_bodies(stack, failures)]
        assert description["requestContext"]["condition"] == "RetryAttemptsExhausted"
        stale = reader.get(url)
        assert (stale.headers["x-cache"], stale.json()["values"]["title"]) == ("HIT", "before")

        monkeypatch.setenv("EDGE_PURGE_URL", edge.purge_url)
        dry = replay("purge-failures")
        (item,) = dry["items"]
        assert (dry["dryRun"], item["action"]) == (True, "purge")
        assert entry_tag(workspace.id, article["id"]) in item["tags"]
        assert reader.get(url).headers["x-cache"] == "HIT"
        assert len(queue_bodies(stack, failures)) == 1

        done = replay("purge-failures", "--execute")
        assert done["actions"] == {"purge": 1}
        assert queue_bodies(stack, failures) == []
        fresh = reader.get(url)
        assert (fresh.headers["x-cache"], fresh.json()["values"]["title"]) == ("MISS", "after")
        assert replay("purge-failures", "--execute")["messages"] == 0


def test_a_dead_lettered_delivery_is_replayed_exactly_once(
    stack: LocalStack,
    hooks: Hooks,
    receiver: Receiver,
    new_workspace: Any,
) -> None:
    tables = runtime.settings().tables
    sqs = stack.emulator.sqs()
    sqs.purge_queue(QueueUrl=tables.delivery_dlq_url)
    workspace: WorkspaceAccess = new_workspace()
    with local_receivers():
        created = hooks.create(receiver.url(), workspaces=[workspace.id])
    (seeded,) = seed_rows(created["id"], FakeClock())
    stack.drain()  # nothing else is visible on the delivery queue now

    # A consumer that fails on the message: received five times (maxReceiveCount), never
    # deleted; at the next receive SQS moves it to the dead-letter queue.
    sqs.send_message(QueueUrl=tables.delivery_queue_url, MessageBody=message_body(seeded.id))
    receives = 0
    while receives < 5:
        got = sqs.receive_message(
            QueueUrl=tables.delivery_queue_url, MaxNumberOfMessages=10, VisibilityTimeout=0
        ).get("Messages", [])
        receives += sum(m["Body"] == message_body(seeded.id) for m in got)
    assert "Messages" not in sqs.receive_message(QueueUrl=tables.delivery_queue_url)
    assert message_body(seeded.id) in queue_bodies(stack, tables.delivery_dlq_url)

    dry = replay("delivery-dlq")
    assert dry["dryRun"] is True
    mine = [i for i in dry["items"] if i.get("deliveryId") == seeded.id]
    assert mine == [
        {
            "messageId": mine[0]["messageId"],
            "action": "requeue",
            "deliveryId": seeded.id,
            "status": "pending",
        }
    ]
    assert message_body(seeded.id) in queue_bodies(stack, tables.delivery_dlq_url)

    done = replay("delivery-dlq", "--execute")
    assert [i["action"] for i in done["items"] if i.get("deliveryId") == seeded.id] == ["requeue"]
    assert message_body(seeded.id) not in queue_bodies(stack, tables.delivery_dlq_url)
    with local_receivers():
        stack.drain()
        again = replay("delivery-dlq", "--execute")
        assert all(i.get("deliveryId") != seeded.id for i in again["items"])
        stack.drain()
    assert [r.header("X-Service-Delivery") for r in receiver.requests] == [seeded.id]
    assert [row.status for row in rows_for_endpoint(created["id"])] == ["succeeded"]
