"""The local stack as `make run` and the fixtures use it: restart with state, API, clean stop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from content_service.settings import Settings
from infra import REPO_ROOT
from infra.emulator import Emulator, EmulatorError
from infra.lambda_runtime import Handler
from infra.local_stack import LocalStack, LocalStackOptions
from infra.provisioning import provision
from infra.snapshot import Snapshots
from infra.template_model import Template
from tests.conftest_infra import free_port, wait_until


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator(port=0) as running:
        yield running


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


def test_snapshots_round_trip_every_attribute_type_and_write_atomically(
    emulator: Emulator, tmp_path: Path
) -> None:
    template = Template.load()
    item = {
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
    path = tmp_path / "state.json"
    client = emulator.dynamodb()
    source = provision(emulator, template, prefix="rt1-")
    client.put_item(TableName="rt1-ContentTable", Item=item)  # type: ignore[arg-type]
    assert Snapshots(path, client, source.tables).save() == 1
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]

    target = provision(emulator, template, prefix="rt2-")
    assert Snapshots(path, client, target.tables).restore() == 1
    restored = client.get_item(
        TableName="rt2-ContentTable", Key={"pk": {"S": "p"}, "sk": {"S": "s"}}
    )["Item"]
    assert _sorted_sets(restored) == _sorted_sets(item)


def _sorted_sets(item: dict[str, Any]) -> dict[str, Any]:
    """Sets come back in any order."""
    return {
        name: {kind: sorted(v) if kind in ("SS", "NS", "BS") else v for kind, v in value.items()}
        for name, value in item.items()
    }


def test_an_unreadable_snapshot_is_moved_aside_not_overwritten(
    emulator: Emulator, tmp_path: Path
) -> None:
    path = tmp_path / "state.json"
    path.write_text("{not json")
    provisioned = provision(emulator, Template.load(), prefix="bad-")
    assert Snapshots(path, emulator.dynamodb(), provisioned.tables).restore() == 0
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
        snapshots=False,
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
    """Starts `python -m infra.local_stack` as `make run` does, on free ports."""
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
    try:
        with urllib.request.urlopen(f"{base_url}/healthz", timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


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
    assert (local_dir / "session.key").stat().st_mode & 0o777 == 0o600

    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)

    assert process.returncode == 0, output
    assert "Traceback" not in output
    assert "Credentials" in output
    for url in ("/api/v1/graphql", "/webhooks", "/login", "/healthz"):
        assert f"{base_url}{url}" in output
    assert (local_dir / "state.json").exists()
    assert not (local_dir / "stack.json").exists()
    assert time.time() - (local_dir / "state.json").stat().st_mtime < 60
