"""A real HTTP receiver on 127.0.0.1 with programmable responses, for webhook tests.

`Receiver` records every request it gets (raw body bytes, headers, the TCP connection it came
on) and answers from a plan: `respond(...)` queues answers for the next requests, `always(...)`
sets the answer once the queue is empty. An answer can hang without replying (to drive a
sender's timeout) or close the connection. It speaks HTTP/1.1 with keep-alive, so a sender's
connection reuse is visible in `connections`.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.ports import free_port
from infra.running import Running


@dataclass(frozen=True)
class Answer:
    """One programmed answer.

    `hang_s` > 0 holds the request that long without ever replying (a timeout); `delay_s` > 0
    replies after that long (a slow receiver). `meanwhile`, if given, runs after the request
    was read and before the answer goes out: something that happens while the sender waits
    (an administrator rotating the secret, say).
    """

    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    hang_s: float = 0.0
    delay_s: float = 0.0
    close: bool = False
    meanwhile: Callable[[], object] | None = None


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    connection: int
    at: float

    def header(self, name: str) -> str | None:
        """The value of a header, case-insensitively; None when absent."""
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def header_names(self) -> set[str]:
        return {key.lower() for key, _ in self.headers}


class _QuietServer(ThreadingHTTPServer):
    """A sender may drop a connection at any time (a timeout, a response it read only in
    part): for a receiver that is a normal end of the conversation, not a traceback on stderr."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class Receiver(Running):
    """`on_request`, when set, is called with each request before it is answered (while the
    sender waits); `max_in_flight` is the most requests ever being handled at once."""

    requests: list[Received] = field(default_factory=list)
    connections: int = 0
    on_request: Callable[[Received], None] | None = None
    in_flight: int = 0
    max_in_flight: int = 0
    _plan: deque[Answer] = field(default_factory=deque)
    _default: Answer = field(default_factory=Answer)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "receiver not started"
        return int(self._server.server_address[1])

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def respond(self, *answers: Answer) -> None:
        with self._lock:
            self._plan.extend(answers)

    def always(self, answer: Answer) -> None:
        with self._lock:
            self._plan.clear()
            self._default = answer

    def _next_answer(self) -> Answer:
        with self._lock:
            return self._plan.popleft() if self._plan else self._default

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes: without this a kept-alive connection
            # waits for the client's delayed ACK (~40 ms) before the body.
            disable_nagle_algorithm = True

            def setup(self) -> None:
                with receiver._lock:
                    receiver.connections += 1
                    self.connection_number = receiver.connections
                super().setup()

            def _handle(self) -> None:
                with receiver._lock:
                    receiver.in_flight += 1
                    receiver.max_in_flight = max(receiver.max_in_flight, receiver.in_flight)
                try:
                    self._answer()
                finally:
                    with receiver._lock:
                        receiver.in_flight -= 1

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                answer = receiver._next_answer()
                received = Received(
                    self.command,
                    self.path,
                    tuple(self.headers.items()),
                    body,
                    self.connection_number,
                    time.time(),
                )
                with receiver._lock:
                    receiver.requests.append(received)
                if receiver.on_request is not None:
                    receiver.on_request(received)
                if answer.meanwhile is not None:
                    answer.meanwhile()
                if answer.hang_s > 0:
                    receiver._stop.wait(answer.hang_s)
                    self.close_connection = True
                    return
                if answer.delay_s > 0:
                    receiver._stop.wait(answer.delay_s)
                try:
                    self.send_response(answer.status)
                    for name, value in answer.headers:
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(answer.body)))
                    if answer.close:
                        self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(answer.body)
                    self.wfile.flush()
                except OSError:
                    self.close_connection = True
                if answer.close:
                    self.close_connection = True

            do_POST = _handle
            do_GET = _handle

            def log_message(self, format: str, *args: object) -> None:
                pass

        server = _QuietServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def refused_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    return free_port()
