"""Assets are entries of the built-in `asset` type (docs/assets.md, D128): the entries'
workflow, versions, visibility and events, and the type stays out of the user's types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.assets import new_asset, png, uploaded
from tests.support.cli import run_cli
from tests.support.clients import WorkspaceAccess
from tests.support.content import Storage, assert_error, define


def ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


def test_publish_unpublish_trash_and_restore(ws: WorkspaceAccess) -> None:
    asset = new_asset(ws.full, png(), "dot.png", "image/png", title="Dot")
    path = f"/api/v1/assets/{asset['id']}"
    published = ok(ws.full.post(f"{path}/publish"))
    assert published["status"] == "published"
    assert published["url"].startswith(f"/files/{ws.id}/{asset['id']}/")
    assert published["url"].endswith("/dot.png")
    assert ok(ws.read.get(path))["url"] == published["url"]
    unpublished = ok(ws.full.post(f"{path}/unpublish"))
    assert (unpublished["status"], unpublished["url"]) == ("draft", None)
    assert_error(ws.read.get(path), 404)
    deleted = ws.full.delete(path)
    assert deleted.status_code == 204, deleted.text
    assert_error(ws.full.get(path), 404)
    assert ok(ws.full.get("/api/v1/assets"))["total"] == 0
    restored = ok(ws.full.post(f"{path}/restore"))
    assert (restored["id"], restored["status"]) == (asset["id"], "draft")


def test_editing_and_replacing_the_file_make_drafts_while_the_published_file_stays(
    ws: WorkspaceAccess,
) -> None:
    asset = new_asset(ws.full, png(10, 10), "one.png", "image/png")
    path = f"/api/v1/assets/{asset['id']}"
    first = ok(ws.full.post(f"{path}/publish"))
    edited = ok(ws.full.patch(path, json={"title": "One", "altText": "a square"}))
    assert (edited["status"], edited["title"], edited["altText"]) == ("changed", "One", "a square")
    upload_id = uploaded(ws.full, png(40, 20), "two.png", "image/png")
    replaced = ok(ws.full.post(f"{path}/file", json={"uploadId": upload_id}))
    again = ok(ws.full.post(f"{path}/file", json={"uploadId": upload_id}))
    assert again["version"] == replaced["version"]
    assert (replaced["fileName"], replaced["width"], replaced["height"]) == ("two.png", 40, 20)
    assert replaced["status"] == "changed"
    assert replaced["url"] == first["url"]
    live = ok(ws.read.get(path))
    assert (live["fileName"], live["title"], live["url"]) == ("one.png", "one.png", first["url"])
    second = ok(ws.full.post(f"{path}/publish"))
    assert second["url"].endswith("/two.png")
    assert second["url"] != first["url"]
    versions = ok(ws.full.get(f"{path}/versions"))
    assert [v["version"] for v in versions["items"]] == [2, 1]
    old = ok(ws.full.get(f"{path}/versions/1"))
    assert (old["asset"]["fileName"], old["asset"]["url"]) == ("one.png", first["url"])
    assert_error(ws.full.get(f"{path}/versions/9"), 404)


def test_a_read_token_never_gets_a_draft_asset(ws: WorkspaceAccess) -> None:
    draft = new_asset(ws.full, png(), "draft.png", "image/png")
    live = new_asset(ws.full, png(), "live.png", "image/png")
    ok(ws.full.post(f"/api/v1/assets/{live['id']}/publish"))
    ok(ws.full.patch(f"/api/v1/assets/{live['id']}", json={"title": "draft title"}))
    assert_error(ws.read.get(f"/api/v1/assets/{draft['id']}"), 404)
    assert_error(ws.read.get("/api/v1/assets?version=latest"), 403)
    listed = ok(ws.read.get("/api/v1/assets"))
    assert [(a["id"], a["title"]) for a in listed["items"]] == [(live["id"], "live.png")]
    assert "previewUrl" not in listed["items"][0]
    assert_error(ws.read.patch(f"/api/v1/assets/{live['id']}", json={"title": "x"}), 403)


def test_lists_filter_on_file_name_type_and_state(ws: WorkspaceAccess) -> None:
    new_asset(ws.full, png(), "a.png", "image/png")
    new_asset(ws.full, b"hello,world\n", "b.csv", "text/csv")
    new_asset(ws.full, png(), "c.png", "image/jpeg")

    def names(condition: str) -> list[str]:
        listed = ok(ws.full.get("/api/v1/assets", params={"filter": condition, "sort": "fileName"}))
        return [a["fileName"] for a in listed["items"]]

    assert names('{"field": "contentType", "op": "eq", "value": "text/csv"}') == ["b.csv"]
    assert names('{"field": "state", "op": "eq", "value": "failed"}') == ["c.png"]
    assert names('{"field": "fileName", "op": "startsWith", "value": "a"}') == ["a.png"]
    assert_error(ws.full.get("/api/v1/assets", params={"filter": "{"}), 400)


def test_publishing_a_failed_asset_is_refused_until_its_file_is_replaced(
    ws: WorkspaceAccess,
) -> None:
    asset = new_asset(ws.full, b"<html></html>", "page.png", "image/png")
    path = f"/api/v1/assets/{asset['id']}"
    assert_error(ws.full.post(f"{path}/publish"), 409)
    upload_id = uploaded(ws.full, png(), "page.png", "image/png")
    ok(ws.full.post(f"{path}/file", json={"uploadId": upload_id}))
    assert ok(ws.full.post(f"{path}/publish"))["state"] == "ready"


def test_the_asset_type_is_reserved_and_hidden_from_the_users_types(
    ws: WorkspaceAccess, admin: httpx.Client
) -> None:
    new_asset(ws.full, png(), "a.png", "image/png")
    refused = ws.full.post("/api/v1/content-types", json={"name": "asset", "fields": []})
    assert "built in" in assert_error(refused, 409)["message"]
    assert ok(ws.full.get("/api/v1/content-types"))["items"] == []
    assert_error(ws.full.get("/api/v1/content-types/asset"), 404)
    assert_error(ws.full.put("/api/v1/content-types/asset", json={"name": "asset"}), 404)
    assert_error(ws.full.delete("/api/v1/content-types/asset"), 404)
    assert_error(ws.full.get("/api/v1/content/asset"), 404)
    assert_error(ws.full.post("/api/v1/content/asset", json={"values": {}}), 404)
    schema = ok(ws.full.post("/api/v1/graphql", json={"query": "{ __schema { types { name } } }"}))
    names = {t["name"] for t in schema["data"]["__schema"]["types"]}
    assert not {"Asset", "AssetInput"} & names
    relating = ws.full.post(
        "/api/v1/content-types",
        json={
            "name": "post",
            "fields": [
                {
                    "name": "cover",
                    "type": "relation",
                    "target": "asset",
                    "cardinality": "many-to-one",
                }
            ],
        },
    )
    assert relating.status_code == 422, relating.text


def test_asset_changes_are_entry_events_of_type_asset(
    ws: WorkspaceAccess, storage: Storage
) -> None:
    define(ws.full, "post", [{"name": "title", "type": "string"}])
    asset = new_asset(ws.full, png(), "a.png", "image/png", title="A")
    ok(ws.full.post(f"/api/v1/assets/{asset['id']}/publish"))
    events = [e for e in storage.events(ws.id) if e["data"].get("contentType") == "asset"]
    assert [(e["kind"], e["data"]["id"], e["data"]["title"]) for e in events] == [
        ("entry.created", asset["id"], "A"),
        ("entry.published", asset["id"], "A"),
    ]


def test_the_cli_uploads_files_in_bulk_one_json_line_each(
    ws: WorkspaceAccess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dot.png").write_bytes(png(3, 2))
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / "fake.png").write_bytes(b"<html></html>")
    files = [str(tmp_path / name) for name in ("dot.png", "notes.txt", "fake.png", "none.gif")]
    code = run_cli("assets", "upload", *files, "--workspace", ws.slug)
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert code == 1
    assert "1 of 4 file(s) were not uploaded" in captured.err
    assert [line["file"] for line in lines] == files
    made = [(a["asset"]["fileName"], a["asset"]["state"]) for a in lines[:3]]
    assert made == [("dot.png", "ready"), ("notes.txt", "ready"), ("fake.png", "failed")]
    assert "No such file" in lines[3]["error"]
    listed = ok(ws.full.get("/api/v1/assets", params={"sort": "fileName"}))
    assert [a["fileName"] for a in listed["items"]] == ["dot.png", "fake.png", "notes.txt"]
