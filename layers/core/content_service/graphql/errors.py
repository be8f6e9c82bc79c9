"""GraphQL errors: every one carries `extensions.status` (the HTTP status the REST equivalent
would have answered; docs/graphql.md, "Errors") and a stable `extensions.code`.

| code                            | status | when                                                  |
|---------------------------------|--------|-------------------------------------------------------|
| BAD_REQUEST                     | 400    | the HTTP body is not strict JSON (`strict_json`),     |
|                                 |        | lacks `query`, bad variables; a malformed request     |
| GRAPHQL_PARSE_FAILED            | 400    | the document does not parse (with `locations`)        |
| QUERY_TOO_LONG, TOO_DEEP,       | 400    | a cost limit (docs/graphql.md, "Cost limits")         |
| TOO_MANY_FIELDS, TOO_COMPLEX,   |        |                                                       |
| TOO_MANY_OPERATIONS,            |        |                                                       |
| FRAGMENT_CYCLE                  |        |                                                       |
| INTROSPECTION_TOO_DEEP,         | 400    | introspection nesting type lists 3 deep, selecting    |
| INTROSPECTION_TOO_LARGE         |        | more than 2,000 fields, or answering more than 3 times|
|                                 |        | the standard introspection (`introspection_bound`)    |
| OPERATION_RESOLUTION_FAILURE    | 400    | `operationName` names no operation of the document    |
| GRAPHQL_VALIDATION_FAILED       | 400    | graphql-core validation (unknown type or field...)    |
| BAD_USER_INPUT                  | 400/422| a variable or argument the schema or the service      |
|                                 |        | refuses (`page`/`pageSize` before execution)          |
| UNAUTHENTICATED                 | 401    | no valid token or session                             |
| FORBIDDEN                       | 403    | valid credentials without the permission; a mutation  |
|                                 |        | from a caller who cannot write; the origin guard      |
| NOT_FOUND                       | 404    | an entry (or a type revoked since) hidden from caller |
| CONFLICT                        | 409    | the write collides with the current state             |
| VERSION_CONFLICT                | 409    | `updateX(version:)` names a version someone saved over|
| PAYLOAD_TOO_LARGE               | 413    | the body is over 1 MiB; the entry exceeds item size   |
| URI_TOO_LONG                    | 414    | the URL is over 64 KiB                                |
| UNSUPPORTED_MEDIA_TYPE          | 415    | the body is not sent as `application/json`            |
| REQUEST_HEADER_FIELDS_TOO_LARGE | 431    | the headers are over 64 KiB                           |
| INTERNAL_SERVER_ERROR           | 500    | a bug; the message says nothing more (logged)         |

The 413 (body), 414, 415 and 431 refusals are made in front of the adapter (`api.refusals`).
"""

from __future__ import annotations

from typing import Any

from graphql import GraphQLError

from content_service.errors import ServiceError
from content_service.observability import logger

SERVICE_CODES = {
    400: "BAD_USER_INPUT",
    401: "UNAUTHENTICATED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    409: "CONFLICT",
    413: "PAYLOAD_TOO_LARGE",
    422: "BAD_USER_INPUT",
    429: "RATE_LIMITED",
}
INTERNAL_MESSAGE = "internal error; the field was not resolved"


class RequestError(Exception):
    """A refusal of the whole request, before any resolver runs; `locations` point into the
    document (a syntax error), `details` say where in the body."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        *,
        locations: list[dict[str, int]] | None = None,
        details: Any = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message
        self.locations = locations
        self.details = details

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message}
        if self.locations:
            body["locations"] = self.locations
        extensions: dict[str, Any] = {"status": self.status, "code": self.code}
        if self.details is not None:
            extensions["details"] = self.details
        body["extensions"] = extensions
        return body


def service_error_json(error: ServiceError) -> dict[str, Any]:
    return {"message": error.message, "extensions": _service_extensions(error)}


# Service refusals whose own code says more than their status does.
SPECIFIC_CODES = {"version_conflict": "VERSION_CONFLICT"}


def _service_extensions(error: ServiceError) -> dict[str, Any]:
    extensions: dict[str, Any] = {
        "status": error.status,
        "code": SPECIFIC_CODES.get(
            error.code, SERVICE_CODES.get(error.status, "INTERNAL_SERVER_ERROR")
        ),
    }
    if error.details is not None:
        extensions["details"] = error.details
    return extensions


def format_error(error: GraphQLError, default_code: str = "BAD_USER_INPUT") -> dict[str, Any]:
    """One error as JSON. graphql-core's own errors (coercion, validation) get `default_code`
    with status 400; a service refusal its status and code; anything else is a bug."""
    original = error.original_error
    message = error.message
    if isinstance(original, ServiceError):
        message = original.message
        extensions = _service_extensions(original)
    elif original is None or isinstance(original, GraphQLError):
        extensions = {"status": 400, "code": default_code}
    else:
        logger.error(
            "GraphQL field failed",
            exc_info=(type(original), original, original.__traceback__),
            extra={"path": error.path},
        )
        message = INTERNAL_MESSAGE
        extensions = {"status": 500, "code": "INTERNAL_SERVER_ERROR"}
    body: dict[str, Any] = {"message": message}
    if error.locations:
        body["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    if error.path is not None:
        body["path"] = list(error.path)
    body["extensions"] = extensions
    return body
