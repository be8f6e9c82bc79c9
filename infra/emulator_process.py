"""The emulator, with its journal, in a Python process of its own.

moto answers every AWS request in Python, and in one process it shared a core and the GIL with
the API, the pollers and the journal: one core worked while the other idled, and every request
queued behind the others (docs/decisions.md, D81). Here the moto server, its patches
(`infra.emulator` installs them), the durable states journaling its tables and their
compaction run in a child process; the parent sees the same `Emulator` (endpoint, clients) and
asks the child over a pipe for what needs moto's memory: restoring and journaling a local
directory, compaction, loading and unloading items for benchmarks.

Crash behaviour is the one process's: the child dies with its parent (`infra.child_process`), so
a SIGKILL of `make run` ends the emulator before any journal compaction, and the next start
replays the journal. Ctrl-C and SIGTERM, which a terminal and systemd send to every process of
the group, are left to the parent: the child ignores both and stops when the parent tells it to,
after the API has stopped, so the last requests still reach it and the last compaction sees them.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Iterable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from infra import request_check
from infra.child_process import configure_logging, die_with_parent, leave_stop_to_parent
from infra.emulator import DEFAULT_REGION, Emulator, EmulatorError

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from infra.provisioning import ProvisionedBucket, ProvisionedKey, ProvisionedTable

_START_TIMEOUT_S = 60.0
_STOP_TIMEOUT_S = 60.0
_LOAD_CHUNK = 5_000
# What the parent may ask the child's Emulator (nothing else is dispatched).
_METHODS = frozenset(
    {
        "serve_functions",
        "open_durable",
        "close_durable",
        "save_keys",
        "restore_keys",
        "housekeep",
        "load",
        "unload",
        "compact",
    }
)

log = logging.getLogger(__name__)


def _serve(conn: Connection, host: str, port: int, region: str, parent_pid: int) -> None:
    """The child: starts moto, then answers the parent's requests until told to stop."""
    die_with_parent(parent_pid)
    leave_stop_to_parent()
    configure_logging()
    request_check.hook_into_app_clients()  # the functions it invokes build the app's clients
    emulator = Emulator(host=host, port=port, region=region)
    try:
        emulator.start()
    except EmulatorError as error:
        conn.send(("error", str(error)))
        return
    conn.send(("ready", emulator.port))
    while True:
        try:
            name, args = conn.recv()
        except (EOFError, OSError):
            os._exit(1)  # the parent is gone: as if killed with it, no compaction
        if name == "stop":
            for local_dir in list(emulator.durable):
                emulator.close_durable(local_dir)
            emulator.stop()
            conn.send(("ok", None))
            logging.shutdown()
            os._exit(0)  # everything is saved; moto's threads need no orderly end
        try:
            if name not in _METHODS:
                raise AttributeError(f"the emulator process does not answer {name!r}")
            conn.send(("ok", getattr(emulator, name)(*args)))
        except Exception as error:  # reported to the caller, who raises it
            log.exception("emulator process: %s failed", name)
            conn.send(("error", f"{type(error).__name__}: {error}"))


class EmulatorProcess(Emulator):
    """An `Emulator` whose moto server, journal and compaction live in a child process."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, region: str = DEFAULT_REGION
    ) -> None:
        super().__init__(host=host, port=port, region=region)
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def start(self) -> None:
        if self._process is not None:
            return
        context = multiprocessing.get_context("spawn")
        conn, child_conn = context.Pipe()
        process = context.Process(
            target=_serve,
            args=(child_conn, self.host, self.requested_port, self.region, os.getpid()),
            name="aws-emulator",
            daemon=True,
        )
        process.start()
        child_conn.close()
        self._process, self._conn = process, conn
        if not conn.poll(_START_TIMEOUT_S):
            self._kill()
            raise EmulatorError("the emulator process did not start within a minute")
        try:
            kind, value = conn.recv()
        except EOFError:
            self._kill()
            raise EmulatorError(
                f"the emulator process exited with {process.exitcode} as it started"
            ) from None
        if kind != "ready":
            self._kill()
            raise EmulatorError(str(value))
        self._port = int(value)
        log.info("AWS emulator (moto) in process %s on %s", process.pid, self.endpoint_url)

    def _call(self, name: str, *args: Any) -> Any:
        with self._lock:
            if self._conn is None:
                raise EmulatorError("the emulator process is not running")
            try:
                self._conn.send((name, args))
                kind, value = self._conn.recv()
            except (EOFError, OSError) as error:
                raise EmulatorError(f"the emulator process is gone ({error})") from None
        if kind != "ok":
            raise RuntimeError(f"emulator process: {value}")
        return value

    def serve_functions(
        self, template_path: Path, prefix: str, environment: Mapping[str, str] | None
    ) -> list[str]:
        """The child's handlers need the environment the parent resolved: it is sent along."""
        return list(self._call("serve_functions", template_path, prefix, dict(environment or {})))

    def open_durable(
        self,
        local_dir: Path,
        tables: Mapping[str, ProvisionedTable],
        fsync: bool = True,
        buckets: Mapping[str, ProvisionedBucket] | None = None,
    ) -> int:
        return int(self._call("open_durable", local_dir, dict(tables), fsync, dict(buckets or {})))

    def close_durable(self, local_dir: Path) -> int:
        return int(self._call("close_durable", local_dir))

    def save_keys(self, path: Path, keys: Iterable[ProvisionedKey]) -> None:
        self._call("save_keys", path, list(keys))

    def restore_keys(self, path: Path) -> int:
        return int(self._call("restore_keys", path))

    def housekeep(self) -> None:
        self._call("housekeep")

    def compact(self, keep: int = 1000) -> None:
        self._call("compact", keep)

    def load(self, table: str, items: Iterable[Mapping[str, Any]]) -> int:
        """Sends the items to the child in chunks, where moto's own `put_item` stores them."""
        stored = 0
        chunk: list[dict[str, Any]] = []
        for item in items:
            chunk.append(dict(item))
            if len(chunk) == _LOAD_CHUNK:
                stored += int(self._call("load", table, chunk))
                chunk = []
        if chunk:
            stored += int(self._call("load", table, chunk))
        return stored

    def unload(self, table: str, pk_contains: str) -> int:
        return int(self._call("unload", table, pk_contains))

    def stop(self) -> None:
        """Closes every durable state (a last compaction each), then ends the child."""
        process = self._process
        if process is None:
            return
        try:
            if process.is_alive():
                with self._lock:
                    assert self._conn is not None
                    self._conn.send(("stop", ()))
                    if self._conn.poll(_STOP_TIMEOUT_S):
                        self._conn.recv()
        except (EOFError, OSError):
            pass
        process.join(10)
        self._kill()

    def _kill(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if process is not None and process.is_alive():
            process.kill()
            process.join(5)
        if conn is not None:
            conn.close()
