"""A recording reverse proxy between the app's AWS clients and the emulator.

Tests and benchmarks observe storage at the wire: every request the app sends to "AWS" passes
through this proxy unchanged, and the proxy notes the operation (`X-Amz-Target`), the parsed
JSON request body (table, ProjectionExpression, keys...), the size of the response and how long
the upstream took. What the app actually asked DynamoDB for is then asserted without reading
the app's own code.

    recorder = RequestRecorder(upstream="http://127.0.0.1:4566").start()
    with recorder.capture() as calls:
        ...  # requests made through recorder.url
    [c.operation for c in calls]  # ["Query", "BatchGetItem"]

Benchmarks may also `replay(calls)`: a request identical (same target, same body) to a recorded
one is then answered with the recorded response, without the upstream, so the time measured
is the app's own and not the emulator's (moto's Query walks the whole table on every page).

Stdlib only (`http.server.ThreadingHTTPServer` + `http.client`), on 127.0.0.1 with port 0.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

# Hop-by-hop headers are the proxy's own business (RFC 9110 7.6.1); the body is re-framed with a
# Content-Length, so a chunked upstream answer is forwarded whole.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
    }
)


@dataclass(frozen=True)
class RecordedCall:
    """One request seen by the proxy."""

    operation: str
    """`Query`, `BatchGetItem`... from `X-Amz-Target` (the part after the dot); the path else."""
    target: str
    body: dict[str, Any]
    """The parsed JSON request body; empty when it was not JSON (SQS query protocol, say)."""
    status: int
    request_bytes: int
    response_bytes: int
    raw_request: bytes = field(default=b"", repr=False)
    raw_response: bytes = field(default=b"", repr=False)
    response_headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    elapsed: float = 0.0
    """Seconds the upstream took to answer (0 for a replayed answer)."""
    replayed: bool = False
    method: str = ""
    path: str = field(default="", repr=False)
    """The request's path with its query, as sent (a presigned URL's signature included)."""
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """The request's headers, names in lower case (an S3 request's operation is in them)."""

    def response(self) -> dict[str, Any]:
        """The parsed JSON response body (parsed on demand; empty when not JSON)."""
        return _parse_json(self.raw_response) if self.target else {}

    @property
    def table(self) -> str | None:
        name = self.body.get("TableName")
        return name if isinstance(name, str) else None

    @property
    def tables(self) -> list[str]:
        """Tables a call touches: its TableName, or the tables of a batch or transaction."""
        if self.table is not None:
            return [self.table]
        found: list[str] = []
        found.extend(self.body.get("RequestItems") or {})
        for item in self.body.get("TransactItems", []) or []:
            for operation in item.values():
                if isinstance(operation, dict) and "TableName" in operation:
                    found.append(operation["TableName"])
        return sorted(set(found))

    def batch_keys(self) -> int:
        """Number of keys a BatchGetItem asked for, across tables."""
        return sum(len(t.get("Keys", [])) for t in (self.body.get("RequestItems") or {}).values())


_Answer = tuple[int, tuple[tuple[str, str], ...], bytes]


class RequestRecorder:
    """Forwards everything to `upstream` and keeps a record while a capture is open."""

    def __init__(self, upstream: str, host: str = "127.0.0.1", port: int = 0) -> None:
        parts = urlsplit(upstream)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"upstream must be an http:// URL, not {upstream!r}")
        self.upstream_host = parts.hostname
        self.upstream_port = parts.port or 80
        self._host = host
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._captures: list[list[RecordedCall]] = []
        self._replay: dict[tuple[str, bytes], _Answer] = {}
        self._local = threading.local()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the recorder is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> RequestRecorder:
        if self._server is not None:
            return self
        recorder = self

        class Handler(_ProxyHandler):
            owner = recorder

        server = ThreadingHTTPServer((self._host, self._port), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, name="storage-recorder", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(5)

    def __enter__(self) -> RequestRecorder:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @contextmanager
    def capture(self) -> Iterator[list[RecordedCall]]:
        """Records the calls made while the block runs (from any thread) into the yielded list."""
        calls: list[RecordedCall] = []
        with self._lock:
            self._captures.append(calls)
        try:
            yield calls
        finally:
            with self._lock:
                self._captures.remove(calls)

    @contextmanager
    def replay(self, calls: Iterable[RecordedCall]) -> Iterator[None]:
        """While the block runs, answers a request identical to one of `calls` (same target,
        same body) with that call's recorded answer, without asking the upstream. Only for
        reads of data that does not change meanwhile: the answer is what it was."""
        answers = {
            (c.target, c.raw_request): (c.status, c.response_headers, c.raw_response)
            for c in calls
            if c.target and 200 <= c.status < 300
        }
        with self._lock:
            saved = self._replay
            self._replay = {**saved, **answers}
        try:
            yield
        finally:
            with self._lock:
                self._replay = saved

    def _replayed(self, target: str, body: bytes) -> _Answer | None:
        with self._lock:
            return self._replay.get((target, body)) if target else None

    def _record(self, call: RecordedCall) -> None:
        with self._lock:
            for calls in self._captures:
                calls.append(call)

    @property
    def capturing(self) -> bool:
        return bool(self._captures)

    def _connection(self) -> http.client.HTTPConnection:
        """One upstream connection per proxy thread, kept alive across requests."""
        connection: http.client.HTTPConnection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = http.client.HTTPConnection(
                self.upstream_host, self.upstream_port, timeout=120
            )
            connection.connect()
            connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._local.connection = connection
        return connection

    def _drop_connection(self) -> None:
        connection: http.client.HTTPConnection | None = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
        self._local.connection = None

    def forward(
        self, method: str, path: str, headers: list[tuple[str, str]], body: bytes
    ) -> _Answer:
        forwarded = {k: v for k, v in headers if k.lower() not in _HOP_BY_HOP}
        forwarded["Content-Length"] = str(len(body))
        for attempt in (1, 2):
            connection = self._connection()
            try:
                connection.request(method, path, body=body, headers=forwarded)
                response = connection.getresponse()
                payload = response.read()
            except (http.client.HTTPException, OSError):
                # A kept-alive connection the upstream closed: retry once on a fresh one.
                self._drop_connection()
                if attempt == 2:
                    raise
                continue
            if response.getheader("connection", "").lower() == "close":
                self._drop_connection()
            kept = tuple((n, v) for n, v in response.getheaders() if _kept(method, n))
            return response.status, kept, payload
        raise AssertionError("unreachable")


class _ProxyHandler(BaseHTTPRequestHandler):
    owner: RequestRecorder
    protocol_version = "HTTP/1.1"
    # Small writes on a kept-alive connection would otherwise wait for delayed ACKs (~40 ms).
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the app logs its own requests."""

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        target = self.headers.get("X-Amz-Target", "")
        elapsed = 0.0
        answer = self.owner._replayed(target, body)
        replayed = answer is not None
        if answer is None:
            started = time.perf_counter()
            try:
                answer = self.owner.forward(
                    self.command, self.path, list(self.headers.items()), body
                )
            except (http.client.HTTPException, OSError) as error:
                answer = (502, (("Content-Type", "text/plain"),), f"recorder: {error}".encode())
            elapsed = time.perf_counter() - started
        status, headers, payload = answer
        # Recorded before the answer leaves: a caller that has its answer finds it captured.
        if self.owner.capturing:
            self.owner._record(
                RecordedCall(
                    operation=target.rsplit(".", 1)[-1] if target else self.path,
                    target=target,
                    body=_parse_json(body),
                    status=status,
                    request_bytes=len(body),
                    response_bytes=len(payload),
                    raw_request=body,
                    raw_response=payload,
                    response_headers=headers,
                    elapsed=elapsed,
                    replayed=replayed,
                    method=self.command,
                    path=self.path,
                    headers=tuple((n.lower(), v) for n, v in self.headers.items()),
                )
            )
        # Status line, headers and body in one write: one segment for small answers.
        lines = [f"{self.protocol_version} {status} {self.responses.get(status, ('',))[0]}"]
        lines.extend(f"{n}: {v}" for n, v in headers)
        if self.command != "HEAD":  # a HEAD answer keeps the length of what a GET would send
            lines.append(f"Content-Length: {len(payload)}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        self.wfile.write(head + payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _handle


def _kept(method: str, header: str) -> bool:
    name = header.lower()
    return name not in _HOP_BY_HOP or (method == "HEAD" and name == "content-length")


def _parse_json(raw: bytes) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        parsed = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return {}
    return parsed if isinstance(parsed, dict) else {}
