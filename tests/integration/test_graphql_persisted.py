"""Persisted documents: Apollo's automatic persisted queries over GET and POST (an unknown hash
answers PersistedQueryNotFound, the hash with its query registers it after checking the hash,
later hash-only requests run it), kept in DynamoDB per workspace with a TTL and shared by every
instance; and `persistedOnly` tokens, which run only documents a full token registered."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from content_service.graphql.persisted import UNTRUSTED_TTL_DAYS, documents
from infra.local_stack import LocalStack
from tests.support.clients import ClientFactory, WorkspaceAccess, new_read_token
from tests.support.content import capture, plain
from tests.support.graphql import PATH, only_error

DAY = 86_400


def digest(query: str) -> str:
    return hashlib.sha256(query.encode()).hexdigest()


def apq(query: str) -> dict[str, Any]:
    return {"persistedQuery": {"version": 1, "sha256Hash": digest(query)}}


def over_post(client: httpx.Client, query: str, *, send_query: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"extensions": apq(query)}
    if send_query:
        body["query"] = query
    response = client.post(PATH, json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def over_get(client: httpx.Client, query: str, *, send_query: bool) -> dict[str, Any]:
    params = {"extensions": json.dumps(apq(query))}
    if send_query:
        params["query"] = query
    response = client.get(PATH, params=params)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


Send = Callable[..., dict[str, Any]]


class Documents:
    """The persisted-queries table, read and changed directly (not through the app)."""

    def __init__(self, stack: LocalStack) -> None:
        assert stack.settings is not None
        self.client = stack.emulator.dynamodb()
        self.table = stack.settings.tables.persisted_queries

    def item(self, workspace_id: str, query: str) -> dict[str, Any] | None:
        found = self.client.get_item(
            TableName=self.table,
            Key={"pk": {"S": f"{workspace_id}#{digest(query)}"}},
            ConsistentRead=True,
        ).get("Item")
        return plain(found) if found else None

    def set_expiry(self, workspace_id: str, query: str, at: float) -> None:
        self.client.update_item(
            TableName=self.table,
            Key={"pk": {"S": f"{workspace_id}#{digest(query)}"}},
            UpdateExpression="SET expiresAt = :at",
            ExpressionAttributeValues={":at": {"N": str(int(at))}},
        )


@pytest.fixture
def stored(stack: LocalStack) -> Iterator[Documents]:
    documents.clear()
    yield Documents(stack)
    documents.clear()


@pytest.mark.parametrize("send", [over_post, over_get], ids=["POST", "GET"])
def test_automatic_persisted_queries(
    post_site: WorkspaceAccess, stored: Documents, send: Send
) -> None:
    query = f"{{ posts {{ items {{ title }} }} }} # {send.__name__}"
    missing = send(post_site.read, query, send_query=False)
    error = only_error(missing, "PERSISTED_QUERY_NOT_FOUND", 404)
    assert error["message"] == "PersistedQueryNotFound"
    assert stored.item(post_site.id, query) is None
    registered = send(post_site.read, query, send_query=True)
    assert registered["data"] == {"posts": {"items": [{"title": "Hi"}]}}
    item = stored.item(post_site.id, query)
    assert item is not None
    assert item["query"] == query
    assert "trusted" not in item  # a read token's registration
    assert abs(float(item["expiresAt"]) - (time.time() + UNTRUSTED_TTL_DAYS * DAY)) < 60
    assert send(post_site.read, query, send_query=False) == registered
    # The document lives in the table, not in this process: another instance finds it.
    documents.clear()
    assert send(post_site.full, query, send_query=False)["data"] == registered["data"]


def test_the_hash_is_checked_and_only_a_document_that_passes_is_stored(
    post_site: WorkspaceAccess, stored: Documents
) -> None:
    query = "{ posts { total } }"
    wrong = {"query": query, "extensions": apq("{ something { else } }")}
    only_error(post_site.read.post(PATH, json=wrong).json(), "PERSISTED_QUERY_HASH_MISMATCH", 400)
    assert stored.item(post_site.id, query) is None
    assert stored.item(post_site.id, "{ something { else } }") is None
    for invalid in ("{ nope }", "{ posts(pageSize: 500) { total } }", "{ posts {"):
        refused = over_post(post_site.read, invalid, send_query=True)
        assert "data" not in refused
        assert refused["errors"]
        assert stored.item(post_site.id, invalid) is None
        only_error(
            over_post(post_site.read, invalid, send_query=False), "PERSISTED_QUERY_NOT_FOUND", 404
        )


def test_documents_belong_to_their_workspace(
    post_site: WorkspaceAccess, new_workspace: Callable[..., WorkspaceAccess], stored: Documents
) -> None:
    query = "{ __typename }"
    assert "data" in over_post(post_site.read, query, send_query=True)
    other = new_workspace()
    only_error(over_post(other.read, query, send_query=False), "PERSISTED_QUERY_NOT_FOUND", 404)


def test_an_expired_document_is_gone_and_a_used_one_is_kept_longer(
    post_site: WorkspaceAccess, stored: Documents
) -> None:
    expired, used = "{ posts { total } }", "{ posts { items { title } } }"
    for query in (expired, used):
        assert "data" in over_post(post_site.read, query, send_query=True)
    stored.set_expiry(post_site.id, expired, time.time() - 1)  # DynamoDB's TTL has not run yet
    stored.set_expiry(post_site.id, used, time.time() + (UNTRUSTED_TTL_DAYS - 2) * DAY)
    documents.clear()
    only_error(
        over_post(post_site.read, expired, send_query=False), "PERSISTED_QUERY_NOT_FOUND", 404
    )
    assert "data" in over_post(post_site.read, used, send_query=False)
    item = stored.item(post_site.id, used)
    assert item is not None
    assert abs(float(item["expiresAt"]) - (time.time() + UNTRUSTED_TTL_DAYS * DAY)) < 60


def test_a_persisted_only_token_runs_only_documents_a_full_token_registered(
    post_site: WorkspaceAccess,
    stored: Documents,
    admin: httpx.Client,
    make_client: ClientFactory,
) -> None:
    made, trusted_only = new_read_token(admin, make_client, post_site, persistedOnly=True)
    assert made["persistedOnly"] is True
    query = "query Trusted { posts { items { title } } }"
    free_form = trusted_only.post(PATH, json={"query": query}).json()
    only_error(free_form, "PERSISTED_QUERY_ID_REQUIRED", 400)
    only_error(over_get(trusted_only, query, send_query=False), "PERSISTED_QUERY_NOT_FOUND", 404)
    # It cannot register, and a read token's registration does not make a document trusted.
    only_error(over_post(trusted_only, query, send_query=True), "PERSISTED_QUERY_NOT_IN_LIST", 403)
    assert stored.item(post_site.id, query) is None
    assert "data" in over_post(post_site.read, query, send_query=True)
    only_error(over_get(trusted_only, query, send_query=False), "PERSISTED_QUERY_NOT_FOUND", 404)
    only_error(over_post(trusted_only, query, send_query=True), "PERSISTED_QUERY_NOT_IN_LIST", 403)
    # A full token registers it: trusted, kept without expiry; now it runs, over GET too.
    assert "data" in over_post(post_site.full, query, send_query=True)
    item = stored.item(post_site.id, query)
    assert item is not None
    assert item["trusted"] is True
    assert "expiresAt" not in item
    answer = trusted_only.get(PATH, params={"extensions": json.dumps(apq(query))})
    assert answer.json()["data"] == {"posts": {"items": [{"title": "Hi"}]}}
    assert answer.headers["cache-control"].startswith("public")
    assert "data" in over_post(trusted_only, query, send_query=True)
    # A later read-token registration does not demote it.
    documents.clear()
    assert "data" in over_post(post_site.read, query, send_query=True)
    assert stored.item(post_site.id, query)["trusted"] is True  # type: ignore[index]
    # The flag comes off by PATCH, like any grant.
    patched = admin.patch(f"/api/v1/tokens/{made['id']}", json={"persistedOnly": False})
    assert patched.json()["persistedOnly"] is False
    assert "data" in trusted_only.post(PATH, json={"query": "{ __typename }"}).json()


def test_hash_only_requests_read_the_table_once_per_instance(
    post_site: WorkspaceAccess, stored: Documents, stack: LocalStack
) -> None:
    query = "{ posts { total } }"
    assert "data" in over_post(post_site.read, query, send_query=True)
    documents.clear()
    with capture(stack) as calls:
        for _ in range(3):
            assert "data" in over_post(post_site.read, query, send_query=False)
    reads = [c for c in calls.on(stored.table) if c.operation == "GetItem"]
    assert len(reads) == 1
