"""Helpers for the content tests: defining types over HTTP, reading the outbox and the tables.

The events table and the content table are read with the emulator's own client (not through
the recording proxy), so a test's storage capture holds only what the app asked for.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from boto3.dynamodb.types import TypeDeserializer

from content_service import runtime
from content_service.identity.tokens import TokenSpec, create_token
from content_service.identity.workspaces import create_workspace
from infra.local_stack import LocalStack
from infra.request_recorder import RecordedCall
from tests.support.clients import WorkspaceAccess

_deserializer = TypeDeserializer()
WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})


def plain(item: dict[str, Any]) -> dict[str, Any]:
    return {k: _deserializer.deserialize(v) for k, v in item.items()}


def define(
    client: httpx.Client, name: str, fields: list[dict[str, Any]], **options: Any
) -> dict[str, Any]:
    response = client.post(
        "/api/v1/content-types", json={"name": name, "fields": fields, **options}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def create(
    client: httpx.Client, type_name: str, values: dict[str, Any], **body: Any
) -> dict[str, Any]:
    response = client.post(f"/api/v1/content/{type_name}", json={"values": values, **body})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def publish(client: httpx.Client, type_name: str, entry_id: str) -> dict[str, Any]:
    response = client.post(f"/api/v1/content/{type_name}/{entry_id}/publish")
    assert response.status_code == 200, response.text
    published: dict[str, Any] = response.json()
    return published


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """The contract's error shape with this status."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}, body
    error: dict[str, Any] = body["error"]
    assert error["status"] == status
    assert isinstance(error["message"], str)
    assert error["message"]
    if code is not None:
        assert error["code"] == code, error
    return error


class Storage:
    """Direct reads of the stack's tables (not through the recorder)."""

    def __init__(self, stack: LocalStack) -> None:
        assert stack.provisioned is not None
        assert stack.settings is not None
        self.stack = stack
        self.client = stack.emulator.dynamodb()
        self.tables = stack.settings.tables

    def _scan(self, table: str, workspace_id: str, attribute: str) -> list[dict[str, Any]]:
        """The items whose `attribute` mentions the workspace (filtered by the emulator)."""
        pages = self.client.get_paginator("scan").paginate(
            TableName=table,
            FilterExpression="contains(#a, :ws)",
            ExpressionAttributeNames={"#a": attribute},
            ExpressionAttributeValues={":ws": {"S": workspace_id}},
        )
        return [plain(item) for page in pages for item in page.get("Items", [])]

    def events(self, workspace_id: str) -> list[dict[str, Any]]:
        found = self._scan(self.tables.events, workspace_id, "workspaceId")
        return sorted(found, key=lambda e: (e["occurredAt"], e["id"]))

    def events_of(self, workspace_id: str, entry_id: str) -> list[dict[str, Any]]:
        return [e for e in self.events(workspace_id) if e["data"]["id"] == entry_id]

    def content_items(self, workspace_id: str) -> list[dict[str, Any]]:
        """Entries and claims: every key of the content table names its workspace."""
        return sorted(
            self._scan(self.tables.content, workspace_id, "pk"), key=lambda i: (i["pk"], i["sk"])
        )

    def entry_item(self, workspace_id: str, entry_id: str) -> dict[str, Any] | None:
        found = self.client.get_item(
            TableName=self.tables.content,
            Key={"pk": {"S": f"ENTRY#{workspace_id}#{entry_id}"}, "sk": {"S": "ENTRY"}},
            ConsistentRead=True,
        ).get("Item")
        return plain(found) if found else None

    def state(self, workspace_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Everything the workspace holds in the content and events tables."""
        return self.content_items(workspace_id), self.events(workspace_id)

    @contextmanager
    def unchanged(self, workspace_id: str) -> Iterator[None]:
        """Asserts the block wrote nothing: at the wire, no write request to DynamoDB succeeded
        (a refused transaction answers 400 and writes nothing), and the workspace's events and
        its entries and claims read back the same."""
        before = self.state(workspace_id)
        assert self.stack.recorder is not None
        with self.stack.recorder.capture() as calls:
            yield
        succeeded = [c.operation for c in calls if c.operation in WRITES and c.status == 200]
        assert succeeded == [], succeeded
        assert self.state(workspace_id) == before


@dataclass
class Captured:
    calls: list[RecordedCall]

    def dynamodb(self) -> list[RecordedCall]:
        return [c for c in self.calls if c.target.startswith("DynamoDB_")]

    def operations(self) -> list[str]:
        return [c.operation for c in self.dynamodb()]

    def on(self, table: str) -> list[RecordedCall]:
        return [c for c in self.dynamodb() if table in c.tables]


@contextmanager
def capture(stack: LocalStack) -> Iterator[Captured]:
    assert stack.recorder is not None, "the session stack records storage requests"
    with stack.recorder.capture() as calls:
        yield Captured(calls)


@contextmanager
def shared_workspace(
    base_url: str, read_audiences: tuple[str, ...] = ()
) -> Iterator[WorkspaceAccess]:
    """A fresh workspace with full and read clients for a whole module (tests that only read,
    or whose writes are refused, can share one and save the setup)."""
    slug = f"ws-{uuid.uuid4().hex[:12]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    full, _ = create_token(TokenSpec(name="full", workspace_id=workspace.id, access="full"))
    read, _ = create_token(
        TokenSpec(name="read", workspace_id=workspace.id, access="read", audiences=read_audiences)
    )
    clients = [
        httpx.Client(
            base_url=base_url,
            headers={"Origin": base_url, "Authorization": f"Bearer {token}"},
            timeout=30,
        )
        for token in (full, read)
    ]
    try:
        yield WorkspaceAccess(
            id=workspace.id,
            slug=slug,
            full_token=full,
            read_token=read,
            full=clients[0],
            read=clients[1],
        )
    finally:
        for client in clients:
            client.close()
