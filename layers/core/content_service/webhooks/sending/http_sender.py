"""The outgoing HTTP POST of deliveries and Send test, pinned to a checked address.

The sender resolves the host, checks every address against the URL policy, then connects to a
checked address while sending the original `Host` and TLS server name, so a DNS answer cannot
change between the check and the connect (docs/webhooks.md, "SSRF defences"). It is built on
`http.client` rather than `requests`: pinning is one overridden `connect()`, nothing is added
from the environment (proxies, netrc, default headers), and every socket read is bounded by one
wall-clock deadline, so a receiver that drips its answer cannot hold the worker past the
timeout.
"""

from __future__ import annotations

import codecs
import email.utils
import functools
import http.client
import io
import math
import re
import selectors
import socket
import ssl
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING

from ..endpoints import (
    CheckedTarget,
    Resolver,
    SystemResolver,
    UnresolvableHost,
    UrlPolicy,
    UrlRefused,
    check_header_value,
    check_url,
    is_valid_header_name,
)
from .bounds import Headers, clip, clip_error, clip_headers

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

DEFAULT_TIMEOUT_MS = 10_000
DEFAULT_SNIPPET_BYTES = 2048
# After the snippet, up to this much more is read so the connection can be reused; a longer
# body costs a new connection next time rather than time spent reading it.
DRAIN_LIMIT_BYTES = 64 * 1024
MAX_IDLE_CONNECTIONS = 32
MAX_RETRY_AFTER_SECONDS = 2**31 - 1
# A status line is `HTTP/1.1 200 OK`: a receiver gets a few KB for its reason phrase, not 64.
MAX_STATUS_LINE = 8192
# Exactly three ASCII digits. `int()` alone would take `2_00`, `+204` and ` 204`.
_STATUS_CODE = re.compile(r"[0-9]{3}")

# Framing headers the sender owns; custom headers may not set them either
# (docs/webhooks.md, "Endpoint").
_SENDER_OWNED_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection"})

# The deadline of the exchange in progress, in `time.monotonic()` seconds. `http.client`
# builds the response object itself, so the deadline reaches it through this variable.
_deadline: ContextVar[float | None] = ContextVar("webhook_send_deadline", default=None)


@dataclass(frozen=True)
class SendResult:
    """The outcome of one attempt.

    `status_code` is None when no response arrived (refused by the policy, unresolvable, refused
    connection, timeout, TLS failure); `error` then says why. A status with an `error` means the
    status line arrived but the body did not finish in time: the verdict follows the status.
    `retry_after_seconds` is the parsed `Retry-After`, not capped (the caller caps it).
    Every text is bounded (`bounds.py`): the error to 1 KB, the headers to 4 KB, the snippet to
    the sender's `snippet_bytes` in UTF-8.
    """

    status_code: int | None
    duration_ms: int
    response_snippet: str
    error: str | None
    retry_after_seconds: int | None
    response_headers: Headers = ()
    accepted: bool = False  # an event bus took the event (no HTTP status: docs, EventBridge)

    @property
    def ok(self) -> bool:
        """A 2xx answer, or an event bus's acceptance: the delivery succeeded."""
        return self.accepted or (self.status_code is not None and 200 <= self.status_code < 300)

    @classmethod
    def not_sent(cls, reason: object) -> SendResult:
        """A request that could not be built (a header or secret the sender cannot use):
        nothing left, no status."""
        return cls(None, 0, "", f"request not sent: {reason}", None)


def _remaining(deadline: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("deadline reached")
    return remaining


class _DeadlineReader(io.RawIOBase):
    """A socket reader whose every read waits at most until the deadline."""

    def __init__(self, sock: socket.socket, deadline: float | None) -> None:
        super().__init__()
        self._sock = sock
        # `makefile` keeps the socket open while the response reads it, as `http.client` expects
        # when it hands a closing connection's socket over to the response.
        self._raw = sock.makefile("rb", buffering=0)
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int | None:
        if self._deadline is not None:
            self._sock.settimeout(_remaining(self._deadline))
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()
        super().close()


class _DeadlineResponse(http.client.HTTPResponse):
    """An `http.client` response that reads through a `_DeadlineReader` and accepts only a
    status line whose code is exactly three ASCII digits (anything else is "no status")."""

    def __init__(
        self,
        sock: socket.socket,
        debuglevel: int = 0,
        method: str | None = None,
        url: str | None = None,
    ) -> None:
        super().__init__(sock, debuglevel, method, url)
        self.fp.close()
        self.fp = io.BufferedReader(_DeadlineReader(sock, _deadline.get()))

    def _read_status(self) -> tuple[str, int, str]:
        """`http.client`'s own parse, stricter: the code must be three ASCII digits from 100.

        The offending line is quoted only in part, so a receiver cannot grow the error text.
        """
        line = str(self.fp.readline(MAX_STATUS_LINE + 1), "iso-8859-1")
        if len(line) > MAX_STATUS_LINE:
            raise http.client.LineTooLong(f"status line (over {MAX_STATUS_LINE} bytes)")
        if not line:
            raise http.client.RemoteDisconnected("Remote end closed connection without response")
        parts = line.split(" ", 2)
        version, status = parts[0], parts[1] if len(parts) > 1 else ""
        reason = parts[2] if len(parts) > 2 else ""
        status = status.rstrip("\r\n")
        if not version.startswith("HTTP/") or not _STATUS_CODE.fullmatch(status):
            self._close_conn()  # type: ignore[attr-defined]
            raise http.client.BadStatusLine(repr(clip(line, 100)))
        code = int(status)
        if code < 100:
            self._close_conn()  # type: ignore[attr-defined]
            raise http.client.BadStatusLine(repr(clip(line, 100)))
        return version, code, reason


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to `pinned_ip` that names `host` in the request."""

    response_class = _DeadlineResponse

    def __init__(self, host: str, port: int, pinned_ip: str) -> None:
        super().__init__(host, port)
        self.pinned_ip = pinned_ip

    def connect(self) -> None:
        self.sock = socket.create_connection((self.pinned_ip, self.port), self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _PinnedHTTPSConnection(_PinnedHTTPConnection):
    """TLS to `pinned_ip`, with SNI and certificate checks against the original `host`."""

    default_port = http.client.HTTPS_PORT

    def __init__(self, host: str, port: int, pinned_ip: str, context: ssl.SSLContext) -> None:
        super().__init__(host, port, pinned_ip)
        self._tls_context = context

    def connect(self) -> None:
        super().connect()
        assert self.sock is not None
        tls = self._tls_context.wrap_socket(
            self.sock, server_hostname=self.host, do_handshake_on_connect=False
        )
        self.sock = tls
        _handshake(tls, _deadline.get())


def _handshake(tls: ssl.SSLSocket, deadline: float | None) -> None:
    """Runs the TLS handshake without blocking, so the deadline bounds all of it."""
    if deadline is None:
        tls.do_handshake()
        return
    tls.setblocking(False)
    with selectors.DefaultSelector() as selector:
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                events = selectors.EVENT_READ
            except ssl.SSLWantWriteError:
                events = selectors.EVENT_WRITE
            selector.register(tls, events)
            ready = selector.select(_remaining(deadline))
            selector.unregister(tls)
            if not ready:
                raise TimeoutError("TLS handshake did not complete in time")
    tls.settimeout(_remaining(deadline))


def _is_dropped(conn: _PinnedHTTPConnection) -> bool:
    """True when an idle keep-alive connection was closed (or spoken to) by the receiver."""
    sock = conn.sock
    if sock is None:
        return True
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return True
    with selectors.DefaultSelector() as selector:
        selector.register(sock, selectors.EVENT_READ)
        return bool(selector.select(0))


def parse_retry_after(value: str | None, now: float) -> int | None:
    """Seconds to wait from a `Retry-After` value: delta-seconds or an HTTP-date.

    A date in the past or a negative number gives 0; anything unreadable gives None.
    """
    if value is None:
        return None
    text = value.strip()
    if re.fullmatch(r"-?[0-9]+", text):
        if text.startswith("-"):
            return 0
        return (
            MAX_RETRY_AFTER_SECONDS if len(text) > 10 else min(int(text), MAX_RETRY_AFTER_SECONDS)
        )
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = math.ceil(when.timestamp() - now)
    return min(max(seconds, 0), MAX_RETRY_AFTER_SECONDS)


def _describe(error: BaseException, timeout_ms: int) -> str:
    return clip(_explain(error, timeout_ms), 400)


def _explain(error: BaseException, timeout_ms: int) -> str:
    if isinstance(error, TimeoutError):
        return f"timed out after {timeout_ms} ms"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS certificate verification failed: {error.verify_message or error}"
    if isinstance(error, ssl.SSLError):
        return f"TLS error: {error.reason or error}"
    if isinstance(error, http.client.RemoteDisconnected):
        return "the receiver closed the connection without answering"
    if isinstance(error, http.client.HTTPException):
        return f"invalid HTTP response ({type(error).__name__}: {error})"
    if isinstance(error, OSError):
        return f"connection failed: {error.strerror or error}"
    return str(error)


def _check_caller_headers(headers: Mapping[str, str]) -> None:
    for name, value in headers.items():
        if not is_valid_header_name(name):
            raise ValueError(f"header name {name[:80]!r} is not an HTTP token")
        if name.lower() in _SENDER_OWNED_HEADERS:
            raise ValueError(f"header {name!r} is set by the sender")
        check_header_value(name, value)


_Key = tuple[str, str, int, str]


@dataclass
class _Exchange:
    status: int
    snippet: str
    retry_after: int | None
    error: str | None
    reusable: bool
    headers: Headers


@functools.cache
def tls_context(ca_bundle: str | None) -> ssl.SSLContext:
    """One verifying client context per CA bundle and process, built at the first https send:
    loading the trusted certificates is too slow to repeat per batch, and an
    `SSLContext` is safe to share between connections and threads."""
    context = ssl.create_default_context(cafile=ca_bundle)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


class Sender:
    """Sends POSTs for a batch of deliveries, reusing keep-alive connections.

    Connections are kept per (scheme, host, port, pinned address) for the sender's lifetime;
    `close()` (or leaving the `with` block) closes them. Not thread-safe: a batch is sent
    serially. Redirects are never followed. `ca_bundle` replaces the system's
    trusted certificates (tests use it for a self-signed receiver).
    """

    def __init__(
        self,
        policy: UrlPolicy,
        *,
        resolver: Resolver | None = None,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        snippet_bytes: int = DEFAULT_SNIPPET_BYTES,
        ca_bundle: str | None = None,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        if timeout_ms <= 0 or snippet_bytes < 0:
            raise ValueError("timeout_ms must be positive and snippet_bytes not negative")
        self._policy = policy
        self._resolver = resolver or SystemResolver()
        self._timeout_ms = timeout_ms
        self._snippet_bytes = snippet_bytes
        self._wall_clock = wall_clock
        self._ca_bundle = ca_bundle
        self._idle: dict[_Key, _PinnedHTTPConnection] = {}

    def __enter__(self) -> Sender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes every idle connection."""
        for conn in self._idle.values():
            conn.close()
        self._idle.clear()

    def post(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        *,
        timeout_ms: int | None = None,
    ) -> SendResult:
        """POSTs `body` with exactly `headers` plus `Host` and `Content-Length`.

        The URL policy is applied to this send's DNS answers before any socket opens. Connect,
        TLS handshake, request and response are bounded together by `timeout_ms`; time spent
        resolving counts against it, but a resolver that hangs is not interrupted. Raises
        `ValueError` only for headers that could not be sent at all (a programming error).
        """
        _check_caller_headers(headers)
        timeout = self._timeout_ms if timeout_ms is None else timeout_ms
        if timeout <= 0:
            raise ValueError("timeout_ms must be positive")
        start = time.monotonic()
        result = functools.partial(self._result, start)
        try:
            checked = check_url(url, self._policy, self._resolver)
        except UrlRefused as refused:
            return result(error=f"refused by the URL policy: {refused.reason}")
        except UnresolvableHost as unresolvable:
            return result(error=f"could not resolve the host: {unresolvable.reason}")

        token = _deadline.set(start + timeout / 1000)
        try:
            exchange = self._exchange(checked, body, headers, start + timeout / 1000)
        except (OSError, http.client.HTTPException) as error:
            return result(error=_describe(error, timeout))
        finally:
            _deadline.reset(token)
        if exchange.status < 200:
            return result(error=f"the receiver sent only an informational {exchange.status}")
        return result(
            exchange.status,
            exchange.snippet,
            exchange.error,
            exchange.retry_after,
            exchange.headers,
        )

    def _result(
        self,
        start: float,
        status: int | None = None,
        snippet: str = "",
        error: str | None = None,
        retry_after: int | None = None,
        headers: Headers = (),
    ) -> SendResult:
        """A send's result, timed from `start`, its snippet, error and headers clipped."""
        duration = round((time.monotonic() - start) * 1000)
        return SendResult(
            status,
            duration,
            clip(snippet, self._snippet_bytes, mark=False),
            clip_error(error),
            retry_after,
            clip_headers(headers),
        )

    def _exchange(
        self,
        checked: CheckedTarget,
        body: bytes,
        headers: Mapping[str, str],
        deadline: float,
    ) -> _Exchange:
        key, conn, reused = self._take_connection(checked, deadline)
        try:
            try:
                response = self._request(conn, checked, body, headers, deadline)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                if not reused:
                    raise
                # The receiver closed the idle connection as we reused it: one fresh try.
                conn.close()
                key, conn = self._open_connection(checked, deadline)
                response = self._request(conn, checked, body, headers, deadline)
            exchange = self._read_response(response, deadline)
        except BaseException:
            conn.close()
            raise
        if exchange.reusable:
            self._keep(key, conn)
        else:
            conn.close()
        return exchange

    def _take_connection(
        self, checked: CheckedTarget, deadline: float
    ) -> tuple[_Key, _PinnedHTTPConnection, bool]:
        target = checked.target
        for address in checked.addresses:
            key = (target.scheme, target.host, target.port, address)
            conn = self._idle.pop(key, None)
            if conn is None:
                continue
            if _is_dropped(conn):
                conn.close()
                continue
            return key, conn, True
        key, conn = self._open_connection(checked, deadline)
        return key, conn, False

    def _open_connection(
        self, checked: CheckedTarget, deadline: float
    ) -> tuple[_Key, _PinnedHTTPConnection]:
        return connect_pinned(checked, deadline, self._ca_bundle)

    def _request(
        self,
        conn: _PinnedHTTPConnection,
        checked: CheckedTarget,
        body: bytes,
        headers: Mapping[str, str],
        deadline: float,
    ) -> http.client.HTTPResponse:
        assert conn.sock is not None
        conn.sock.settimeout(_remaining(deadline))
        conn.putrequest("POST", checked.target.target, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        return conn.getresponse()

    def _read_response(self, response: http.client.HTTPResponse, deadline: float) -> _Exchange:
        retry_after = parse_retry_after(response.getheader("Retry-After"), self._wall_clock())
        headers = clip_headers(response.getheaders())
        snippet = bytearray()
        error: str | None = None
        try:
            while len(snippet) < self._snippet_bytes:
                chunk = response.read1(self._snippet_bytes - len(snippet))
                if not chunk:
                    break
                snippet += chunk
            _drain(response)
            if response.isclosed() and response.length:
                # `read1` treats an early end of a Content-Length body as the end.
                raise http.client.IncompleteRead(bytes(snippet), response.length)
        except (OSError, http.client.HTTPException) as failure:
            if isinstance(failure, TimeoutError):
                error = "the response body did not arrive in full before the timeout"
            elif isinstance(failure, http.client.IncompleteRead):
                error = "the receiver closed the connection before the body was complete"
            else:
                error = f"the response body could not be read: {_describe(failure, 0)}"
        # After a 1xx (other than 100, which http.client skips) the final answer is still on
        # the wire; the connection must not carry another request.
        final = response.status >= 200
        reusable = final and error is None and response.isclosed() and not response.will_close
        response.close()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        complete = len(snippet) < self._snippet_bytes
        text = decoder.decode(bytes(snippet), final=complete)
        return _Exchange(response.status, text, retry_after, error, reusable, headers)

    def _keep(self, key: _Key, conn: _PinnedHTTPConnection) -> None:
        self._idle[key] = conn
        while len(self._idle) > MAX_IDLE_CONNECTIONS:
            oldest = next(iter(self._idle))
            self._idle.pop(oldest).close()


def connect_pinned(
    checked: CheckedTarget, deadline: float, ca_bundle: str | None
) -> tuple[_Key, _PinnedHTTPConnection]:
    """Connects to the first checked address that accepts; TLS failures are final."""
    target = checked.target
    last_error: OSError = ConnectionError("no address to connect to")
    for address in checked.addresses:
        conn: _PinnedHTTPConnection
        if target.scheme == "https":
            conn = _PinnedHTTPSConnection(target.host, target.port, address, tls_context(ca_bundle))
        else:
            conn = _PinnedHTTPConnection(target.host, target.port, address)
        conn.timeout = _remaining(deadline)
        try:
            conn.connect()
        except (ssl.SSLError, TimeoutError):
            conn.close()
            raise
        except OSError as error:
            conn.close()
            last_error = error
            continue
        return (target.scheme, target.host, target.port, address), conn
    raise last_error


@contextmanager
def exchange_deadline(deadline: float) -> Iterator[None]:
    """Bounds every socket read of the responses made inside by `deadline` (monotonic)."""
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def _drain(response: http.client.HTTPResponse) -> None:
    """Reads a short remainder so the connection can be reused; a long one is left unread."""
    if response.will_close:
        return
    if response.chunked:
        drained = 0
        while drained <= DRAIN_LIMIT_BYTES and not response.isclosed():
            chunk = response.read1(DRAIN_LIMIT_BYTES)
            if not chunk:
                break
            drained += len(chunk)
    elif response.length is not None and response.length <= DRAIN_LIMIT_BYTES:
        response.read()
