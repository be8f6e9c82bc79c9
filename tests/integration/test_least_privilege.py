"""Each function's role grants what its code uses, no more.

Each function's code paths are run against the test stack, one function at a time, with the
recording proxy capturing every AWS call made meanwhile: the API's routes over HTTP (and its cold
start: binding the identity models, reading the session key from SSM), the fan-out through the
outbox stream, deliveries (and a recovery job) through the queue, and every scheduled job. Each
call is turned into the IAM permissions AWS would check (`infra.permissions`) and held against
that function's policy statements in template.yaml (its `Policies`, and the KMS key policy
statements naming its role): every call must be allowed, every grant must have been used, and
so taking any one statement away must refuse a call. The fan-out and the scheduler read
endpoints but must never open a sealed secret: any KMS call of theirs is refused.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from content_service import runtime
from content_service.api.session_key import load_session_key
from content_service.clock import iso_utc
from content_service.identity.tokens import TokenSpec, create_token
from content_service.identity.workspaces import create_workspace
from content_service.storage import sealing
from content_service.webhooks import wiring
from harness.receiver import Answer, Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from infra.permissions import (
    Permission,
    Resources,
    Statement,
    function_policy,
    refused,
    required,
    short,
    unused,
)
from infra.request_recorder import RecordedCall
from tests.support.assets import new_asset, png
from tests.support.clients import WorkspaceAccess, sign_in
from tests.support.content import define
from tests.support.settings import settings_changed, webhook_options
from tests.support.webhooks import function_runtime

FUNCTIONS = (
    "ApiFunction",
    "FanoutFunction",
    "PurgeFunction",
    "DeliveryFunction",
    "SchedulerFunction",
)


def drain(pollers: list[Any]) -> None:
    """Runs these pollers until none has work left."""
    for _ in range(100):
        if not any([poller.poll_once() for poller in pollers]):
            return
    raise AssertionError("still busy after 100 rounds")


class Run:
    """Runs steps as one function: what the recorder sees meanwhile is that function's."""

    def __init__(self, stack: LocalStack) -> None:
        assert stack.recorder is not None
        self.stack = stack
        self.recorder = stack.recorder
        self.calls: dict[str, list[RecordedCall]] = {name: [] for name in FUNCTIONS}

    def as_function(self, name: str, step: Callable[[], Any]) -> Any:
        # Each function is its own process on Lambda: none finds a data key another opened.
        sealing.forget_data_keys()
        with self.recorder.capture() as calls:
            result = step()
        self.calls[name].extend(calls)
        return result

    def streams(self, function: str) -> None:
        """The outbox stream's records, as `function` (one of its two consumers) reads them."""
        pollers = self.stack.pollers
        assert pollers is not None
        mine = [p for p in pollers.streams if p.runtime.logical_id == function]
        self.as_function(function, lambda: drain(mine))

    def fanout(self) -> None:
        self.streams("FanoutFunction")

    def deliveries(self) -> None:
        pollers = self.stack.pollers
        assert pollers is not None
        self.as_function("DeliveryFunction", lambda: drain(pollers.queues))

    def tick(self, job: str) -> None:
        self.as_function("SchedulerFunction", lambda: self.stack.tick(job))


def _api_cold_start() -> None:
    """What the API's first invocations do before any route: the identity models bound to their
    table, the session key read from SSM (the tests use a key file; Lambda uses SSM)."""
    settings = runtime.settings()
    runtime.configure(settings)
    load_session_key(dataclasses.replace(settings, session_key_file=None))


def _content(client: httpx.Client) -> None:
    """Content types and entries, every write and read route, and GraphQL."""
    define(client, "author", [{"name": "name", "type": "string"}])
    fields: list[dict[str, Any]] = [
        {"name": "title", "type": "string", "required": True},
        {"name": "author", "type": "relation", "target": "author", "cardinality": "many-to-one"},
    ]
    define(client, "post", fields, titleField="title")
    author = client.post("/api/v1/content/author", json={"values": {"name": "Ada"}}).json()
    created = client.post(
        "/api/v1/content/post",
        json={"values": {"title": "One"}, "relations": {"author": {"link": [author["id"]]}}},
    ).json()
    entry = f"/api/v1/content/post/{created['id']}"
    assert client.patch(entry, json={"values": {"title": "Two"}}).status_code == 200
    for action in ("publish", "unpublish", "publish"):
        assert client.post(f"{entry}/{action}").status_code == 200
    _workflow(client, entry)
    assert client.get(entry, params={"expand": "author"}).status_code == 200
    assert client.get(f"{entry}/relations/author").status_code == 200
    listing = client.get("/api/v1/content/post", params={"pageSize": 1, "sort": "-updatedAt"})
    assert listing.status_code == 200
    client.get(
        "/api/v1/content/post", params={"filter": '{"field":"title","op":"eq","value":"Two"}'}
    )
    graphql = 'mutation { createAuthor(input: {values: {name: "Bo"}}) { id } }'
    assert "errors" not in client.post("/api/v1/graphql", json={"query": graphql}).json()
    assert (
        "errors" not in client.post("/api/v1/graphql", json={"query": "{ posts { total } }"}).json()
    )
    # A sortable field on a type with entries: its list is re-indexed by the scheduler.
    sortable = {"name": "author", "fields": [{"name": "name", "type": "string", "sortable": True}]}
    assert client.put("/api/v1/content-types/author", json=sortable).status_code == 200
    assert client.delete(entry).status_code == 204
    assert client.post(f"{entry}/restore").status_code == 200
    assert client.delete(entry).status_code == 204
    assert client.delete(f"{entry}/purge").status_code == 204
    define(client, "scratch", [{"name": "x", "type": "string"}])
    assert client.delete("/api/v1/content-types/scratch").status_code == 204
    assert client.get("/api/v1/content-types").status_code == 200


_MIB = 1024 * 1024


class _Endless(BaseHTTPRequestHandler):
    """Answers 10 MiB without a Content-Length: past a 9 MiB cap, after boto3's first 8 MiB
    part, so the import's multipart upload is aborted."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Connection", "close")
        self.end_headers()
        for _ in range(10):
            self.wfile.write(b"x" * _MIB)

    def log_message(self, format: str, *args: object) -> None:
        return


@contextmanager
def _endless_source() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endless)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/big.txt"
    finally:
        server.shutdown()
        server.server_close()


def _assets(client: httpx.Client) -> None:
    """An upload through its presigned POST, completed (ranged read, copy to files/, upload
    deleted) and previewed; an import cut off past the cap once its first part is stored."""
    asset = new_asset(client, png(), "dot.png", "image/png")
    assert httpx.get(asset["previewUrl"]).status_code == 200
    with (
        _endless_source() as url,
        settings_changed(lambda s: dataclasses.replace(s, assets_max_bytes=9 * _MIB)),
    ):
        cut = client.post("/api/v1/assets/uploads", json={"url": url})
    assert cut.status_code == 413, cut.text


def _workflow(client: httpx.Client, entry: str) -> None:
    """The editorial workflow on a published entry: a draft of its next version, discarded and
    written again, the delivery view, its versions (read, restored), a schedule made and
    cancelled, and GraphQL over GET with a persisted query."""
    for step in ("discard", None):
        changed = client.patch(entry, json={"values": {"title": "Three"}})
        assert changed.json()["status"] == "changed", changed.text
        if step:
            assert client.post(f"{entry}/{step}").status_code == 200
    assert client.get(entry, params={"version": "published"}).status_code == 200
    assert client.get(f"{entry}/versions").status_code == 200
    assert client.get(f"{entry}/versions/1").status_code == 200
    assert client.post(f"{entry}/versions/1/restore").status_code == 200
    at = iso_utc(time.time() + 600)
    made = client.post(f"{entry}/schedules", json={"action": "unpublish", "at": at})
    assert made.status_code == 201, made.text
    assert client.get(f"{entry}/schedules").status_code == 200
    assert client.delete(f"{entry}/schedules/{made.json()['id']}").status_code == 204
    query = "{ posts { total } }"
    digest = hashlib.sha256(query.encode()).hexdigest()
    extensions = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": digest}})
    for params in ({"extensions": extensions}, {"query": query, "extensions": extensions}):
        client.get("/api/v1/graphql", params=params)


def _delivery_reads(reader: httpx.Client) -> None:
    """What a site reads with a read token: published versions, listed and filtered."""
    assert reader.get("/api/v1/content/post", params={"sort": "title"}).status_code == 200
    assert reader.get("/api/v1/graphql", params={"query": "{ posts { total } }"}).status_code == 200


def _identity(base_url: str, admin: dict[str, str], workspace: WorkspaceAccess) -> httpx.Client:
    session = httpx.Client(base_url=base_url, headers={"Origin": base_url}, timeout=30)
    wrong = session.post("/login", data={"email": admin["email"], "password": "not it"})
    assert wrong.status_code == 401
    sign_in(session, admin["email"], admin["password"])
    assert session.get("/api/v1/me").status_code == 200
    token = session.post(
        "/api/v1/tokens", json={"name": "lp", "workspaceId": workspace.id, "access": "read"}
    ).json()
    assert session.get("/api/v1/tokens").status_code == 200
    assert session.delete(f"/api/v1/tokens/{token['id']}").status_code == 204
    audit = {"X-Workspace-Id": workspace.id}
    for query in ({}, {"actor": "user:x"}, {"target": f"token:{token['id']}"}):
        assert session.get("/api/v1/audit", params=query, headers=audit).status_code == 200
    assert workspace.read.get("/api/v1/me").status_code == 200
    return session


@pytest.fixture(scope="module")
def recorded(
    stack: LocalStack, base_url: str, credentials: dict[str, Any]
) -> tuple[Run, Resources]:
    assert stack.provisioned is not None
    run, resources = Run(stack), Resources(stack.provisioned)
    workspace = _workspace(base_url)
    with (
        Receiver() as receiver,
        webhook_options(allow_private_networks=True, allow_insecure_urls=True),
    ):
        run.as_function("ApiFunction", _api_cold_start)
        admin = run.as_function(
            "ApiFunction", lambda: _identity(base_url, credentials["admin"], workspace)
        )
        hooks = _webhooks(run, admin, receiver, workspace)
        run.as_function("ApiFunction", lambda: _content(workspace.full))
        run.as_function("ApiFunction", lambda: _delivery_reads(workspace.read))
        run.as_function("ApiFunction", lambda: _assets(workspace.full))
        run.fanout()
        # The edge purge: the distribution invalidated, the types relating to a changed one read.
        run.streams("PurgeFunction")
        receiver.always(Answer(500, b"down"))
        run.deliveries()
        _operations(run, admin, hooks, receiver)
        _scheduled(run, workspace.full, receiver)
        hooks["doomed"] = _notices(run, admin, workspace, receiver, hooks)
        run.as_function("ApiFunction", lambda: _cleanup(admin, hooks))
        run.as_function("ApiFunction", lambda: admin.post("/logout"))
        for client in (admin, workspace.full, workspace.read):
            client.close()
    return run, resources


def _workspace(base_url: str) -> WorkspaceAccess:
    """A workspace of this module's own, with a full and a read token (made outside any
    function: the CLI's bootstrap makes them)."""
    slug = f"lp-{uuid.uuid4().hex[:10]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    tokens = {
        # The read token's own rate (the tests' default is none): its requests are counted.
        access: create_token(
            TokenSpec(
                name=access,
                workspace_id=workspace.id,
                access=access,
                rate_limit=1000 if access == "read" else None,
            )
        )[0]
        for access in ("full", "read")
    }
    clients = {
        access: httpx.Client(
            base_url=base_url,
            headers={"Origin": base_url, "Authorization": f"Bearer {token}"},
            timeout=30,
        )
        for access, token in tokens.items()
    }
    return WorkspaceAccess(
        workspace.id, slug, tokens["full"], tokens["read"], clients["full"], clients["read"]
    )


def _webhooks(
    run: Run, admin: httpx.Client, receiver: Receiver, workspace: WorkspaceAccess
) -> dict[str, str]:
    def create() -> dict[str, str]:
        push = admin.post(
            "/api/webhooks", json={"url": receiver.url("/in"), "workspaces": [workspace.id]}
        ).json()
        pull = admin.post(
            "/api/webhooks",
            json={"url": "http://localhost:3000/", "workspaces": [workspace.id], "mode": "pull"},
        ).json()
        base = f"/api/webhooks/{push['id']}"
        assert admin.get("/api/webhooks").status_code == 200
        assert admin.patch(base, json={"headers": {"Authorization": "Bearer x"}}).is_success
        assert admin.post(f"{base}/rotate-secret").is_success
        assert admin.post(f"{base}/test").json()["ok"]
        for page in ("/webhooks", f"/webhooks/{push['id']}", "/webhooks/new"):
            assert admin.get(page).status_code == 200
        return {"push": push["id"], "pull": pull["id"]}

    created: dict[str, str] = run.as_function("ApiFunction", create)
    return created


def _operations(run: Run, admin: httpx.Client, hooks: dict[str, str], receiver: Receiver) -> None:
    base = f"/api/webhooks/{hooks['push']}"

    def log_and_retry() -> None:
        log = admin.get(f"{base}/deliveries", params={"limit": 1}).json()
        admin.get(f"{base}/deliveries", params={"limit": 1, "cursor": log["nextCursor"]})
        failed = log["items"][0]["id"]
        assert admin.get(f"{base}/deliveries/{failed}").is_success
        assert admin.post(f"{base}/deliveries/{failed}/retry").status_code == 202
        assert admin.post(f"{base}/deliveries/{failed}/redeliver").status_code == 202
        since = iso_utc(time.time() - 600)
        job = admin.post(f"{base}/recover", json={"since": since}).json()
        assert admin.get(f"{base}/recoveries/{job['id']}").is_success
        assert admin.patch(base, json={"enabled": False}).is_success
        assert admin.patch(base, json={"enabled": True}).is_success
        with wiring.overridden(clock=FakeClock(time.time() + 5)):
            pull = f"/api/webhooks/{hooks['pull']}/pull"
            assert admin.post(pull, json={"wait": 0}).is_success

    run.as_function("ApiFunction", log_and_retry)
    receiver.always(Answer(204))
    run.deliveries()
    run.fanout()
    # Deliveries that die: the endpoint's count of dead deliveries moves.
    receiver.always(Answer(410, b"gone"))
    run.as_function("ApiFunction", lambda: admin.post(f"{base}/test"))
    write = run.as_function(
        "ApiFunction",
        lambda: admin.get(f"{base}/deliveries", params={"status": "succeeded"}).json(),
    )
    assert write["items"]
    run.as_function(
        "ApiFunction",
        lambda: admin.post(f"{base}/deliveries/{write['items'][0]['id']}/redeliver"),
    )
    run.deliveries()


def _scheduled(run: Run, writer: httpx.Client, receiver: Receiver) -> None:
    """Every job, each with work to do: an event fanned out whose message was lost (the sweep
    queues it again), an event never fanned out (the sweep reconciles it), a list to index, a
    publish come due, the resume an operator runs, and finished deliveries old enough to prune."""
    stack = run.stack
    receiver.always(Answer(204))

    def write(name: str) -> None:
        created = writer.post("/api/v1/content/author", json={"values": {"name": name}})
        assert created.status_code == 201, created.text

    run.as_function("ApiFunction", lambda: write("Lost message"))
    run.fanout()
    run.as_function("ApiFunction", lambda: write("Never fanned out"))
    scheduler = function_runtime(stack, "SchedulerFunction")
    due = writer.post("/api/v1/content/author", json={"values": {"name": "Due"}}).json()
    at = iso_utc(time.time() + 600)
    scheduled = writer.post(
        f"/api/v1/content/author/{due['id']}/schedules", json={"action": "publish", "at": at}
    )
    assert scheduled.status_code == 201, scheduled.text
    with wiring.overridden(clock=FakeClock(time.time() + 3600)):
        run.tick("Sweep")
        run.tick("Lists")
        run.tick("Schedules")
        run.as_function("SchedulerFunction", lambda: scheduler.invoke({"job": "resume"}))
    run.deliveries()
    run.fanout()
    run.deliveries()
    with wiring.overridden(clock=FakeClock(time.time() + 40 * 86400)):
        run.tick("Prune")


def _notices(
    run: Run,
    admin: httpx.Client,
    workspace: WorkspaceAccess,
    receiver: Receiver,
    hooks: dict[str, str],
) -> str:
    """An endpoint (Standard Webhooks, rotated with a grace hour) whose every delivery dies:
    failing, then disabled, each notice through the outbox; then its stats. The other endpoint
    gets a rate limit first, so its sends meanwhile go through the limiter (a held send would
    keep the doomed endpoint's deaths from happening within the drains)."""
    receiver.always(Answer(500, b"down"))
    limited = admin.patch(f"/api/webhooks/{hooks['push']}", json={"rateLimit": 50})
    assert limited.is_success, limited.text

    def create() -> str:
        made = admin.post(
            "/api/webhooks",
            json={
                "url": receiver.url("/doomed"),
                "workspaces": [workspace.id],
                "signatureScheme": "standard",
            },
        )
        assert made.status_code == 201, made.text
        endpoint_id = str(made.json()["id"])
        rotated = admin.post(
            f"/api/webhooks/{endpoint_id}/rotate-secret", json={"graceSeconds": 3600}
        )
        assert rotated.is_success, rotated.text
        return endpoint_id

    doomed: str = run.as_function("ApiFunction", create)
    with webhook_options(max_attempts=1, auto_disable_after=2):
        for name in ("Dies once", "Dies twice"):

            def write(name: str = name) -> httpx.Response:
                return workspace.full.post(
                    "/api/v1/content/author", json={"values": {"name": name}}
                )

            run.as_function("ApiFunction", write)
            run.fanout()
            run.deliveries()
    run.fanout()
    run.deliveries()
    stats = run.as_function("ApiFunction", lambda: admin.get(f"/api/webhooks/{doomed}/stats"))
    assert stats.status_code == 200, stats.text
    assert admin.get(f"/api/webhooks/{doomed}").json()["enabled"] is False
    return doomed


def _cleanup(admin: httpx.Client, hooks: dict[str, str]) -> None:
    for endpoint_id in hooks.values():
        assert admin.delete(f"/api/webhooks/{endpoint_id}").status_code == 204


def _needed(calls: list[RecordedCall], resources: Resources) -> list[Permission]:
    return [p for call in calls for p in required(call, resources)]


def _report(permissions: list[Permission]) -> str:
    return "\n".join(f"  {p.action} on {short(p.resource)}" for p in sorted(set(permissions)))


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_role_allows_every_call_its_code_makes(
    recorded: tuple[Run, Resources], stack: LocalStack, function: str
) -> None:
    run, resources = recorded
    assert stack.provisioned is not None
    needed = _needed(run.calls[function], resources)
    assert needed, f"{function}'s code paths made no AWS call"
    statements = function_policy(stack.provisioned, function)
    missing = refused(statements, needed)
    assert not missing, f"{function}'s policy refuses what its code does:\n{_report(missing)}"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_role_grants_nothing_its_code_does_not_use(
    recorded: tuple[Run, Resources], stack: LocalStack, function: str
) -> None:
    run, resources = recorded
    assert stack.provisioned is not None
    statements = function_policy(stack.provisioned, function)
    extra = unused(statements, _needed(run.calls[function], resources))
    assert not extra, f"{function}'s policy grants what its code never uses:\n{_report(extra)}"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_taking_any_statement_away_refuses_a_call(
    recorded: tuple[Run, Resources], stack: LocalStack, function: str
) -> None:
    run, resources = recorded
    assert stack.provisioned is not None
    statements = function_policy(stack.provisioned, function)
    needed = _needed(run.calls[function], resources)
    for index in range(len(statements)):
        fewer: list[Statement] = statements[:index] + statements[index + 1 :]
        assert refused(fewer, needed), f"{function}: statement {index} is not needed"
