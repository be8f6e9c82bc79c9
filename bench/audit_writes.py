"""Audited writes: what the audit record adds to a write's DynamoDB requests.

Through real HTTP against the local stack, every DynamoDB request counted by the recording
proxy (`infra.request_recorder`), one write of each kind: an entry created, updated and
published, a content type created, a token created (by the signed-in administrator), a webhook
endpoint created and updated. For each: its DynamoDB requests, the items of its
TransactWriteItems, and of those the audit records. The promise (docs/authorization.md, "The
audit log"): the record is one more item in the change's own transaction, so a write grows by
at most one item and by no request. The report holds each write to it: at most one audit item,
and no request that writes the audit table alone.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from bench.report import Row
from content_service import runtime
from content_service.identity.tokens import TokenSpec, create_token
from content_service.identity.workspaces import create_workspace
from infra.local_stack import LocalStack
from infra.request_recorder import RecordedCall, RequestRecorder

BENCHMARK = "audit_writes"
_WRITES = frozenset({"TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem"})


@dataclass(frozen=True)
class Seen:
    """One write's DynamoDB requests, as the proxy saw them."""

    calls: list[RecordedCall]
    audit_table: str

    @property
    def requests(self) -> int:
        return len(self.calls)

    @property
    def transaction_items(self) -> int:
        return sum(len(c.body.get("TransactItems") or []) for c in self.calls)

    @property
    def audit_items(self) -> int:
        return sum(self._audit_items(c) for c in self.calls)

    @property
    def audit_only_requests(self) -> int:
        """Write requests touching the audit table and nothing else: an extra request."""
        return sum(
            1 for c in self.calls if c.operation in _WRITES and c.tables == [self.audit_table]
        )

    def _audit_items(self, call: RecordedCall) -> int:
        if call.table == self.audit_table and call.operation in _WRITES:
            return 1
        items = call.body.get("TransactItems") or []
        return sum(
            1
            for item in items
            for operation in item.values()
            if isinstance(operation, dict) and operation.get("TableName") == self.audit_table
        )


def _observe(recorder: RequestRecorder, write: Callable[[], httpx.Response]) -> Seen:
    with recorder.capture() as calls:
        response = write()
    assert response.status_code in (200, 201), response.text
    dynamodb = [c for c in calls if c.target.startswith("DynamoDB_")]
    return Seen(dynamodb, runtime.settings().tables.audit)


def _rows(case: str, seen: Seen) -> list[Row]:
    grown = seen.audit_items <= 1 and seen.audit_only_requests == 0
    return [
        Row(BENCHMARK, case, "DynamoDB requests", seen.requests, "requests"),
        Row(BENCHMARK, case, "TransactWriteItems items", seen.transaction_items, "items"),
        Row(
            BENCHMARK,
            case,
            "  of which the audit record",
            seen.audit_items,
            "items",
            target="<= 1, in the change's transaction",
            meets_target=grown and seen.audit_items == 1,
        ),
        Row(
            BENCHMARK,
            case,
            "requests added by the audit record",
            seen.audit_only_requests,
            "requests",
            target="0",
            meets_target=seen.audit_only_requests == 0,
        ),
    ]


def _writes(
    full: httpx.Client, admin: httpx.Client, workspace_id: str
) -> list[tuple[str, Callable[[], httpx.Response]]]:
    """(case, write) in an order where each write finds what it needs made by the earlier."""
    made: dict[str, Any] = {}

    def create_entry() -> httpx.Response:
        response = full.post("/api/v1/content/memo", json={"values": {"title": "one"}})
        made["entry"] = response.json().get("id")
        return response

    def create_endpoint() -> httpx.Response:
        body = {"url": "http://127.0.0.1:9/listener", "mode": "pull", "allWorkspaces": True}
        response = admin.post("/api/webhooks", json=body)
        made["endpoint"] = response.json().get("id")
        return response

    memo = {"name": "memo", "fields": [{"name": "title", "type": "string"}]}
    token = {"name": "bench", "workspaceId": workspace_id, "access": "read"}
    return [
        ("content type created", lambda: full.post("/api/v1/content-types", json=memo)),
        ("entry created", create_entry),
        (
            "entry updated",
            lambda: full.patch(
                f"/api/v1/content/memo/{made['entry']}", json={"values": {"title": "two"}}
            ),
        ),
        ("entry published", lambda: full.post(f"/api/v1/content/memo/{made['entry']}/publish")),
        ("token created (administrator)", lambda: admin.post("/api/v1/tokens", json=token)),
        ("webhook endpoint created", create_endpoint),
        (
            "webhook endpoint updated",
            lambda: admin.patch(
                f"/api/webhooks/{made['endpoint']}", json={"events": ["entry.created"]}
            ),
        ),
    ]


def run(stack: LocalStack) -> list[Row]:
    assert stack.base_url is not None, "the bench needs the API"
    assert stack.recorder is not None, "the bench counts requests with the stack's recorder"
    assert stack.credentials is not None, "the bench signs in as the bootstrap administrator"
    slug = f"bench-audit-{uuid.uuid4().hex[:8]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    token, _ = create_token(TokenSpec(name="bench", workspace_id=workspace.id, access="full"))
    admin_login = stack.credentials["admin"]
    rows: list[Row] = []
    bearer = {"Authorization": f"Bearer {token}"}
    with (
        httpx.Client(base_url=stack.base_url, headers=bearer, timeout=30) as full,
        httpx.Client(
            base_url=stack.base_url, headers={"Origin": stack.base_url}, timeout=30
        ) as admin,
    ):
        login = {"email": admin_login["email"], "password": admin_login["password"]}
        assert admin.post("/login", data=login).status_code == 303
        for case, write in _writes(full, admin, workspace.id):
            rows.extend(_rows(case, _observe(stack.recorder, write)))
    return rows
