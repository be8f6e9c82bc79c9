"""Webhook operations over real HTTP: recover, retry now, log search, attempt details, health,
the catalogue's examples, Send test of any kind, and the pull endpoints behind `listen`.

Receivers are real HTTP servers on 127.0.0.1; `stack.drain()` runs the fan-out and delivery
handlers (and so the recovery jobs, which are queued work); signatures are checked with Stripe's
verifier.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from content_service.clock import iso_utc, parse_iso_utc
from content_service.webhooks import wiring
from content_service.webhooks.deliveries import redelivery_id
from content_service.webhooks.endpoints import example_envelope
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.webhooks import Hooks, row, seed_rows, stripe_accepts, write_event

pytestmark = pytest.mark.usefixtures("local_receivers_allowed")


def error_of(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["status"] == status
    return error


def _failing_endpoint(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, workspace: WorkspaceAccess, count: int
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An endpoint whose receiver answered 500 to `count` deliveries (now `failed`)."""
    endpoint = hooks.create(receiver.url("/down"), workspaces=[workspace.id])
    receiver.always(Answer(500, b"down for maintenance"))
    events = [
        write_event(workspace_id=workspace.id, kind="entry.published", title=f"Post {i}")
        for i in range(count)
    ]
    stack.drain()
    assert len(receiver.requests) == count
    return endpoint, events


# -- recover ---------------------------------------------------------------------------------


def test_recover_is_queued_work_that_redelivers_each_failed_delivery_once(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    since = iso_utc(time.time() - 60)
    endpoint, events = _failing_endpoint(stack, hooks, receiver, workspace, 5)
    originals = hooks.deliveries(endpoint["id"])
    assert {o["status"] for o in originals} == {"failed"}
    receiver.always(Answer(204))
    base = f"/api/webhooks/{endpoint['id']}"

    accepted = hooks.client.post(f"{base}/recover", json={"since": since})
    assert accepted.status_code == 202, accepted.text
    job = accepted.json()
    assert {"id", "status", "matched", "queued"} <= set(job)
    assert (job["status"], job["matched"], job["queued"]) == ("queued", 0, 0)
    assert job["statuses"] == ["dead", "failed"]
    # Nothing happened inside the request: the work waits on the queue.
    assert len(hooks.deliveries(endpoint["id"])) == 5
    assert hooks.client.get(f"{base}/recoveries/{job['id']}").json()["status"] == "queued"

    stack.drain()
    done = hooks.client.get(f"{base}/recoveries/{job['id']}").json()
    assert (done["status"], done["matched"], done["queued"]) == ("completed", 5, 5)
    assert done["completedAt"] is not None
    log = hooks.deliveries(endpoint["id"])
    redeliveries = [r for r in log if r["redeliveryOf"]]
    assert len(redeliveries) == 5
    by_original = {r["redeliveryOf"]: r for r in redeliveries}
    for original in originals:
        again = by_original[original["id"]]
        assert again["id"] == redelivery_id(original["id"]) != original["id"]
        assert again["eventId"] == original["eventId"]
        assert again["recoveryId"] == job["id"]
        assert again["status"] == "succeeded"
        assert json.loads(again["requestBody"])["id"] == again["id"]
        # The failed original stops retrying: the event is not sent twice.
        retired = hooks.delivery(endpoint["id"], original["id"])
        assert retired["status"] == "dead"
        assert retired["recoveredBy"] == again["id"]
        assert retired["nextAttemptAt"] is None
    delivered = [r for r in receiver.requests if r.path == "/down"][5:]
    assert sorted(r.header("X-Service-Event-Id") or "" for r in delivered) == sorted(
        e["id"] for e in events
    )

    # Called again, recover matches the same rows and makes no second redelivery of any.
    again = hooks.client.post(f"{base}/recover", json={"since": since}).json()
    stack.drain()
    second = hooks.client.get(f"{base}/recoveries/{again['id']}").json()
    assert second["status"] == "completed"
    assert second["matched"] == 5  # the five originals, now dead; the redeliveries succeeded
    assert second["queued"] == 0
    assert len(hooks.deliveries(endpoint["id"])) == 10
    assert len(receiver.requests) == 10


def test_recover_takes_statuses_and_a_window(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint, _ = _failing_endpoint(stack, hooks, receiver, workspace, 2)
    base = f"/api/webhooks/{endpoint['id']}"
    # A window that ended before these deliveries were made matches nothing.
    before = iso_utc(time.time() - 3600)
    empty = hooks.client.post(
        f"{base}/recover", json={"since": before, "until": iso_utc(time.time() - 1800)}
    ).json()
    only_dead = hooks.client.post(
        f"{base}/recover", json={"since": before, "statuses": ["dead"]}
    ).json()
    stack.drain()
    for job in (empty, only_dead):
        done = hooks.client.get(f"{base}/recoveries/{job['id']}").json()
        assert (done["status"], done["matched"], done["queued"]) == ("completed", 0, 0)
    assert len(hooks.deliveries(endpoint["id"])) == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, None),
        ({"since": "yesterday"}, "since"),
        ({"since": "2026-01-01T00:00:00"}, "since"),
        ({"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, "since"),
        ({"since": "2999-01-01T00:00:00Z"}, "since"),
        ({"since": "2026-01-01T00:00:00Z", "statuses": ["pending"]}, "statuses"),
        ({"since": "2026-01-01T00:00:00Z", "statuses": []}, "statuses"),
        ({"since": "2026-01-01T00:00:00Z", "extra": 1}, None),
    ],
)
def test_bad_recover_bodies_are_422(
    hooks: Hooks, receiver: Receiver, body: dict[str, Any], field: str | None
) -> None:
    endpoint = hooks.create(receiver.url())
    error = error_of(hooks.client.post(f"/api/webhooks/{endpoint['id']}/recover", json=body), 422)
    if field is not None:
        assert error["details"]["field"] == field


def test_recover_a_disabled_endpoint_is_409_and_unknown_recoveries_are_404(
    hooks: Hooks, receiver: Receiver
) -> None:
    endpoint = hooks.create(receiver.url())
    other = hooks.create(receiver.url())
    base = f"/api/webhooks/{endpoint['id']}"
    job = hooks.client.post(f"{base}/recover", json={"since": "2026-01-01T00:00:00Z"}).json()
    error_of(hooks.client.get(f"/api/webhooks/{other['id']}/recoveries/{job['id']}"), 404)
    error_of(hooks.client.get(f"{base}/recoveries/not-a-uuid"), 404)
    hooks.patch(endpoint["id"], enabled=False)
    refused = hooks.client.post(f"{base}/recover", json={"since": "2026-01-01T00:00:00Z"})
    assert error_of(refused, 409)["code"] == "conflict"


def test_a_recovery_of_an_endpoint_disabled_meanwhile_is_cancelled(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint, _ = _failing_endpoint(stack, hooks, receiver, workspace, 1)
    base = f"/api/webhooks/{endpoint['id']}"
    job = hooks.client.post(f"{base}/recover", json={"since": "2026-01-01T00:00:00Z"}).json()
    hooks.patch(endpoint["id"], enabled=False)
    stack.drain()
    done = hooks.client.get(f"{base}/recoveries/{job['id']}").json()
    assert (done["status"], done["reason"], done["queued"]) == ("cancelled", "endpoint disabled", 0)


# -- retry now -------------------------------------------------------------------------------


def test_retry_now_makes_the_next_attempt_of_the_same_delivery(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint, _ = _failing_endpoint(stack, hooks, receiver, workspace, 1)
    (failed,) = hooks.deliveries(endpoint["id"])
    assert (failed["status"], failed["attempts"]) == ("failed", 1)
    assert parse_iso_utc(failed["nextAttemptAt"]) > time.time() + 5
    receiver.always(Answer(200, b"back"))
    path = f"/api/webhooks/{endpoint['id']}/deliveries/{failed['id']}/retry"

    response = hooks.client.post(path)
    assert response.status_code == 202, response.text
    due = response.json()
    assert due["id"] == failed["id"]
    assert due["status"] == "failed"
    assert parse_iso_utc(due["nextAttemptAt"]) <= time.time()
    stack.drain()
    after = hooks.delivery(endpoint["id"], failed["id"])
    assert (after["status"], after["attempts"]) == ("succeeded", 2)
    assert receiver.requests[-1].header("X-Service-Attempt") == "2"
    assert receiver.requests[-1].header("X-Service-Delivery") == failed["id"]
    # Only a failed delivery waits for a retry.
    assert error_of(hooks.client.post(path), 409)["code"] == "conflict"


def test_retry_now_of_a_pending_row_is_409(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create("http://127.0.0.1:9/never", workspaces=[workspace.id])
    (pending,) = seed_rows(endpoint["id"], FakeClock())
    path = f"/api/webhooks/{endpoint['id']}/deliveries/{pending.id}/retry"
    error_of(hooks.client.post(path), 409)
    assert row(pending.id).status == "pending"


# -- log search and attempt details ----------------------------------------------------------


def test_the_log_searches_by_event_id_entry_id_and_time(hooks: Hooks, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create("http://127.0.0.1:9/never", workspaces=[workspace.id])
    clock = FakeClock(time.time() - 600)
    rows = seed_rows(endpoint["id"], clock, count=6, step_seconds=60)
    target = rows[2]
    search = hooks.deliveries
    assert [r["id"] for r in search(endpoint["id"], eventId=target.event_id)] == [target.id]
    assert [r["id"] for r in search(endpoint["id"], entryId=target.entry_id)] == [target.id]
    # The workspace id is in every body, but it is no entry id: nothing matches.
    assert search(endpoint["id"], entryId=workspace.id) == []
    window = search(endpoint["id"], since=rows[1].created_at, until=rows[4].created_at)
    assert [r["id"] for r in window] == [r.id for r in reversed(rows[1:4])]
    assert [r["id"] for r in search(endpoint["id"], since=rows[5].created_at)] == [rows[5].id]
    paged = search(endpoint["id"], since=rows[0].created_at, limit=2, status="pending")
    assert [r["id"] for r in paged] == [rows[5].id, rows[4].id]
    for query in ({"since": "last week"}, {"until": "2026-01-01T00:00:00"}):
        response = hooks.client.get(f"/api/webhooks/{endpoint['id']}/deliveries", params=query)
        assert error_of(response, 400)["code"] == "bad_request"


def test_each_attempt_keeps_status_duration_error_headers_and_snippet(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(receiver.url("/details"), workspaces=[workspace.id])
    receiver.respond(
        Answer(503, b"try later", headers=(("X-Reason", "maintenance"), ("Retry-After", "5")))
    )
    write_event(workspace_id=workspace.id)
    stack.drain()
    (listed,) = hooks.deliveries(endpoint["id"])
    detail = hooks.delivery(endpoint["id"], listed["id"])
    (attempt,) = detail["attemptLog"]
    assert attempt["attempt"] == 1
    assert attempt["statusCode"] == 503
    assert attempt["durationMs"] >= 0
    assert attempt["error"] == "HTTP 503"
    assert ["X-Reason", "maintenance"] in attempt["responseHeaders"]
    assert attempt["responseSnippet"] == "try later"


# -- endpoint health -------------------------------------------------------------------------


def test_the_endpoint_list_shows_24_hour_counts_and_the_success_rate(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(receiver.url("/health"), workspaces=[workspace.id])
    receiver.respond(Answer(200), Answer(200), Answer(200), Answer(500), Answer(410))
    for _ in range(5):
        write_event(workspace_id=workspace.id)
    stack.drain()
    seed_rows(endpoint["id"], FakeClock(time.time() - 2 * 86400))  # older than the window
    listed = {e["id"]: e for e in hooks.client.get("/api/webhooks").json()["items"]}
    health = listed[endpoint["id"]]["health"]
    assert health["counts"] == {
        "pending": 0,
        "delivering": 0,
        "succeeded": 3,
        "failed": 1,
        "dead": 1,
    }
    assert health["total"] == 5
    assert health["successRate"] == pytest.approx(0.6)
    assert health["truncated"] is False
    fresh = hooks.create(receiver.url("/fresh"))
    listed = {e["id"]: e for e in hooks.client.get("/api/webhooks").json()["items"]}
    assert listed[fresh["id"]]["health"]["successRate"] is None


# -- Send test of any kind -------------------------------------------------------------------


def test_send_test_posts_a_kinds_example_marked_as_a_test(
    hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    endpoint = hooks.create(receiver.url("/kinds"), workspaces=[workspace.id])
    path = f"/api/webhooks/{endpoint['id']}/test"
    result = hooks.client.post(path, json={"event": "entry.published"})
    assert result.status_code == 200, result.text
    assert result.json()["ok"] is True
    sent = receiver.requests[-1]
    body = json.loads(sent.body)
    assert sent.header("X-Service-Test") == "1"
    assert sent.header("X-Service-Event") == body["event"] == "entry.published"
    assert sent.header("X-Service-Workspace") == body["workspaceId"] == workspace.id
    assert body["data"] == example_envelope("entry.published")["data"]
    assert list(body) == list(example_envelope("entry.published"))
    assert stripe_accepts(sent, endpoint["secret"])
    # ping stays the default, without the test mark; neither is logged or counted.
    assert hooks.client.post(path).status_code == 200
    assert receiver.requests[-1].header("X-Service-Event") == "ping"
    assert receiver.requests[-1].header("X-Service-Test") is None
    assert hooks.deliveries(endpoint["id"]) == []
    assert hooks.get(endpoint["id"])["consecutiveDead"] == 0
    for bad in ({"event": "entry.archived"}, {"event": ""}, {"kind": "ping"}):
        error_of(hooks.client.post(path, json=bad), 422)


# -- pull endpoints (content-service listen) -------------------------------------------------


def test_a_pull_endpoint_hands_its_deliveries_to_the_listener(
    stack: LocalStack, hooks: Hooks, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    listener = hooks.create("http://localhost:3000/hook", workspaces=[workspace.id], mode="pull")
    assert listener["mode"] == "pull"
    assert parse_iso_utc(listener["leaseExpiresAt"]) > time.time() + 60
    base = f"/api/webhooks/{listener['id']}"
    event = write_event(workspace_id=workspace.id, kind="entry.updated")
    stack.drain()
    (handed,) = hooks.deliveries(listener["id"])
    assert handed["status"] == "succeeded"
    assert handed["lastStatusCode"] is None  # nothing was sent by the service

    later = time.time() + 5  # past the settling delay
    with wiring.overridden(clock=FakeClock(later)):
        pulled = hooks.client.post(f"{base}/pull", json={"wait": 0}).json()
        assert [i["eventId"] for i in pulled["items"]] == [event["id"]]
        assert pulled["items"][0]["requestBody"] == handed["requestBody"]
        again = hooks.client.post(f"{base}/pull", json={"after": pulled["cursor"], "wait": 0})
        assert again.json()["items"] == []
        assert again.json()["cursor"] == pulled["cursor"]
    error_of(hooks.client.post(f"{base}/pull", json={"after": "nonsense"}), 400)
    error_of(hooks.client.post(f"{base}/test"), 409)
    push = hooks.create("http://127.0.0.1:9/push")
    error_of(hooks.client.post(f"/api/webhooks/{push['id']}/pull", json={}), 409)
