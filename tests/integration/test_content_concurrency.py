"""Concurrent writes through real HTTP: no lost update, one winner per state change, one source
per exclusive target, and exactly one event per successful write.

These need the emulator's transactions atomic, as DynamoDB's are: moto's own are not between
threads; the emulator installs infra/moto_transactions.py, which makes them atomic.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from infra.local_stack import LocalStack
from tests.support.clients import ClientFactory, WorkspaceAccess
from tests.support.content import (
    Storage,
    create,
    define,
)

NewWorkspace = Callable[..., WorkspaceAccess]


def parallel(calls: list[Callable[[], httpx.Response]]) -> list[httpx.Response]:
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_concurrent_patches_lose_no_update(
    new_workspace: NewWorkspace, make_client: ClientFactory, stack: LocalStack
) -> None:
    workspace = new_workspace()
    fields = [{"name": f"f{i}", "type": "integer"} for i in range(8)]
    define(workspace.full, "counter", fields)
    entry = create(workspace.full, "counter", {})
    path = f"/api/v1/content/counter/{entry['id']}"
    clients = [make_client(workspace.full_token) for _ in fields]

    def patch(i: int) -> Callable[[], httpx.Response]:
        return lambda: clients[i].patch(path, json={"values": {f"f{i}": i}})

    responses = parallel([patch(i) for i in range(len(fields))])
    ok = [r for r in responses if r.status_code == 200]
    # A write that lost every retry answers 409 and wrote nothing; the rest all landed.
    assert all(r.status_code in (200, 409) for r in responses), [r.text for r in responses]
    final = workspace.full.get(path).json()["values"]
    landed = {k for k, v in final.items() if v is not None}
    assert len(landed) == len(ok)
    assert len(ok) >= len(fields) - 2
    kinds = [e["kind"] for e in Storage(stack).events_of(workspace.id, entry["id"])]
    assert kinds == ["entry.created"] + ["entry.updated"] * len(ok)


def test_one_of_concurrent_publishes_wins(
    new_workspace: NewWorkspace, make_client: ClientFactory, stack: LocalStack
) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    entry = create(workspace.full, "note", {"text": "x"})
    clients = [make_client(workspace.full_token) for _ in range(5)]
    responses = parallel(
        [
            (lambda c=c: c.post(f"/api/v1/content/note/{entry['id']}/publish"))  # type: ignore[misc]
            for c in clients
        ]
    )
    assert sorted(r.status_code for r in responses) == [200, 409, 409, 409, 409]
    kinds = [e["kind"] for e in Storage(stack).events_of(workspace.id, entry["id"])]
    assert kinds == ["entry.created", "entry.published"]


def test_one_source_wins_an_exclusive_target(
    new_workspace: NewWorkspace, make_client: ClientFactory, stack: LocalStack
) -> None:
    workspace = new_workspace()
    define(workspace.full, "image", [{"name": "url", "type": "string"}])
    define(
        workspace.full,
        "post",
        [{"name": "cover", "type": "relation", "target": "image", "cardinality": "one-to-one"}],
    )
    image = create(workspace.full, "image", {"url": "u"})
    clients = [make_client(workspace.full_token) for _ in range(4)]
    body: dict[str, Any] = {"relations": {"cover": {"link": [image["id"]]}}}
    responses = parallel(
        [(lambda c=c: c.post("/api/v1/content/post", json=body)) for c in clients]  # type: ignore[misc]
    )
    assert sorted(r.status_code for r in responses) == [201, 409, 409, 409]
    created = [e for e in Storage(stack).events(workspace.id) if e["data"]["contentType"] == "post"]
    assert len(created) == 1
