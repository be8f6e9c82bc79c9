"""Per-request plumbing: a correlation id on every log line, an access log, a body size cap."""

from __future__ import annotations

import json
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from content_service.observability import logger

CORRELATION_HEADER = "x-correlation-id"
_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
MAX_BODY_BYTES = 1024 * 1024


class CorrelationIdMiddleware:
    """Takes the caller's `X-Correlation-Id` (else Lambda's request id, else a new one)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        supplied = ""
        for name, value in scope["headers"]:
            if name.decode("latin-1").lower() == CORRELATION_HEADER:
                supplied = value.decode("latin-1")
        correlation_id = (
            supplied
            if _SAFE_ID.match(supplied)
            else (logger.get_correlation_id() or str(uuid.uuid4()))
        )
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (CORRELATION_HEADER.encode(), correlation_id.encode()),
                ]
            await send(message)

        with logger.append_context_keys(correlation_id=correlation_id):
            try:
                await self.app(scope, receive, send_with_id)
            finally:
                logger.info(
                    "request",
                    extra={
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": status,
                        "durationMs": round((time.perf_counter() - started) * 1000, 1),
                    },
                )


class BodySizeLimitMiddleware:
    """Refuses bodies over MAX_BODY_BYTES with 413, declared or streamed, before any handler."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.max_bytes:
                    await self._refuse(send)
                    return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, counting_receive, send)
        except _TooLarge:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {
                "error": {
                    "status": 413,
                    "code": "payload_too_large",
                    "message": f"request body exceeds {self.max_bytes} bytes",
                }
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass
