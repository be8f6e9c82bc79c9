"""What a narrowed token reaches, over real HTTP: a `persistedOnly` token runs registered GraphQL
documents and nothing else, and a token without `content:read` writes without reading
(docs/authorization.md; D116)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from content_service.clock import iso_utc
from content_service.graphql.persisted import document_hash
from content_service.identity.principal import SCOPE_CONTENT_WRITE
from content_service.identity.tokens import TokenSpec, create_token
from tests.support.clients import ClientFactory, WorkspaceAccess
from tests.support.content import Storage, assert_error, create, define, publish

GRAPHQL = "/api/v1/graphql"
SCHEDULE = {"action": "publish", "at": iso_utc(time.time() + 30 * 24 * 3600)}


@pytest.fixture
def workspace(new_workspace: Callable[..., WorkspaceAccess]) -> WorkspaceAccess:
    access = new_workspace()
    define(access.full, "note", [{"name": "title", "type": "string"}], titleField="title")
    return access


def _token(make_client: ClientFactory, workspace: WorkspaceAccess, **spec: Any) -> httpx.Client:
    token, _ = create_token(TokenSpec(name="narrowed", workspace_id=workspace.id, **spec))
    return make_client(token)


def _persisted_only(make_client: ClientFactory, workspace: WorkspaceAccess) -> httpx.Client:
    return _token(make_client, workspace, access="full", persisted_only=True)


def _write_only(make_client: ClientFactory, workspace: WorkspaceAccess) -> httpx.Client:
    return _token(make_client, workspace, access="full", scopes=(SCOPE_CONTENT_WRITE,))


def test_a_persisted_only_token_is_refused_by_every_rest_route(
    workspace: WorkspaceAccess, make_client: ClientFactory, storage: Storage
) -> None:
    entry = publish(workspace.full, "note", create(workspace.full, "note", {"title": "a"})["id"])
    path = f"/api/v1/content/note/{entry['id']}"
    client = _persisted_only(make_client, workspace)
    reads = [
        "/api/v1/content/note",
        "/api/v1/content/note?filter=%7B%7D&pageSize=100&expand=x",
        path,
        f"{path}/versions",
        "/api/v1/content-types",
        "/api/v1/me",
        GRAPHQL,  # the SDL
    ]
    for read in reads:
        error = assert_error(client.get(read), 403)
        assert "persistedOnly" in error["message"], read
    with storage.unchanged(workspace.id):
        assert_error(client.post("/api/v1/content/note", json={"values": {"title": "b"}}), 403)
        assert_error(client.patch(path, json={"values": {"title": "b"}}), 403)
        assert_error(client.post(f"{path}/unpublish"), 403)
        assert_error(client.delete(path), 403)
        body = {"name": "other", "fields": [{"name": "label", "type": "string"}]}
        assert_error(client.post("/api/v1/content-types", json=body), 403)


def test_a_persisted_only_token_still_runs_a_registered_document(
    workspace: WorkspaceAccess, make_client: ClientFactory
) -> None:
    """The refusal above is the token's kind, not a broken token: by hash, it runs."""
    query = "{ notes { total } }"
    digest = document_hash(query)
    extensions = {"persistedQuery": {"version": 1, "sha256Hash": digest}}
    registered = workspace.full.post(GRAPHQL, json={"query": query, "extensions": extensions})
    assert registered.json()["data"] == {"notes": {"total": 0}}, registered.text
    client = _persisted_only(make_client, workspace)
    answer = client.post(GRAPHQL, json={"extensions": extensions}).json()
    assert answer["data"] == {"notes": {"total": 0}}, answer


def test_a_write_only_tokens_answers_carry_no_values(
    workspace: WorkspaceAccess, make_client: ClientFactory
) -> None:
    client = _write_only(make_client, workspace)
    made = client.post("/api/v1/content/note", json={"values": {"title": "secret one"}})
    assert made.status_code == 201, made.text
    assert "values" not in made.json()
    assert "secret" not in made.text
    path = f"/api/v1/content/note/{made.json()['id']}"
    answers = [
        client.patch(path, json={"values": {"title": "secret two"}}),
        client.patch(path, json={}),
        client.post(f"{path}/publish"),
        client.post(f"{path}/unpublish"),
        client.post(f"{path}/versions/1/restore"),
    ]
    for answer in answers:
        assert answer.status_code == 200, answer.text
        assert "values" not in answer.json()
        assert "secret" not in answer.text
    # The same writes by a token that may read answer the values.
    full = workspace.full.patch(path, json={"values": {"title": "seen"}})
    assert full.json()["values"] == {"title": "seen"}


def test_a_write_only_token_reads_nothing(
    workspace: WorkspaceAccess, make_client: ClientFactory
) -> None:
    entry = create(workspace.full, "note", {"title": "a"})
    path = f"/api/v1/content/note/{entry['id']}"
    made = workspace.full.post(f"{path}/schedules", json=SCHEDULE)
    assert made.status_code == 201, made.text
    client = _write_only(make_client, workspace)
    for read in (
        "/api/v1/content/note",
        path,
        f"{path}/versions",
        f"{path}/versions/1",
        f"{path}/schedules",
        "/api/v1/content-types",
        "/api/v1/content-types/note",
        GRAPHQL,
    ):
        assert_error(client.get(read), 403)
    graphql = client.post(GRAPHQL, json={"query": "{ notes { total } }"}).json()
    assert [e["extensions"]["code"] for e in graphql["errors"]] == ["FORBIDDEN"]
    # Its writes on the schedules go through.
    assert client.post(f"{path}/schedules", json=SCHEDULE).status_code == 201


@pytest.mark.parametrize("body", [{}, {"values": {}}, {"relations": {}}])
def test_an_empty_patch_writes_nothing(
    workspace: WorkspaceAccess, storage: Storage, body: dict[str, Any]
) -> None:
    entry = create(workspace.full, "note", {"title": "a"})
    path = f"/api/v1/content/note/{entry['id']}"
    with storage.unchanged(workspace.id):
        answer = workspace.full.patch(path, json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["version"] == entry["version"]
        assert answer.json()["values"] == {"title": "a"}
        stale = workspace.full.patch(path, json={**body, "version": entry["version"] + 1})
        assert_error(stale, 409, "version_conflict")
        assert_error(workspace.full.patch("/api/v1/content/note/nope", json=body), 404)
