"""Version history and scheduled publishing over real HTTP and the scheduler's own job.

Snapshots: numbered from 1, listed newest first, one read, restored into the draft, the last
100 kept. Schedules: a due schedule runs within the scheduler's minute, once, as its creator;
cancelled ones never run; one that can no longer run fails with its reason and changes nothing.
Time is a `FakeClock` handed to the job, never a sleep.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from content_service.clock import iso_utc
from content_service.content.entries import entry_key, version_key
from content_service.content.writes import run_due
from content_service.storage import dynamo
from harness.webhooks import FakeClock
from tests.support.clients import WorkspaceAccess
from tests.support.content import Storage, assert_error, create, define, shared_workspace
from tests.support.graphql import post as graphql_post

FIELDS: list[dict[str, Any]] = [
    {"name": "title", "type": "string", "required": True},
    {"name": "body", "type": "richtext"},
]


@pytest.fixture(scope="module")
def site(base_url: str) -> Iterator[WorkspaceAccess]:
    with shared_workspace(base_url) as access:
        define(access.full, "page", FIELDS)
        yield access


def _url(entry_id: str, tail: str = "") -> str:
    return f"/api/v1/content/page/{entry_id}{tail}"


def _publish_as(site: WorkspaceAccess, entry_id: str, title: str) -> None:
    changed = site.full.patch(_url(entry_id), json={"values": {"title": title}})
    assert changed.status_code == 200, changed.text
    published = site.full.post(_url(entry_id, "/publish"))
    assert published.status_code == 200, published.text


def test_versions_are_numbered_listed_read_and_restored_into_the_draft(
    site: WorkspaceAccess,
) -> None:
    entry_id = create(site.full, "page", {"title": "First", "body": "<p>one</p>"})["id"]
    assert site.full.post(_url(entry_id, "/publish")).status_code == 200
    _publish_as(site, entry_id, "Second")
    _publish_as(site, entry_id, "Third")

    listed = site.full.get(_url(entry_id, "/versions"), params={"pageSize": 2})
    assert listed.status_code == 200, listed.text
    page = listed.json()
    assert page["total"] == 3
    assert [(v["version"], v["title"]) for v in page["items"]] == [(3, "Third"), (2, "Second")]
    assert page["items"][0]["publishedAt"]
    assert page["items"][0]["publishedBy"] is None
    second_page = site.full.get(_url(entry_id, "/versions"), params={"pageSize": 2, "page": 2})
    assert [v["version"] for v in second_page.json()["items"]] == [1]

    first = site.full.get(_url(entry_id, "/versions/1")).json()
    assert first["entry"]["values"] == {"title": "First", "body": "<p>one</p>"}
    assert_error(site.full.get(_url(entry_id, "/versions/9")), 404)
    assert_error(site.read.get(_url(entry_id, "/versions")), 403)

    restored = site.full.post(_url(entry_id, "/versions/1/restore"))
    assert restored.status_code == 200, restored.text
    assert (restored.json()["status"], restored.json()["values"]["title"]) == ("changed", "First")
    assert site.read.get(_url(entry_id)).json()["values"]["title"] == "Third"
    assert site.full.get(_url(entry_id)).json()["values"]["body"] == "<p>one</p>"

    restored_again = graphql_post(
        site.full,
        "mutation($id: ID!) { restorePageVersion(id: $id, version: 3) { status title } }",
        {"id": entry_id},
    )
    assert restored_again["data"]["restorePageVersion"] == {"status": "PUBLISHED", "title": "Third"}


def test_only_the_last_hundred_versions_are_kept(site: WorkspaceAccess) -> None:
    """An entry at its 100th snapshot (seeded as the service writes them) publishes its 101st:
    the 1st goes in the same transaction."""
    entry_id = create(site.full, "page", {"title": "v1"})["id"]
    assert site.full.post(_url(entry_id, "/publish")).status_code == 200
    table = dynamo.tables().content
    snapshot = dynamo.get_item(table, version_key(site.id, entry_id, 1))
    assert snapshot is not None
    for number in range(2, 101):
        item = {**snapshot, "sk": f"VERSION#{number:06d}", "publishedVersion": number}
        dynamo.client().put_item(TableName=table, Item=dynamo.encode(item))
    dynamo.client().update_item(
        TableName=table,
        Key=entry_key(site.id, entry_id),
        UpdateExpression="SET versionCount = :n, publishedVersion = :n",
        ExpressionAttributeValues={":n": {"N": "100"}},
    )
    assert site.full.get(_url(entry_id, "/versions")).json()["total"] == 100

    _publish_as(site, entry_id, "v101")

    page = site.full.get(_url(entry_id, "/versions"), params={"pageSize": 100}).json()
    assert page["total"] == 100
    numbers = [v["version"] for v in page["items"]]
    assert numbers == list(range(101, 1, -1))
    assert dynamo.get_item(table, version_key(site.id, entry_id, 1)) is None
    assert_error(site.full.get(_url(entry_id, "/versions/1")), 404)
    assert site.full.get(_url(entry_id)).json()["publishedVersion"] == 101


def _schedule(site: WorkspaceAccess, entry_id: str, action: str, at: float) -> dict[str, Any]:
    response = site.full.post(
        _url(entry_id, "/schedules"), json={"action": action, "at": iso_utc(at)}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _never(_: Any = None) -> bool:
    return False


def test_a_due_schedule_runs_within_the_minute_and_once(
    site: WorkspaceAccess, storage: Storage
) -> None:
    entry_id = create(site.full, "page", {"title": "Launch"})["id"]
    clock = FakeClock()
    schedule = _schedule(site, entry_id, "publish", clock.now() + 600)
    assert (schedule["status"], schedule["action"]) == ("scheduled", "publish")
    assert schedule["createdBy"]["kind"] == "token"

    clock.advance(599)  # the minute before it is due: nothing runs
    run_due(_never, clock)
    assert site.read.get(_url(entry_id)).status_code == 404

    clock.advance(60)  # the scheduler's next minute: at most 60 s late
    report = run_due(_never, clock)
    assert report.done >= 1
    assert site.read.get(_url(entry_id)).json()["values"]["title"] == "Launch"
    clock.advance(60)
    run_due(_never, clock)  # again: nothing runs twice
    kinds = [e["kind"] for e in storage.events_of(site.id, entry_id)]
    assert kinds == ["entry.created", "entry.published"]
    listed = site.full.get(_url(entry_id, "/schedules")).json()["items"]
    assert [(s["id"], s["status"]) for s in listed] == [(schedule["id"], "done")]
    assert_error(site.full.delete(_url(entry_id, f"/schedules/{schedule['id']}")), 409)


def test_a_cancelled_schedule_never_runs(site: WorkspaceAccess, storage: Storage) -> None:
    entry_id = create(site.full, "page", {"title": "Maybe"})["id"]
    clock = FakeClock()
    schedule = _schedule(site, entry_id, "publish", clock.now() + 120)
    assert site.full.delete(_url(entry_id, f"/schedules/{schedule['id']}")).status_code == 204
    clock.advance(3600)
    run_due(_never, clock)
    assert site.read.get(_url(entry_id)).status_code == 404
    assert [e["kind"] for e in storage.events_of(site.id, entry_id)] == ["entry.created"]
    listed = site.full.get(_url(entry_id, "/schedules")).json()["items"]
    assert [s["status"] for s in listed] == ["cancelled"]


def test_a_schedule_that_can_no_longer_run_fails_with_its_reason(
    site: WorkspaceAccess, storage: Storage
) -> None:
    entry_id = create(site.full, "page", {"title": "Gone soon"})["id"]
    clock = FakeClock()
    _schedule(site, entry_id, "unpublish", clock.now() + 120)
    assert site.full.delete(_url(entry_id)).status_code == 204
    before = storage.events_of(site.id, entry_id)
    clock.advance(180)
    report = run_due(_never, clock)
    assert report.failed >= 1
    assert storage.events_of(site.id, entry_id) == before
    assert site.full.post(_url(entry_id, "/restore")).status_code == 200
    (failed,) = site.full.get(_url(entry_id, "/schedules")).json()["items"]
    assert failed["status"] == "failed"
    assert "unpublish could not run" in failed["reason"]


def test_schedule_times_are_checked(site: WorkspaceAccess) -> None:
    entry_id = create(site.full, "page", {"title": "When"})["id"]
    now = FakeClock().now()
    for at, problem in (
        (iso_utc(now - 60), "in the past"),
        (iso_utc(now + 400 * 24 * 3600), "more than a year ahead"),
        ("tomorrow", "ISO 8601"),
        ("2030-01-01T10:00:00", "timezone"),
    ):
        response = site.full.post(
            _url(entry_id, "/schedules"), json={"action": "publish", "at": at}
        )
        error = assert_error(response, 422)
        assert problem in error["message"], (at, error)
    assert_error(
        site.full.post(_url(entry_id, "/schedules"), json={"action": "delete", "at": "x"}), 422
    )
    assert_error(
        site.read.post(
            _url(entry_id, "/schedules"), json={"action": "publish", "at": iso_utc(now + 60)}
        ),
        403,
    )


def test_graphql_schedules_and_cancels(site: WorkspaceAccess) -> None:
    entry_id = create(site.full, "page", {"title": "Via GraphQL"})["id"]
    at = iso_utc(FakeClock().now() + 3600)
    made = graphql_post(
        site.full,
        "mutation($id: ID!, $at: String!) { schedulePage(id: $id, action: PUBLISH, at: $at) "
        "{ id action at status } }",
        {"id": entry_id, "at": at},
    )
    schedule = made["data"]["schedulePage"]
    assert (schedule["action"], schedule["status"], schedule["at"]) == ("PUBLISH", "SCHEDULED", at)
    cancelled = graphql_post(
        site.full,
        "mutation($id: ID!, $s: ID!) { cancelPageSchedule(id: $id, scheduleId: $s) }",
        {"id": entry_id, "s": schedule["id"]},
    )
    assert cancelled["data"]["cancelPageSchedule"] is True
    listed = site.full.get(_url(entry_id, "/schedules")).json()["items"]
    assert [s["status"] for s in listed] == ["cancelled"]
