"""The Sync API through real HTTP (docs/api.md, "Sync"): an initial sync and deltas through a
read token (published versions) and a full token (latest versions) while drafts differ,
deletions, paging, the 410 of a token past the retention, and what a delta reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from content_service.clock import SystemClock, iso_utc
from content_service.sync.tokens import SyncToken
from infra.local_stack import LocalStack
from tests.support.assets import new_asset, png
from tests.support.clients import WorkspaceAccess
from tests.support.content import assert_error, capture, create, define, publish
from tests.support.settings import delivery_options

NewWorkspace = Callable[..., WorkspaceAccess]


@pytest.fixture(autouse=True)
def settled_at_once() -> Iterator[None]:
    """Every change is answered as soon as it is made (the settle window is a test of its
    own), so the tests need not wait."""
    with delivery_options(sync_settle_ms=0):
        yield


def sync_all(client: httpx.Client, url: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Follows `nextPageUrl` from `url` to the answer carrying `nextSyncUrl`: every page, and
    the pages merged (entries and assets by id, deleted ids in order)."""
    pages: list[dict[str, Any]] = []
    while True:
        response = client.get(url)
        assert response.status_code == 200, response.text
        assert response.headers["cache-control"] == "private, no-store"
        page = response.json()
        pages.append(page)
        if "nextSyncUrl" in page:
            assert "nextPageUrl" not in page
            break
        url = page["nextPageUrl"]
    merged: dict[str, Any] = {
        "entries": {e["id"]: e for p in pages for e in p["entries"]},
        "assets": {a["id"]: a for p in pages for a in p["assets"]},
        "deletedEntries": [i for p in pages for i in p["deletedEntries"]],
        "deletedAssets": [i for p in pages for i in p["deletedAssets"]],
        "nextSyncUrl": pages[-1]["nextSyncUrl"],
    }
    return merged, pages


def titles(synced: dict[str, Any]) -> dict[str, str]:
    return {i: e["values"]["title"] for i, e in synced["entries"].items()}


def patch(client: httpx.Client, entry_id: str, title: str) -> None:
    response = client.patch(f"/api/v1/content/note/{entry_id}", json={"values": {"title": title}})
    assert response.status_code == 200, response.text


def act(client: httpx.Client, method: str, path: str, status: int = 200) -> None:
    response = client.request(method, f"/api/v1/content/note/{path}")
    assert response.status_code == status, response.text


def test_initial_sync_answers_each_token_its_versions(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "title", "type": "string"}])
    draft = create(workspace.full, "note", {"title": "draft"})["id"]
    live = publish(workspace.full, "note", create(workspace.full, "note", {"title": "v1"})["id"])
    patch(workspace.full, live["id"], "v2 draft")

    read, _ = sync_all(workspace.read, "/api/v1/sync?initial=true")
    full, _ = sync_all(workspace.full, "/api/v1/sync?initial=true")

    assert titles(read) == {live["id"]: "v1"}
    assert read["entries"][live["id"]]["status"] == "published"
    assert titles(full) == {draft: "draft", live["id"]: "v2 draft"}
    assert full["entries"][live["id"]]["status"] == "changed"
    assert read["deletedEntries"] == full["deletedEntries"] == []


def test_a_delta_answers_what_changed_once_each_and_deletions(
    new_workspace: NewWorkspace,
) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "title", "type": "string"}])
    ids = {
        name: create(workspace.full, "note", {"title": name})["id"]
        for name in ("edited", "drafted", "unpublished", "trashed", "purged", "quiet", "new")
    }
    for name in ("edited", "drafted", "unpublished", "trashed", "purged", "quiet"):
        publish(workspace.full, "note", ids[name])
    act(workspace.full, "DELETE", ids["purged"], 204)
    read, _ = sync_all(workspace.read, "/api/v1/sync?initial=true")
    full, _ = sync_all(workspace.full, "/api/v1/sync?initial=true")

    patch(workspace.full, ids["edited"], "edited 2")
    patch(workspace.full, ids["edited"], "edited 3")
    publish(workspace.full, "note", ids["edited"])
    patch(workspace.full, ids["drafted"], "a draft the read token never sees")
    act(workspace.full, "POST", f"{ids['unpublished']}/unpublish")
    act(workspace.full, "DELETE", ids["trashed"], 204)
    act(workspace.full, "DELETE", f"{ids['purged']}/purge", 204)
    publish(workspace.full, "note", ids["new"])

    read_delta, _ = sync_all(workspace.read, read["nextSyncUrl"])
    full_delta, _ = sync_all(workspace.full, full["nextSyncUrl"])

    assert titles(read_delta) == {ids["edited"]: "edited 3", ids["new"]: "new"}
    assert sorted(read_delta["deletedEntries"]) == sorted([ids["unpublished"], ids["trashed"]])
    assert titles(full_delta) == {
        ids["edited"]: "edited 3",
        ids["drafted"]: "a draft the read token never sees",
        ids["unpublished"]: "unpublished",
        ids["new"]: "new",
    }
    assert full_delta["entries"][ids["unpublished"]]["status"] == "draft"
    assert sorted(full_delta["deletedEntries"]) == sorted([ids["trashed"], ids["purged"]])
    again, _ = sync_all(workspace.read, read_delta["nextSyncUrl"])
    assert (again["entries"], again["deletedEntries"]) == ({}, [])


def test_assets_sync_as_assets(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    asset = new_asset(workspace.full, png(), "a.png", "image/png", title="logo")
    assert workspace.full.post(f"/api/v1/assets/{asset['id']}/publish").status_code == 200
    read, _ = sync_all(workspace.read, "/api/v1/sync?initial=true")
    assert list(read["assets"]) == [asset["id"]]
    assert read["assets"][asset["id"]]["title"] == "logo"
    assert read["entries"] == {}

    assert workspace.full.delete(f"/api/v1/assets/{asset['id']}").status_code == 204
    delta, _ = sync_all(workspace.read, read["nextSyncUrl"])
    assert (delta["assets"], delta["deletedAssets"]) == ({}, [asset["id"]])


def test_an_initial_sync_pages_and_narrows_by_type(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    for name in ("article", "note"):
        define(workspace.full, name, [{"name": "title", "type": "string"}])
    notes = {create(workspace.full, "note", {"title": f"n{i}"})["id"] for i in range(101)}
    article = create(workspace.full, "article", {"title": "a"})["id"]

    everything, pages = sync_all(workspace.full, "/api/v1/sync?initial=true")
    assert set(everything["entries"]) == notes | {article}
    assert [len(p["entries"]) for p in pages] == [1, 100, 1]

    narrowed, _ = sync_all(workspace.full, "/api/v1/sync?initial=true&type=article")
    assert set(narrowed["entries"]) == {article}
    create(workspace.full, "note", {"title": "not an article"})
    later = create(workspace.full, "article", {"title": "b"})["id"]
    delta, _ = sync_all(workspace.full, narrowed["nextSyncUrl"])
    assert set(delta["entries"]) == {later}


def test_a_delta_reads_the_changes_not_the_workspace(
    new_workspace: NewWorkspace, stack: LocalStack
) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "title", "type": "string"}])
    for i in range(30):
        publish(workspace.full, "note", create(workspace.full, "note", {"title": f"{i}"})["id"])
    synced, _ = sync_all(workspace.read, "/api/v1/sync?initial=true")
    changed = [create(workspace.full, "note", {"title": f"new {i}"})["id"] for i in range(2)]
    for entry_id in changed:
        publish(workspace.full, "note", entry_id)

    with capture(stack) as captured:
        delta, _ = sync_all(workspace.read, synced["nextSyncUrl"])

    assert set(delta["entries"]) == set(changed)
    queries = [c for c in captured.dynamodb() if c.operation == "Query"]
    assert len(queries) == 1
    assert queries[0].body["Limit"] == 100
    assert len(queries[0].response()["Items"]) == 4
    reads = [c for c in captured.dynamodb() if c.operation == "BatchGetItem"]
    assert sum(c.batch_keys() for c in reads) <= 3


def test_a_change_is_answered_once_it_has_settled(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "title", "type": "string"}])
    synced, _ = sync_all(workspace.full, "/api/v1/sync?initial=true")
    entry_id = create(workspace.full, "note", {"title": "just now"})["id"]
    with delivery_options(sync_settle_ms=3_600_000):
        pending, _ = sync_all(workspace.full, synced["nextSyncUrl"])
    assert pending["entries"] == {}
    settled, _ = sync_all(workspace.full, synced["nextSyncUrl"])
    assert list(settled["entries"]) == [entry_id]


def test_a_token_past_the_retention_is_gone(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    old = SyncToken("published", None, None, iso_utc(SystemClock().now() - 31 * 86400))
    response = workspace.read.get("/api/v1/sync", params={"token": old.encode()})
    body = assert_error(response, 410, "gone")
    assert "start an initial sync" in body["message"]
    recent = SyncToken("published", None, None, iso_utc(SystemClock().now() - 29 * 86400))
    assert workspace.read.get("/api/v1/sync", params={"token": recent.encode()}).is_success


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"initial": "yes"},
        {"token": "not a token"},
        {"initial": "true", "token": "x"},
        {"initial": "true", "locale": "not a locale!"},
        {"token": SyncToken("published", None, None, "2026-13-01T00:00:00.000Z").encode()},
    ],
)
def test_malformed_requests_are_400(new_workspace: NewWorkspace, query: dict[str, str]) -> None:
    workspace = new_workspace()
    assert_error(workspace.read.get("/api/v1/sync", params=query), 400, "bad_request")


def test_an_unknown_type_is_404(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    response = workspace.read.get("/api/v1/sync", params={"initial": "true", "type": "nope"})
    assert assert_error(response, 404, "not_found")["message"] == "content type 'nope' not found"


def test_a_read_token_cannot_sync_drafts(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    response = workspace.read.get("/api/v1/sync", params={"initial": "true", "version": "latest"})
    assert_error(response, 403, "forbidden")
    latest = SyncToken("latest", None, None, iso_utc(SystemClock().now()))
    assert_error(workspace.read.get("/api/v1/sync", params={"token": latest.encode()}), 403)
