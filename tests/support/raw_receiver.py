"""A receiver on 127.0.0.1 that answers with raw bytes, for answers no HTTP server would send.

`RawReceiver` reads each request (head and `Content-Length` body), records it, writes the next
programmed answer byte for byte and closes the connection: a 64 KB status line, a status code
of `2_00`, a header of 64 KB. The last answer repeats once the plan is used up.
"""

from __future__ import annotations

import socket
import threading
from collections import deque
from dataclasses import dataclass, field

from infra.running import Running


@dataclass
class RawReceiver(Running):
    answers: deque[bytes] = field(default_factory=deque)
    requests: list[bytes] = field(default_factory=list)
    _last: bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
    _server: socket.socket | None = None
    _thread: threading.Thread | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        server.settimeout(0.1)
        self._server = server
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self._server is not None:
            self._server.close()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.getsockname()[1])

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def respond(self, *answers: bytes) -> None:
        with self._lock:
            self.answers.extend(answers)

    def _next(self) -> bytes:
        with self._lock:
            if self.answers:
                self._last = self.answers.popleft()
            return self._last

    def _serve(self) -> None:
        assert self._server is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    self.requests.append(_read_request(conn))
                    conn.sendall(self._next())
                except OSError:
                    continue


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def answer(status_line: bytes, headers: list[bytes] | None = None, body: bytes = b"") -> bytes:
    """A raw answer: the status line as given, the headers, `Content-Length` and the body."""
    lines = [status_line, *(headers or []), b"Content-Length: " + str(len(body)).encode()]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
