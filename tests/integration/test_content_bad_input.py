"""Bad input never gets a 500 and never writes: malformed bodies, oversized bodies, hostile
path segments and query strings, on every content route."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.support.clients import WorkspaceAccess
from tests.support.content import (
    Storage,
    assert_error,
    create,
    define,
    shared_workspace,
)

HOSTILE = [
    "../../etc/passwd",
    "..%2F..%2Fetc",
    "' OR '1'='1",
    "<script>alert(1)</script>",
    "a" * 2000,
    "😀",
    "\u202eevil",
    "ENTRY#x#y",
    "%00",
    "null",
    "-1",
    "00000000-0000-4000-8000-00000000000Z",
]


@pytest.fixture(scope="module")
def world(base_url: str) -> Iterator[tuple[WorkspaceAccess, dict[str, Any]]]:
    with shared_workspace(base_url) as access:
        define(
            access.full,
            "note",
            [
                {"name": "text", "type": "string"},
                {
                    "name": "ref",
                    "type": "relation",
                    "target": "note",
                    "cardinality": "many-to-many",
                },
            ],
        )
        entry = create(access.full, "note", {"text": "keep"})
        yield access, entry


@pytest.mark.parametrize(
    "body",
    [
        b"{",
        b'{"values": {"text": "x"}',
        b'{"values": {"text": "x"}}}',
        b"not json",
        b"\xff\xfe\x00",
        b'{"values": {"text": "\\x"}}',
        b"[" * 100_000,
    ],
)
def test_malformed_json_bodies_are_400(
    world: tuple[WorkspaceAccess, dict[str, Any]], storage: Storage, body: bytes
) -> None:
    access, entry = world
    headers = {"Content-Type": "application/json"}
    with storage.unchanged(access.id):
        assert_error(access.full.post("/api/v1/content/note", content=body, headers=headers), 400)
        assert_error(
            access.full.patch(f"/api/v1/content/note/{entry['id']}", content=body, headers=headers),
            400,
        )


@pytest.mark.parametrize(
    "body",
    [
        [],
        "values",
        {"values": []},
        {"values": "text"},
        {"values": {"text": "x"}, "unknown": 1},
        {"relations": []},
        {"relations": {"ref": ["id"]}},
        {"relations": {"ref": {"link": "id"}}},
        {"relations": {"ref": {"link": [1]}}},
        {"relations": {"ref": {"add": []}}},
        {"locale": 5},
        {"localeGroupId": ["x"]},
        {"audiences": "all"},
        {"relations": {"ref": {"link": ["00000000-0000-4000-8000-000000000000"] * 101}}},
    ],
)
def test_ill_shaped_bodies_are_422(
    world: tuple[WorkspaceAccess, dict[str, Any]], storage: Storage, body: Any
) -> None:
    access, entry = world
    with storage.unchanged(access.id):
        assert_error(access.full.post("/api/v1/content/note", json=body), 422, "validation_failed")
        assert_error(access.full.patch(f"/api/v1/content/note/{entry['id']}", json=body), 422)


def test_an_oversized_body_is_413_and_writes_nothing(
    world: tuple[WorkspaceAccess, dict[str, Any]], storage: Storage
) -> None:
    access, entry = world
    huge = json.dumps({"values": {"text": "x" * (1024 * 1024 + 10)}}).encode()
    with storage.unchanged(access.id):
        assert_error(
            access.full.post(
                "/api/v1/content/note", content=huge, headers={"Content-Type": "application/json"}
            ),
            413,
            "payload_too_large",
        )
        assert_error(
            access.full.patch(
                f"/api/v1/content/note/{entry['id']}",
                content=huge,
                headers={"Content-Type": "application/json"},
            ),
            413,
        )


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_path_segments_are_4xx_never_500(
    world: tuple[WorkspaceAccess, dict[str, Any]], storage: Storage, hostile: str
) -> None:
    access, entry = world
    segment = quote(hostile, safe="")
    client = access.full
    with storage.unchanged(access.id):
        for response in (
            client.get(f"/api/v1/content/{segment}"),
            client.post(f"/api/v1/content/{segment}", json={"values": {}}),
            client.get(f"/api/v1/content/note/{segment}"),
            client.patch(f"/api/v1/content/note/{segment}", json={"values": {}}),
            client.post(f"/api/v1/content/note/{segment}/publish"),
            client.post(f"/api/v1/content/note/{segment}/unpublish"),
            client.delete(f"/api/v1/content/note/{segment}"),
            client.post(f"/api/v1/content/note/{segment}/restore"),
            client.delete(f"/api/v1/content/note/{segment}/purge"),
            client.get(f"/api/v1/content/note/{entry['id']}/relations/{segment}"),
            client.get(f"/api/v1/content-types/{segment}"),
            client.delete(f"/api/v1/content-types/{segment}"),
        ):
            assert 400 <= response.status_code < 500, (response.request.url, response.text)
            assert set(response.json()) == {"error"}


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_query_strings_are_4xx_or_harmless(
    world: tuple[WorkspaceAccess, dict[str, Any]], hostile: str
) -> None:
    access, _ = world
    for params in (
        {"sort": hostile},
        {"fields": hostile},
        {"expand": hostile},
        {"locale": hostile},
        {"filter": hostile},
        {"filter": json.dumps({"field": "text", "op": "eq", "value": hostile})},
        {"filter": json.dumps({"field": hostile, "op": "eq", "value": "x"})},
        {"filter": json.dumps({"field": "text", "op": hostile, "value": "x"})},
        {"page": hostile},
        {"pageSize": hostile},
    ):
        response = access.full.get("/api/v1/content/note", params=params)
        assert response.status_code in (200, 400), (params, response.text)
        if response.status_code == 400:
            assert_error(response, 400, "bad_request")


def test_a_lone_surrogate_in_a_filter_value_is_400(
    world: tuple[WorkspaceAccess, dict[str, Any]],
) -> None:
    access, _ = world
    response = access.full.get(
        "/api/v1/content/note",
        params={"filter": '{"field": "text", "op": "eq", "value": "\\ud800"}'},
    )
    assert_error(response, 400)


def test_the_stored_entry_survived_all_of_it(
    world: tuple[WorkspaceAccess, dict[str, Any]],
) -> None:
    access, entry = world
    assert access.full.get(f"/api/v1/content/note/{entry['id']}").json() == entry
