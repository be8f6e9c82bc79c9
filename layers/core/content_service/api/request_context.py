"""Per-request plumbing: a correlation id on every log line, an access log, and the origin
(correlation id, source address) every audit record of the request names."""

from __future__ import annotations

import re
import time
import uuid

from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from content_service import runtime
from content_service.api.client_address import client_address
from content_service.api.http_middleware import HttpMiddleware
from content_service.audit.origin import Origin, origin_of
from content_service.observability import logger

CORRELATION_HEADER = "x-correlation-id"
_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def _lambda_request_id(scope: Scope) -> str:
    """API Gateway's request id when Mangum serves the request under Lambda (the id Powertools
    logs as the invocation's correlation id); "" under uvicorn. Read from the request's own
    event, never from the logger: its correlation id is process-wide, and where handlers share
    the process (the one-process layout, the tests) it is the last delivery's or event's."""
    event = scope.get("aws.event")
    context = event.get("requestContext") if isinstance(event, dict) else None
    request_id = context.get("requestId") if isinstance(context, dict) else None
    return request_id if isinstance(request_id, str) else ""


class CorrelationIdMiddleware(HttpMiddleware):
    """Takes the caller's `X-Correlation-Id` (else Lambda's request id, else a new one)."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        supplied = ""
        for name, value in scope["headers"]:
            if name.decode("latin-1").lower() == CORRELATION_HEADER:
                supplied = value.decode("latin-1")
        correlation_id = (
            supplied
            if _SAFE_ID.match(supplied)
            else (_lambda_request_id(scope) or str(uuid.uuid4()))
        )
        status = 500
        started = time.perf_counter()
        logged = False

        def access_log() -> None:
            nonlocal logged
            if not logged:
                logged = True
                logger.info(
                    "request",
                    extra={
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": status,
                        "durationMs": round((time.perf_counter() - started) * 1000, 1),
                    },
                )

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (CORRELATION_HEADER.encode(), correlation_id.encode()),
                ]
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                # Logged before the last byte leaves: a caller that has its answer can rely on
                # the access line being written (the tests read it right after the response).
                access_log()
            await send(message)

        # A context variable, not the logger's shared keys: under uvicorn requests overlap, and
        # a shared key would be overwritten by the next request and removed by the first to end.
        logger.thread_safe_append_keys(correlation_id=correlation_id)
        source = client_address(Request(scope), runtime.settings().edge_origin_secret)
        try:
            with origin_of(Origin(correlation_id, source)):
                await self.app(scope, receive, send_with_id)
        finally:
            access_log()
            logger.thread_safe_remove_keys(["correlation_id"])
