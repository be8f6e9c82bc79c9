"""Asset fields (docs/assets.md, "Asset fields"): a content type links assets as it links
entries, REST's `expand` shows the asset with its URL, GraphQL resolves the field to `Asset`
with `url(transform: ...)`, and a read token only ever sees published assets."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image

from tests.support.assets import new_asset, png
from tests.support.clients import ClientFactory, WorkspaceAccess
from tests.support.content import assert_error, define

PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
FIELDS: list[dict[str, Any]] = [
    {"name": "title", "type": "string", "required": True},
    {"name": "hero", "type": "asset", "accept": ["image/*"]},
    {"name": "attachments", "type": "asset", "cardinality": "many"},
]


@pytest.fixture
def ws(new_workspace: Callable[..., WorkspaceAccess]) -> WorkspaceAccess:
    workspace = new_workspace()
    define(workspace.full, "post", FIELDS, titleField="title")
    return workspace


def _published(ws: WorkspaceAccess, body: bytes, name: str, kind: str, **fields: Any) -> str:
    asset = new_asset(ws.full, body, name, kind, **fields)
    assert ws.full.post(f"/api/v1/assets/{asset['id']}/publish").status_code == 200
    return str(asset["id"])


def _post(ws: WorkspaceAccess, relations: dict[str, Any]) -> str:
    created = ws.full.post(
        "/api/v1/content/post", json={"values": {"title": "Hello"}, "relations": relations}
    )
    assert created.status_code == 201, created.text
    entry_id = str(created.json()["id"])
    assert ws.full.post(f"/api/v1/content/post/{entry_id}/publish").status_code == 200
    return entry_id


def test_the_field_is_defined_with_its_cardinality_and_accept(ws: WorkspaceAccess) -> None:
    fields = ws.full.get("/api/v1/content-types/post").json()["fields"]
    assert fields[1:] == [
        {"name": "hero", "type": "asset", "required": False, "cardinality": "one",
         "accept": ["image/*"]},
        {"name": "attachments", "type": "asset", "required": False, "cardinality": "many"},
    ]  # fmt: skip
    refused = ws.full.post(
        "/api/v1/content-types",
        json={
            "name": "bad",
            "fields": [{"name": "x", "type": "asset", "accept": ["Images"], "target": "post"}],
        },
    )
    problems = {p["location"] for p in assert_error(refused, 422)["details"]}
    assert problems == {"fields[0].accept", "fields[0].target"}


def test_rest_expand_shows_each_asset_with_its_url(
    ws: WorkspaceAccess, make_client: ClientFactory
) -> None:
    hero = _published(ws, png(40, 20), "hero.png", "image/png", altText="A red box")
    pdf = _published(ws, PDF, "terms.pdf", "application/pdf")
    entry = _post(ws, {"hero": {"link": [hero]}, "attachments": {"link": [pdf]}})
    for client in (ws.full, ws.read):
        got = client.get(f"/api/v1/content/post/{entry}", params={"expand": "hero,attachments"})
        assert got.status_code == 200, got.text
        relations = got.json()["relations"]
        [image] = relations["hero"]
        assert (image["id"], image["contentType"], image["width"], image["height"]) == (
            hero,
            "image/png",
            40,
            20,
        )
        assert image["altText"] == "A red box"
        assert [a["fileName"] for a in relations["attachments"]] == ["terms.pdf"]
        webp = make_client().get(image["url"], params={"w": "10", "fm": "webp"})
        assert webp.status_code == 200
        decoded = Image.open(io.BytesIO(webp.content))
        assert (decoded.format, decoded.width) == ("WEBP", 10)


def test_a_read_token_never_sees_a_draft_asset(ws: WorkspaceAccess) -> None:
    draft = new_asset(ws.full, png(), "draft.png", "image/png")["id"]
    entry = _post(ws, {"hero": {"link": [draft]}})
    read = ws.read.get(f"/api/v1/content/post/{entry}", params={"expand": "hero"})
    assert read.json()["relations"]["hero"] == []
    latest = ws.full.get(f"/api/v1/content/post/{entry}", params={"expand": "hero"})
    [seen] = latest.json()["relations"]["hero"]
    assert (seen["id"], seen["status"], seen["url"]) == (draft, "draft", None)


def test_a_link_is_refused_outside_accept_or_without_a_ready_file(ws: WorkspaceAccess) -> None:
    pdf = new_asset(ws.full, PDF, "terms.pdf", "application/pdf")["id"]
    forged = new_asset(ws.full, PDF, "fake.png", "image/png")
    assert forged["state"] == "failed"
    wrong = ws.full.post(
        "/api/v1/content/post",
        json={"values": {"title": "x"}, "relations": {"hero": {"link": [pdf]}}},
    )
    details = assert_error(wrong, 422)["details"]
    assert "accepts image/*" in details[0]["problem"]
    failed = ws.full.post(
        "/api/v1/content/post",
        json={"values": {"title": "x"}, "relations": {"attachments": {"link": [forged["id"]]}}},
    )
    assert "has no ready file" in assert_error(failed, 422)["details"][0]["problem"]
    entry = ws.full.post(
        "/api/v1/content/post",
        json={"values": {"title": "x"}, "relations": {"hero": {"link": [ws.id]}}},
    )
    assert_error(entry, 422)


def test_graphql_resolves_the_field_to_an_asset_with_transform_urls(
    ws: WorkspaceAccess, make_client: ClientFactory
) -> None:
    hero = _published(ws, png(40, 20), "hero.png", "image/png", title="Hero")
    pdf = _published(ws, PDF, "terms.pdf", "application/pdf")
    entry = _post(ws, {"hero": {"link": [hero]}, "attachments": {"link": [pdf]}})
    query = """query($id: ID!) { post(id: $id) {
        hero { id title width height contentType size fileName
               url(transform: {width: 12, format: WEBP, quality: 70})
               original: url }
        attachments { fileName contentType url } } }"""
    for client in (ws.full, ws.read):
        answer = client.post("/api/v1/graphql", json={"query": query, "variables": {"id": entry}})
        body = answer.json()
        assert "errors" not in body, body
        got = body["data"]["post"]
        assert (got["hero"]["id"], got["hero"]["title"], got["hero"]["width"]) == (
            hero,
            "Hero",
            40,
        )
        assert got["attachments"][0]["fileName"] == "terms.pdf"
        http = make_client()
        webp = http.get(got["hero"]["url"])
        assert webp.status_code == 200, webp.text
        assert webp.headers["content-type"] == "image/webp"
        assert Image.open(io.BytesIO(webp.content)).width == 12
        assert http.get(got["hero"]["original"]).content == png(40, 20)


def test_trashing_a_linked_asset_is_refused_unless_forced(ws: WorkspaceAccess) -> None:
    hero = _published(ws, png(), "hero.png", "image/png")
    entry = _post(ws, {"hero": {"link": [hero]}})
    refused = assert_error(ws.full.delete(f"/api/v1/assets/{hero}"), 409)
    assert refused["message"].startswith(f"asset {hero} is linked from 1 published entry")
    assert [linker["id"] for linker in refused["details"]["linkedFrom"]] == [entry]
    used = ws.full.get(f"/api/v1/assets/{hero}/links")
    assert used.status_code == 200, used.text
    assert [item["id"] for item in used.json()["items"]] == [entry]
    assert ws.full.delete(f"/api/v1/assets/{hero}", params={"force": "true"}).status_code == 204


def test_lists_filter_by_a_linked_asset_and_graphql_writes_the_link(ws: WorkspaceAccess) -> None:
    hero = _published(ws, png(), "hero.png", "image/png")
    other = _published(ws, png(8, 8), "other.png", "image/png")
    mutation = """mutation($hero: ID!) { createPost(input: {values: {title: "By GraphQL"},
        relations: {hero: {link: [$hero]}}}) { id hero { id fileName } } }"""
    made = ws.full.post("/api/v1/graphql", json={"query": mutation, "variables": {"hero": hero}})
    body = made.json()
    assert "errors" not in body, body
    assert body["data"]["createPost"]["hero"] == {"id": hero, "fileName": "hero.png"}
    _post(ws, {"hero": {"link": [other]}})
    by_hero = json.dumps({"field": "hero", "op": "eq", "value": hero})
    listed = ws.full.get("/api/v1/content/post", params={"filter": by_hero}).json()
    assert [item["id"] for item in listed["items"]] == [body["data"]["createPost"]["id"]]


def test_asset_lists_count_as_records_in_a_querys_cost(ws: WorkspaceAccess) -> None:
    query = "{ posts(pageSize: %d) { items { attachments(pageSize: %d) { id } } } }"
    small = ws.full.post("/api/v1/graphql", json={"query": query % (10, 10)}).json()
    assert small["extensions"]["cost"]["requested"] == 10 + 10 * 10, small
    large = ws.full.post("/api/v1/graphql", json={"query": query % (100, 100)}).json()
    assert large["errors"][0]["extensions"]["code"] == "TOO_COMPLEX", large
