"""`content-service listen` as a developer runs it: a real process against the test stack's API.

It signs in as the administrator, creates a temporary pull endpoint, prints the signing secret
and forwards the deliveries it fetches to a receiver on 127.0.0.1; the signatures are checked
with Stripe's verifier and the printed secret. Ctrl-C (SIGINT) ends it cleanly: exit code 0, the
temporary endpoint deleted.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import IO, Any

import httpx
import pytest

from harness.receiver import Answer, Receiver
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.webhooks import stripe_accepts, write_event

SECRET = re.compile(r"Your webhook signing secret is (whsec_[A-Za-z0-9_-]{43})")
ENDPOINT = re.compile(r"Temporary pull endpoint: ([0-9a-f-]{36})")


def _lines(stream: IO[str], into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line.rstrip("\n"))


def _wait_for(lines: queue.Queue[str], pattern: re.Pattern[str], seen: list[str]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        seen.append(line)
        match = pattern.search(line)
        if match:
            return match.group(1)
    raise AssertionError(f"never printed {pattern.pattern!r}; printed {seen}")


def _drain(lines: queue.Queue[str]) -> list[str]:
    """What the listener printed that no check has read yet."""
    rest = []
    while not lines.empty():
        rest.append(lines.get_nowait())
    return rest


@pytest.fixture
def listener(
    base_url: str, credentials: dict[str, Any], receiver: Receiver, new_workspace: Any
) -> Iterator[tuple[subprocess.Popen[str], queue.Queue[str], WorkspaceAccess]]:
    workspace: WorkspaceAccess = new_workspace()
    env = {**os.environ, "CONTENT_SERVICE_PASSWORD": credentials["admin"]["password"]}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "content_service.cli",
            "listen",
            "--api-url",
            base_url,
            "--email",
            credentials["admin"]["email"],
            "--forward-to",
            receiver.url("/local-hook"),
            "--events",
            "entry.published,entry.created",
            "--workspace",
            workspace.id,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(process.stdout, lines), daemon=True).start()
    yield process, lines, workspace
    if process.poll() is None:
        process.kill()
        process.wait(10)


def test_listen_forwards_signed_events_and_stops_cleanly_on_ctrl_c(
    stack: LocalStack,
    admin_session: httpx.Client,
    receiver: Receiver,
    listener: tuple[subprocess.Popen[str], queue.Queue[str], WorkspaceAccess],
) -> None:
    process, lines, workspace = listener
    printed: list[str] = []
    secret = _wait_for(lines, SECRET, printed)
    endpoint_id = _wait_for(lines, ENDPOINT, printed)
    endpoint = admin_session.get(f"/api/webhooks/{endpoint_id}").json()
    assert endpoint["mode"] == "pull"
    assert endpoint["secretHint"] == secret[-4:]
    receiver.always(Answer(200, b"local app got it"))

    events = [
        write_event(workspace_id=workspace.id, kind="entry.published", title="One"),
        write_event(workspace_id=workspace.id, kind="entry.created", title="Two"),
        write_event(workspace_id=workspace.id, kind="entry.updated", title="not subscribed"),
        write_event(workspace_id=workspace.id, kind="entry.published", title="Three"),
    ]
    stack.drain()
    deadline = time.monotonic() + 60
    while len(receiver.requests) < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(receiver.requests) == 3, printed
    wanted = {e["id"] for e in events if e["kind"] != "entry.updated"}
    assert {r.header("X-Service-Event-Id") for r in receiver.requests} == wanted
    for request in receiver.requests:
        assert request.path == "/local-hook"
        assert stripe_accepts(request, secret)
        body = json.loads(request.body)
        assert request.header("X-Service-Event") == body["event"]
        assert request.header("X-Service-Delivery") == body["id"]
        assert request.header("X-Service-Workspace") == workspace.id

    process.send_signal(signal.SIGINT)
    try:
        assert process.wait(30) == 0
    except subprocess.TimeoutExpired:
        pytest.fail(f"listen went on after Ctrl-C; it printed: {printed + _drain(lines)}")
    stopped = _wait_for(lines, re.compile(r"(Stopped\. Temporary endpoint \S+ deleted\.)"), printed)
    assert endpoint_id in stopped
    assert any("<-- [200] POST" in line for line in printed)
    assert admin_session.get(f"/api/webhooks/{endpoint_id}").status_code == 404
    assert all(secret not in line for line in printed if "signing secret" not in line)
