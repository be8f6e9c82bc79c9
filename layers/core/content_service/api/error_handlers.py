"""Every refusal leaves the API in its error shape (docs/api.md); a bug never leaks details.

`{"error": {"status", "code", "message", "details?"}}`: ServiceError carries its own status and
code; FastAPI's request validation becomes 400 for query, path and header problems and 422 for
body values; unknown routes and methods keep 404/405; anything else is a 500 with a generic
message and the exception in the log under the request's correlation id. The OpenAPI document
says the same: `ANY_REFUSAL` for every operation, `errors(...)` for the statuses a route names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from content_service.errors import ServiceError
from content_service.observability import logger

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    410: "gone",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    422: "validation_failed",
    429: "rate_limited",
    431: "headers_too_large",
}


_DESCRIPTIONS = {
    400: "Malformed request (bad JSON, bad query parameter, unknown filter operator)",
    401: "Missing or invalid credentials",
    403: "Credentials that do not permit this action",
    404: "Not found, or not visible to the caller",
    409: "Conflicts with the current state",
    410: "No longer kept (a sync token past the retention: start an initial sync)",
    413: "Request body too large",
    414: "URL too long",
    422: "Well-formed input with refused values",
    429: "The token is over its request rate (see Retry-After and RateLimit-*)",
    431: "Request headers too large",
}


class ErrorDetail(BaseModel):
    status: int
    code: str
    message: str
    details: Any = None


class ErrorResponse(BaseModel):
    """The error shape of docs/api.md: `{"error": {"status", "code", "message", "details?"}}`."""

    error: ErrorDetail


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` documenting the given error statuses with the error shape."""
    return {s: {"model": ErrorResponse, "description": _DESCRIPTIONS[s]} for s in statuses}


# Documented once for the whole app (`FastAPI(responses=...)`): any refusal has the error shape,
# whichever route or middleware answers it. Declaring the range also keeps FastAPI from
# documenting its own 422 body, which this API never sends.
ANY_REFUSAL: dict[int | str, dict[str, Any]] = {
    "4XX": {"model": ErrorResponse, "description": "Any refusal, in the error shape"}
}


NO_STORE = {"Cache-Control": "no-store"}


class _ErrorJSON(JSONResponse):
    """ASCII JSON: a message quoting the caller's input can always be encoded, even when that
    input held a lone surrogate."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode()


def error_response(
    status: int,
    code: str,
    message: str,
    details: Any = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {"status": status, "code": code, "message": message}
    if details is not None:
        body["details"] = details
    # A refusal is never kept by a cache, shared or not: the next request may be answered.
    return _ErrorJSON({"error": body}, status_code=status, headers={**NO_STORE, **(headers or {})})


async def _service_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
    return error_response(exc.status, exc.code, exc.message, exc.details, headers)


def _describe(errors: list[Any]) -> list[dict[str, Any]]:
    described = []
    for error in errors:
        location = [str(part) for part in error.get("loc", ())]
        described.append({"location": ".".join(location), "problem": error.get("msg", "invalid")})
    return described


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    details = _describe(list(exc.errors()))
    in_body = any(d["location"].startswith("body") for d in details)
    if in_body:
        return error_response(422, "validation_failed", "the request body is invalid", details)
    return error_response(400, "bad_request", "the request parameters are invalid", details)


async def _http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "error")
    message = exc.detail if isinstance(exc.detail, str) else "request refused"
    return error_response(exc.status_code, code, message, headers=exc.headers)


async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    logger.exception("unhandled error")
    return error_response(500, "internal_error", "internal error; the request was not completed")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
