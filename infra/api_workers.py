"""The API served by uvicorn: on a thread of this process, or by worker processes.

Both take an already bound listening socket, so the stack knows its URL (port 0 included)
before anything serves. Worker processes share that socket (the kernel hands each connection
to one of them), each builds its own app from the stack's resolved environment, which it
applies to its `os.environ` first: whatever the app or its AWS clients read from the
environment (`Settings.from_env`, boto3, switches added later) reaches every worker exactly as
it reaches this process. They die with the stack (`infra.child_process`). Ctrl-C and a SIGTERM
to the stack's process group reach them too: until it serves, a worker ignores both and the
stack, which finishes its start first, stops it; once serving, uvicorn's own handlers finish
the requests in flight.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

import uvicorn

from content_service.api.request_limits import SERVER_HEAD_BYTES
from content_service.settings import Settings
from infra import request_check
from infra.child_process import configure_logging, die_with_parent, leave_stop_to_parent
from infra.http_protocol import ApiH11Protocol

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

AppFactory = Callable[[Settings], Any]
_START_TIMEOUT_S = 60.0

log = logging.getLogger(__name__)


def server_for(app: Any) -> uvicorn.Server:
    """uvicorn as the stack runs it. The app logs every request itself (with its correlation
    id): no access log here. Request heads up to SERVER_HEAD_BYTES reach the app, whose limits
    answer in the API's error shape; ApiH11Protocol answers anything longer in that shape too."""
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=5,
        lifespan="auto",
        http=ApiH11Protocol,
        h11_max_incomplete_event_size=SERVER_HEAD_BYTES,
    )
    return uvicorn.Server(config)


def _wait_started(server: uvicorn.Server, alive: Callable[[], bool]) -> None:
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not server.started:
        if not alive() or time.monotonic() > deadline:
            raise RuntimeError("the API server did not start; see the log above")
        time.sleep(0.02)


class ThreadServer:
    """The API on a thread of this process (tests observe and reconfigure the app in it)."""

    def __init__(self, app: Any, listener: socket.socket) -> None:
        self.app = app
        self._server = server_for(app)
        # In a thread uvicorn installs no signal handlers: the main thread keeps them.
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [listener]},
            name="api-server",
            daemon=True,
        )

    def start(self) -> None:
        self._thread.start()
        _wait_started(self._server, self._thread.is_alive)

    def problem(self) -> str | None:
        return None if self._thread.is_alive() else "the API server thread ended"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(5)


def _serve_worker(
    listener: socket.socket,
    environment: Mapping[str, str],
    app_factory: AppFactory,
    parent_pid: int,
    conn: Connection,
) -> None:
    """A worker process: the stack's environment, its own app, uvicorn on the shared socket.
    The app is built at once, while the stack restores its state; it serves once the parent
    says so (`WorkerProcesses.start`), so no request sees the tables before the restore."""
    die_with_parent(parent_pid)
    leave_stop_to_parent()  # until uvicorn's own handlers take over in `server.run`
    os.environ.update(environment)
    configure_logging()
    request_check.hook_into_app_clients()
    server = server_for(app_factory(Settings.from_env()))
    try:
        conn.send(("built", os.getpid()))
        conn.recv()
    except (EOFError, OSError):  # the parent went away before the stack was ready
        os._exit(1)

    def report_then_watch() -> None:
        _wait_started(server, lambda: True)
        conn.send(("ready", os.getpid()))
        with contextlib.suppress(EOFError, OSError):
            conn.recv()  # nothing is ever sent: this returns when the parent is gone
        os._exit(1)

    threading.Thread(target=report_then_watch, name="parent-watch", daemon=True).start()
    # uvicorn's own SIGINT/SIGTERM handlers while it serves: graceful. It puts the ignoring back
    # after, so the signals it re-raises then end nothing and the worker exits 0.
    server.run(sockets=[listener])


def _next_message(worker: BaseProcess, conn: Connection) -> None:
    """A worker's next report ("built", then "ready"), or why it will not come."""
    if not conn.poll(_START_TIMEOUT_S):
        raise RuntimeError(f"{worker.name} did not start within a minute")
    try:
        conn.recv()
    except (EOFError, OSError):  # OSError: gone with "serve" unread, its pipe reset
        raise RuntimeError(
            f"{worker.name} exited with {worker.exitcode} as it started; see the log"
        ) from None


class WorkerProcesses:
    """`count` uvicorn worker processes sharing `listener`."""

    def __init__(
        self,
        count: int,
        listener: socket.socket,
        environment: Mapping[str, str],
        app_factory: AppFactory,
    ) -> None:
        self.count = count
        self._listener = listener
        self._environment = dict(environment)
        self._app_factory = app_factory
        self._workers: list[tuple[BaseProcess, Connection]] = []
        self._built = False

    @property
    def pids(self) -> list[int]:
        return [p.pid for p, _ in self._workers if p.pid is not None]

    def spawn(self) -> None:
        """Starts the processes, which build their app and wait for `start` to serve."""
        context = multiprocessing.get_context("spawn")
        for number in range(self.count):
            conn, child_conn = context.Pipe()
            process = context.Process(
                target=_serve_worker,
                args=(
                    self._listener,
                    self._environment,
                    self._app_factory,
                    os.getpid(),
                    child_conn,
                ),
                name=f"api-worker-{number + 1}",
                daemon=True,
            )
            process.start()
            child_conn.close()
            self._workers.append((process, conn))

    def wait_built(self) -> None:
        """Returns once every worker has built its app (and waits to be told to serve)."""
        if self._built:
            return
        for worker, conn in self._workers:
            _next_message(worker, conn)
        self._built = True

    def start(self) -> None:
        if not self._workers:
            self.spawn()
        self.wait_built()
        for worker, conn in self._workers:
            try:
                conn.send(("serve",))
            except OSError:
                raise RuntimeError(
                    f"{worker.name} exited with {worker.exitcode} as it started; see the log"
                ) from None
        for worker, conn in self._workers:
            _next_message(worker, conn)
        log.info("API served by %d worker process(es): %s", self.count, self.pids)

    def problem(self) -> str | None:
        for process, _ in self._workers:
            if not process.is_alive():
                return f"{process.name} (process {process.pid}) exited with {process.exitcode}"
        return None

    def stop(self) -> None:
        """SIGTERM each (uvicorn finishes what is in flight, 5 s at most), then waits."""
        for process, _ in self._workers:
            if process.is_alive():
                process.terminate()
        for process, conn in self._workers:
            process.join(15)
            if process.is_alive():
                process.kill()
                process.join(5)
            conn.close()
        self._workers = []
        self._built = False
