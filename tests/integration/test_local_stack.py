"""The local stack as `make run` and the fixtures use it: durable state, API, clean stop."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from content_service.settings import Settings
from harness.ports import free_port
from infra import REPO_ROOT, journal, moto_journal
from infra.api_workers import WorkerProcesses
from infra.durable_state import DurableState
from infra.emulator import Emulator, EmulatorError
from infra.lambda_runtime import Handler
from infra.local_stack import LocalStack, LocalStackOptions, default_app_factory
from infra.provisioning import Provisioned, provision
from infra.snapshot import SnapshotFile
from infra.template_model import Template
from tests.support.waiting import answers_healthz, wait_until

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import AttributeValueTypeDef, WriteRequestTypeDef


class Recorder:
    """A stand-in handler that remembers the event ids it was given."""

    def __init__(self) -> None:
        self.event_ids: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        with self._lock:
            for record in event.get("Records", []):
                self.event_ids.append(record["dynamodb"]["Keys"]["id"]["S"])
        return {"batchItemFailures": []}


def _ignore(event: Any, context: Any) -> None:
    return None


def _options(
    emulator: Emulator, local_dir: Path, prefix: str, fanout: Recorder
) -> LocalStackOptions:
    return LocalStackOptions(
        emulator=emulator,
        local_dir=local_dir,
        port=0,
        prefix=prefix,
        api=False,
        bootstrap=False,
        user_env={},
        time_scale=0.01,
        stream_poll_interval_s=0.02,
        handler_overrides={
            "FanoutFunction": fanout,
            "DeliveryFunction": _ignore,
            "SchedulerFunction": _ignore,
        },
        resumer=None,
    )


def test_state_survives_a_restart_and_restored_events_are_not_replayed(
    emulator: Emulator, tmp_path: Path
) -> None:
    local_dir = tmp_path / ".local"
    first_fanout = Recorder()
    options = _options(emulator, local_dir, "snap1-", first_fanout)
    with LocalStack(options) as stack:
        client = stack.emulator.dynamodb()
        client.put_item(
            TableName="snap1-ContentTable",
            Item={"pk": {"S": "ws#1"}, "sk": {"S": "entry#1"}, "title": {"S": "Hello"}},
        )
        client.put_item(TableName="snap1-EventsTable", Item={"id": {"S": "old-event"}})
        wait_until(lambda: first_fanout.event_ids == ["old-event"], message="the first fan-out")
    saved = json.loads((local_dir / "state.json").read_text())
    assert saved["tables"]["EventsTable"] == [{"id": {"S": "old-event"}}]

    # Another prefix stands for a fresh emulator: moto's state is per process, so even a new
    # server would still hold the first run's tables.
    second_fanout = Recorder()
    overrides: dict[str, Handler] = {
        **(options.handler_overrides or {}),
        "FanoutFunction": second_fanout,
    }
    with LocalStack(replace(options, prefix="snap2-", handler_overrides=overrides)) as stack:
        assert stack.restored_items == 2
        client = stack.emulator.dynamodb()
        entry = client.get_item(
            TableName="snap2-ContentTable", Key={"pk": {"S": "ws#1"}, "sk": {"S": "entry#1"}}
        )
        assert entry["Item"]["title"] == {"S": "Hello"}
        assert client.get_item(TableName="snap2-EventsTable", Key={"id": {"S": "old-event"}})[
            "Item"
        ]
        client.put_item(TableName="snap2-EventsTable", Item={"id": {"S": "new-event"}})
        wait_until(lambda: "new-event" in second_fanout.event_ids, message="the new event")
    assert second_fanout.event_ids == ["new-event"]


EVERY_TYPE: dict[str, AttributeValueTypeDef] = {
    "pk": {"S": "p"},
    "sk": {"S": "s"},
    "n": {"N": "1.5"},
    "b": {"B": b"\x00\xffbytes"},
    "bs": {"BS": [b"a", b"b"]},
    "ss": {"SS": ["x", "y"]},
    "ns": {"NS": ["1", "2"]},
    "flag": {"BOOL": True},
    "nothing": {"NULL": True},
    "map": {"M": {"inner": {"B": b"\x01"}, "list": {"L": [{"S": "a"}, {"N": "2"}]}}},
}


def _crash(state: DurableState) -> None:
    """What a kill -9 leaves: the journal as written, no final compaction."""
    moto_journal.unregister(state)


def _table_items(emulator: Emulator, provisioned: Provisioned, logical_id: str) -> list[Any]:
    pages = (
        emulator.dynamodb()
        .get_paginator("scan")
        .paginate(TableName=provisioned.tables[logical_id].name, ConsistentRead=True)
    )
    return sorted(
        (_sorted_sets(item) for page in pages for item in page.get("Items", [])), key=repr
    )


def test_every_acknowledged_write_survives_a_crash_through_the_journal(
    emulator: Emulator, tmp_path: Path
) -> None:
    template = Template.load()
    client = emulator.dynamodb()
    source = provision(emulator, template, prefix="jr1-")
    first = DurableState(tmp_path, source.tables)
    assert first.open(client) == 0
    content, events = source.tables["ContentTable"].name, source.tables["EventsTable"].name
    client.put_item(TableName=content, Item=EVERY_TYPE)
    client.put_item(TableName=content, Item={"pk": {"S": "p"}, "sk": {"S": "gone"}})
    client.update_item(
        TableName=content,
        Key={"pk": {"S": "p"}, "sk": {"S": "s"}},
        UpdateExpression="SET n = n + :one REMOVE flag",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )
    client.delete_item(TableName=content, Key={"pk": {"S": "p"}, "sk": {"S": "gone"}})
    with pytest.raises(client.exceptions.ConditionalCheckFailedException):
        client.put_item(
            TableName=content,
            Item={"pk": {"S": "p"}, "sk": {"S": "s"}},
            ConditionExpression="attribute_not_exists(pk)",
        )
    puts: list[WriteRequestTypeDef] = [
        {"PutRequest": {"Item": {"pk": {"S": "b"}, "sk": {"S": str(i)}}}} for i in range(30)
    ]
    client.batch_write_item(RequestItems={content: puts[:25]})
    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": events, "Item": {"id": {"S": "event-1"}}}},
            {"Delete": {"TableName": content, "Key": {"pk": {"S": "b"}, "sk": {"S": "0"}}}},
        ]
    )
    expected = {logical: _table_items(emulator, source, logical) for logical in source.tables}
    assert len(expected["ContentTable"]) == 25
    _crash(first)

    target = provision(emulator, template, prefix="jr2-")
    second = DurableState(tmp_path, target.tables)
    assert second.open(client) == 26
    for logical in source.tables:
        assert _table_items(emulator, target, logical) == expected[logical], logical
    # The start folded the journal into the snapshot, one point in time.
    saved = SnapshotFile(tmp_path / "state.json").load()
    assert sum(len(items) for items in saved.tables.values()) == 26
    assert [p.name for p in (tmp_path / "journal").iterdir()] == [
        f"{saved.journal_segment:08d}.jsonl"
    ]
    second.close()


@pytest.mark.parametrize("aside", [False, True], ids=["in-process", "in-a-child-process"])
def test_compaction_keeps_writes_made_meanwhile_and_a_torn_line_is_ignored(
    emulator: Emulator, tmp_path: Path, aside: bool
) -> None:
    """`compact_aside` is what the serving stack's housekeeping runs: the same fold, in a
    process of its own."""
    template = Template.load()
    client = emulator.dynamodb()
    source = provision(emulator, template, prefix="jc1-")
    state = DurableState(tmp_path, source.tables)
    state.open(client)
    table = source.tables["EndpointsTable"].name
    client.put_item(TableName=table, Item={"id": {"S": "before"}})
    assert (state.compact_aside() if aside else state.compact()) == 1
    saved = SnapshotFile(tmp_path / "state.json").load()
    assert saved.tables["EndpointsTable"] == [{"id": {"S": "before"}}]
    assert [p.name for p in (tmp_path / "journal").iterdir()] == [
        f"{saved.journal_segment:08d}.jsonl"
    ]
    client.put_item(TableName=table, Item={"id": {"S": "after"}})
    _crash(state)
    (segment,) = (tmp_path / "journal").iterdir()
    with segment.open("ab") as handle:
        handle.write(b'{"w":[["EndpointsTable",{"id":{"S":"torn"}},{"id":')  # killed mid-append

    target = provision(emulator, template, prefix="jc2-")
    restored = DurableState(tmp_path, target.tables)
    assert restored.open(client) == 2
    ids = {i["id"]["S"] for i in _table_items(emulator, target, "EndpointsTable")}
    assert ids == {"before", "after"}
    restored.close()


def _sorted_sets(item: dict[str, Any]) -> dict[str, Any]:
    """Sets come back in any order."""
    return {
        name: {kind: sorted(v) if kind in ("SS", "NS", "BS") else v for kind, v in value.items()}
        for name, value in item.items()
    }


def test_an_unreadable_snapshot_is_moved_aside_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("{not json")
    assert SnapshotFile(path).load().tables == {}
    assert not path.exists()
    (aside,) = tmp_path.glob("state.json.unreadable-*")
    assert aside.read_text() == "{not json"


def _stand_in_app(settings: Settings) -> FastAPI:
    app = FastAPI()

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {
            "contentTable": settings.tables.content,
            "envContentTable": os.environ.get("CONTENT_TABLE", ""),
            "endpoint": settings.aws_endpoint_url or "",
        }

    return app


def test_the_api_serves_on_a_bound_port_after_bootstrap_with_the_stack_environment(
    emulator: Emulator, tmp_path: Path
) -> None:
    bootstrapped: list[str] = []

    def stand_in_bootstrap(settings: Settings, base_url: str, local_dir: Path) -> dict[str, str]:
        bootstrapped.append(base_url)
        return {"token": "t"}

    before = os.environ.get("CONTENT_TABLE")
    options = LocalStackOptions(
        emulator=emulator,
        local_dir=tmp_path,
        port=0,
        prefix="api-",
        pollers=False,
        durable=False,
        user_env={},
        app_factory=_stand_in_app,
        bootstrapper=stand_in_bootstrap,
    )
    with LocalStack(options) as stack:
        assert stack.base_url is not None
        assert bootstrapped == [stack.base_url]
        assert stack.credentials == {"token": "t"}
        with urllib.request.urlopen(f"{stack.base_url}/healthz", timeout=5) as response:
            body = json.loads(response.read())
        assert body == {
            "contentTable": "api-ContentTable",
            "envContentTable": "api-ContentTable",
            "endpoint": stack.emulator.endpoint_url,
        }
    assert os.environ.get("CONTENT_TABLE") == before
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{stack.base_url}/healthz", timeout=1)


def test_a_taken_emulator_port_fails_the_start_cleanly(emulator: Emulator, tmp_path: Path) -> None:
    stack = LocalStack(
        LocalStackOptions(local_dir=tmp_path, moto_port=emulator.port, api=False, user_env={})
    )
    with pytest.raises(EmulatorError, match="MOTO_PORT"):
        stack.start()
    stack.stop()


@pytest.fixture
def make_run(tmp_path: Path) -> Iterator[Callable[[], tuple[subprocess.Popen[str], str, Path]]]:
    """Starts `python -m infra.local_stack` as `make run` does, on free ports, in a process group
    of its own (as a shell starts a job): a signal to the group reaches the stack alone."""
    started: list[subprocess.Popen[str]] = []

    def start() -> tuple[subprocess.Popen[str], str, Path]:
        port, moto_port = free_port(), free_port()
        local_dir = tmp_path / ".local"
        env = {
            **os.environ,
            "PORT": str(port),
            "MOTO_PORT": str(moto_port),
            "LOCAL_DIR": str(local_dir),
            "PYTHONUNBUFFERED": "1",
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "infra.local_stack"],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            process_group=0,
        )
        started.append(process)
        return process, f"http://127.0.0.1:{port}", local_dir

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def _healthy(process: subprocess.Popen[str], base_url: str) -> bool:
    if process.poll() is not None:
        output = process.stdout.read() if process.stdout else ""
        raise AssertionError(f"the stack exited with {process.returncode}:\n{output}")
    return answers_healthz(base_url)


@pytest.mark.slow
def test_make_run_serves_until_ctrl_c_and_exits_zero(
    make_run: Callable[[], tuple[subprocess.Popen[str], str, Path]],
) -> None:
    process, base_url, local_dir = make_run()
    wait_until(lambda: _healthy(process, base_url), timeout=60, message="GET /healthz")
    # stack.json is written once everything, pollers included, has started.
    wait_until((local_dir / "stack.json").exists, timeout=30, message="stack.json")
    stack_file = json.loads((local_dir / "stack.json").read_text())
    assert stack_file["baseUrl"] == base_url
    assert stack_file["env"]["AWS_ENDPOINT_URL"] == stack_file["awsEndpointUrl"]
    assert stack_file["env"]["CONTENT_TABLE"] == "ContentTable"
    assert stack_file["env"]["PUBLIC_BASE_URL"] == base_url
    # `make run` holds every AWS request of the app to AWS's rules (request_check).
    assert stack_file["env"]["AWS_REQUEST_CHECK"] == "on"
    assert "ContentTable" in json.loads(stack_file["env"]["AWS_REQUEST_CHECK_TABLES"])
    assert (local_dir / "session.key").stat().st_mode & 0o777 == 0o600

    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: every process of the group
    output, _ = process.communicate(timeout=30)

    assert process.returncode == 0, output
    assert "Traceback" not in output
    assert "Credentials" in output
    for url in ("/api/v1/graphql", "/webhooks", "/login", "/healthz"):
        assert f"{base_url}{url}" in output
    assert (local_dir / "state.json").exists()
    assert not (local_dir / "stack.json").exists()
    assert time.time() - (local_dir / "state.json").stat().st_mtime < 60


def _create_note_type(base_url: str, local_dir: Path) -> str:
    """Creates the content type `note` with the bootstrap's full token, which it returns."""
    token: str = json.loads((local_dir / "bootstrap.json").read_text())["tokens"]["full"]
    request = urllib.request.Request(
        f"{base_url}/api/v1/content-types",
        data=json.dumps({"name": "note", "fields": [{"name": "title", "type": "string"}]}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as created:
        assert created.status == 201
    return token


def _note_type_name(base_url: str, token: str) -> str:
    read = urllib.request.Request(
        f"{base_url}/api/v1/content-types/note", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(read, timeout=30) as found:
        return str(json.loads(found.read())["name"])


def _stopped_cleanly(process: subprocess.Popen[str], how: signal.Signals, local_dir: Path) -> str:
    """Sends `how` to the stack's whole process group (as systemd's stop and Ctrl-C do) and
    checks the stop was the clean one: exit 0, no traceback, the saved-state line."""
    os.killpg(process.pid, how)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert "Traceback" not in output, output
    assert "Broken pipe" not in output, output
    assert f"item(s) to {local_dir / 'state.json'}" in output, output
    return output


@pytest.mark.slow
def test_sigterm_to_the_process_group_stops_as_cleanly_as_ctrl_c(
    make_run: Callable[[], tuple[subprocess.Popen[str], str, Path]],
) -> None:
    """SIGTERM to every process of the stack (systemd's stop, `kill -TERM -PGID`) reaches the
    emulator's process too, which leaves the stop to the supervisor: the API stops, the
    emulator saves a last snapshot, and the next start restores it with no journal to replay."""
    process, base_url, local_dir = make_run()
    wait_until(lambda: _healthy(process, base_url), timeout=120, message="GET /healthz")
    wait_until((local_dir / "stack.json").exists, timeout=30, message="stack.json")
    token = _create_note_type(base_url, local_dir)

    _stopped_cleanly(process, signal.SIGTERM, local_dir)

    snapshot = SnapshotFile(local_dir / "state.json").load()
    saved = [item for items in snapshot.tables.values() for item in items]
    assert {"S": "TYPE#note"} in [item.get("sk") for item in saved]
    unfolded = [
        changes
        for path in journal.segments(local_dir / "journal")
        if journal.segment_number(path) >= snapshot.journal_segment
        for changes in journal.read(path)
    ]
    assert unfolded == []

    again, base_url, _ = make_run()
    wait_until(lambda: _healthy(again, base_url), timeout=120, message="GET /healthz again")
    assert _note_type_name(base_url, token) == "note"
    output = _stopped_cleanly(again, signal.SIGTERM, local_dir)
    assert f"item(s) from {local_dir}" in output


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.extend(int(child) for child in text)
    return found


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree in /proc")
def test_make_run_is_a_process_tree_that_dies_with_it_and_resumes_from_the_journal(
    make_run: Callable[[], tuple[subprocess.Popen[str], str, Path]],
) -> None:
    process, base_url, local_dir = make_run()
    wait_until(lambda: _healthy(process, base_url), timeout=120, message="GET /healthz")
    wait_until((local_dir / "stack.json").exists, timeout=30, message="stack.json")
    spawned = [p for p in _children(process.pid) if "spawn_main" in _command_line(p)]
    # The emulator, then one API worker (API_WORKERS) with the environment the app reads: the
    # user's variables and the stack's resolved ones.
    assert len(spawned) == 2, [_command_line(p) for p in _children(process.pid)]
    worker = Path(f"/proc/{max(spawned)}/environ").read_bytes().split(b"\0")
    assert b"LOCAL_DIR=" + str(local_dir).encode() in worker
    assert b"CONTENT_TABLE=ContentTable" in worker
    token = _create_note_type(base_url, local_dir)

    process.kill()  # what a crash of make run does: no stop, no compaction
    process.wait(10)
    wait_until(lambda: not any(_alive(p) for p in spawned), timeout=10, message="children gone")

    again, base_url, _ = make_run()
    wait_until(lambda: _healthy(again, base_url), timeout=120, message="GET /healthz again")
    assert _note_type_name(base_url, token) == "note"

    # The emulator is started first, the API workers once it serves: it has the lowest pid.
    emulator = min(p for p in _children(again.pid) if "spawn_main" in _command_line(p))
    os.kill(emulator, signal.SIGKILL)
    output, _ = again.communicate(timeout=60)
    assert again.returncode == 1, output
    assert "the AWS emulator has stopped" in output


@pytest.fixture
def built_worker(stack: LocalStack) -> Iterator[tuple[WorkerProcesses, str]]:
    """One API worker as `make run` spawns it, its app built, not yet told to serve; and the
    URL of its /healthz."""
    assert stack.settings is not None
    assert stack.settings.session_key_file is not None
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    environment = {**stack.environment, "SESSION_KEY_FILE": str(stack.settings.session_key_file)}
    workers = WorkerProcesses(1, listener, environment, default_app_factory)
    try:
        workers.spawn()
        workers.wait_built()
        yield workers, f"http://127.0.0.1:{listener.getsockname()[1]}/healthz"
    finally:
        workers.stop()
        listener.close()


def test_an_api_worker_takes_no_request_until_the_stack_is_ready(
    built_worker: tuple[WorkerProcesses, str],
) -> None:
    """`make run`'s API workers build their app while the stack restores its state (their
    imports take seconds), and take no request until told to serve: a request sent meanwhile
    gets no answer from tables not yet restored."""
    workers, url = built_worker
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(url, timeout=1.0)
    workers.start()
    assert httpx.get(url, timeout=10).status_code == 200


def test_an_api_worker_leaves_a_stop_of_the_group_to_the_stack(
    built_worker: tuple[WorkerProcesses, str],
) -> None:
    """Ctrl-C's SIGINT and systemd's SIGTERM reach every process of `make run`'s group, a worker
    still waiting to serve too: it ignores both, so the stack finishes its start and then stops
    cleanly, the worker with it, instead of failing its start on a worker gone."""
    workers, url = built_worker
    for signum in (signal.SIGINT, signal.SIGTERM):
        os.kill(workers.pids[0], signum)
    workers.start()
    assert httpx.get(url, timeout=10).status_code == 200


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_serving_api_worker_stopped_by_a_signal_of_the_group_exits_zero(
    built_worker: tuple[WorkerProcesses, str], signum: signal.Signals
) -> None:
    """A serving worker that Ctrl-C or a SIGTERM of the group reaches before the stack stops it
    finishes as uvicorn stops gracefully, with no KeyboardInterrupt traceback: the signal uvicorn
    raises again after its stop is ignored."""
    workers, _ = built_worker
    workers.start()
    os.kill(workers.pids[0], signum)
    wait_until(lambda: workers.problem() is not None, timeout=30, message="the worker's exit")
    assert (workers.problem() or "").endswith("exited with 0")
