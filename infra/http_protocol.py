"""The local API server's HTTP/1.1 protocol: uvicorn's h11 one, answering what it cannot parse in
the API's error shape, without resetting the connection.

uvicorn reads a request line and headers up to `h11_max_incomplete_event_size` (16 KiB by
default), and past it, or on a malformed request, writes a text/plain 400 and closes at once.
A client still sending its long URL then gets a reset instead of the answer. The
local stack raises that size to SERVER_HEAD_BYTES, above the app's own URL and header limits
(`api.request_limits`, answered in the API's error shape), and serves with this protocol, which
for anything beyond:
- answers in the shape of the route the request line names (`api.refusals`): 414 when the
  request line alone passes the size, 431 when the headers do, 400 for a malformed request;
- then closes gently: it shuts its sending side, reads and drops what the client still sends,
  and closes when the client does, or after LINGER_SECONDS (a lingering close, as nginx does),
  so the answer is read rather than lost to a reset.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.protocols.http.h11_impl import H11Protocol

from content_service.api.refusals import refusal

LINGER_SECONDS = 10.0
REQUEST_LINE_PEEK = 512
"""How much of a request's first bytes is kept to name its route if h11 refuses it later."""


def head_refusal(buffered: bytes, limit: int) -> tuple[int, str, str]:
    """(status, code, message) for a request head h11 refused, from what it had buffered."""
    if len(buffered) <= limit:
        return 400, "bad_request", "the HTTP request is malformed"
    if b"\r\n" not in buffered and b"\n" not in buffered:
        return 414, "uri_too_long", f"the request line exceeds {limit} bytes"
    return 431, "headers_too_large", f"the request line and headers exceed {limit} bytes"


def request_target(buffered: bytes) -> tuple[str, str]:
    """(method, path) from the start of a request line, as far as it can be read."""
    line = buffered.split(b"\n", 1)[0]
    parts = line.split(b" ", 2)
    method = parts[0].decode("ascii", "replace")
    path = parts[1].split(b"?", 1)[0].decode("ascii", "replace") if len(parts) > 1 else ""
    return method, path


class ApiH11Protocol(H11Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lingering = False
        self.linger_timer: asyncio.TimerHandle | None = None
        self.request_start: bytes | None = None

    def send_400_response(self, msg: str) -> None:
        """uvicorn calls this when h11 refuses the request (`msg` is its generic text)."""
        buffered, _ = self.conn.trailing_data
        limit = self.config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        status, code, message = head_refusal(buffered, limit)
        target = request_target(self.request_start or buffered)
        answered, body = refusal(*target, status, code, message)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        try:
            output = self.conn.send(h11.Response(status_code=answered, headers=headers))
            output += self.conn.send(h11.Data(data=body)) or b""
            output += self.conn.send(h11.EndOfMessage()) or b""
        except h11.LocalProtocolError:  # an answer was already under way: nothing to add
            self.transport.close()
            return
        self.transport.write(output or b"")
        self.linger()

    def linger(self) -> None:
        self.lingering = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.linger_timer = self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def data_received(self, data: bytes) -> None:
        if self.lingering:
            return  # the answer is sent; what the client still sends is dropped
        if self.request_start is None and self.conn.their_state is h11.IDLE:
            self.request_start = bytes(data[:REQUEST_LINE_PEEK])
        super().data_received(data)

    def on_response_complete(self) -> None:
        self.request_start = None
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.linger_timer is not None:
            self.linger_timer.cancel()
        super().connection_lost(exc)
