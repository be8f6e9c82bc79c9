"""moto's WSGI app served by waitress: kept-alive connections and a pool of threads.

moto's own `ThreadedMotoServer` is werkzeug's development server, which answers every request
with `Connection: close`: each AWS call of the API, the pollers and the tests then opens a TCP
connection and the server starts a thread for it. waitress keeps the connections boto3 pools
and hands each request to one of a fixed set of threads (docs/decisions.md, D106).

The pool is large because some calls wait inside moto (a journaled write waits for its group
commit; an SQS receive may long-poll), and a request waiting for a thread is a request stalled.
The asyncore loop runs on a thread of its own; `stop` asks that thread to close every socket,
so nothing is closed under a running `select`.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from waitress import wasyncore
from waitress.server import BaseWSGIServer, create_server

from infra.emulator import FAKE_CREDENTIALS
from infra.lambda_invoke import FunctionInvocations
from infra.moto_s3_journal import ObjectJournal
from infra.s3_uploads import UploadCheck

THREADS = 64
CONNECTION_LIMIT = 1000
# Idle kept-alive connections are closed after this; boto3 opens a new one when it needs it.
CHANNEL_TIMEOUT_S = 60
_LOOP_TIMEOUT_S = 0.5
# The emulator's one key pair (`infra.emulator.FAKE_CREDENTIALS`): what presigned uploads sign with.
_SECRETS = {FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"]: FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"]}


class EmulatorServer:
    """The emulator's HTTP endpoint on `host`:`port` (0: any free port)."""

    def __init__(self, host: str, port: int) -> None:
        # S3's checks of presigned uploads, which moto does not make, in front of it (D121);
        # its object writes journaled before each answer leaves (D127).
        moto_app = ObjectJournal(DomainDispatcherApplication(create_backend_app))
        # Invokes of the template's functions run their handlers (D130); moto's would need Docker.
        self.invocations = FunctionInvocations(UploadCheck(moto_app, _SECRETS))
        server = create_server(
            self.invocations,
            host=host,
            port=port,
            threads=THREADS,
            connection_limit=CONNECTION_LIMIT,
            channel_timeout=CHANNEL_TIMEOUT_S,
            ident="moto",
            asyncore_use_poll=True,
        )
        if not isinstance(server, BaseWSGIServer):
            raise TypeError("one listening socket expected")
        self._server = server
        # Set by waitress's constructor; its type stubs do not declare them.
        self._port = int(vars(server)["effective_port"])
        self._sockets: dict[int, Any] = vars(server)["_map"]
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="aws-emulator", daemon=True)

    @property
    def port(self) -> int:
        return self._port

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        # The trigger only wakes the loop early: it also wakes every _LOOP_TIMEOUT_S. Once
        # (one fresh-clone run in five), a module's emulator found its trigger's pipe already
        # closed at teardown (EBADF, cause not found); stopping must not depend on it.
        with contextlib.suppress(OSError):
            self._server.pull_trigger()
        self._thread.join()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            wasyncore.loop(timeout=_LOOP_TIMEOUT_S, map=self._sockets, use_poll=True, count=1)
        # A request still running when the server stops (an SQS long poll outlives the task
        # threads' shutdown) pulls the trigger when it ends: by then its pipe's descriptor is
        # closed and its number may belong to another file, a journal segment included.
        setattr(self._server, "pull_trigger", _pull_nothing)  # noqa: B010 (a method replaced)
        for dispatcher in list(self._sockets.values()):
            dispatcher.close()
        self._server.task_dispatcher.shutdown()


def _pull_nothing() -> None:
    """A stopped server's trigger: there is no loop left to wake."""
