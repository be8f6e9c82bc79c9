"""Domain errors with the HTTP status and stable code they answer with.

REST renders them as `{"error": {"status", "code", "message", "details"}}` (docs/api.md); GraphQL
puts the same status and code in `errors[].extensions`. Raising one of these is the only way the
core reports a refusal, so both protocols answer a refusal the same way.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ServiceError(Exception):
    """A refusal the caller can act on; never used for bugs."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"

    def __init__(self, message: str, *, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"status": self.status, "code": self.code, "message": self.message}
        if self.details is not None:
            body["details"] = self.details
        return {"error": body}


class BadRequest(ServiceError):
    """The request is malformed: unparsable JSON, an unknown operator, a bad query parameter."""

    status = 400
    code = "bad_request"


class Unauthorized(ServiceError):
    """No valid credentials: missing, malformed, unknown or revoked token, or no session."""

    status = 401
    code = "unauthorized"


class Forbidden(ServiceError):
    """Valid credentials that do not permit this action."""

    status = 403
    code = "forbidden"


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class Conflict(ServiceError):
    """The request is valid but collides with the current state (a duplicate name, a reference)."""

    status = 409
    code = "conflict"


class VersionConflict(Conflict):
    """A write that named the version it was made from, which is no longer the entry's."""

    code = "version_conflict"


class Gone(ServiceError):
    """What the request names existed once and is no longer kept (a sync token past the
    change log's retention)."""

    status = 410
    code = "gone"


class PayloadTooLarge(ServiceError):
    status = 413
    code = "payload_too_large"


class TooManyRequests(ServiceError):
    """The caller's token is over its request rate. The answer's `Retry-After` and
    `RateLimit-*` headers come from the request's rate decision (`api.rate_limit`)."""

    status = 429
    code = "rate_limited"


class ServiceUnavailable(ServiceError):
    """A service this one depends on failed or timed out: nothing was changed, and the same
    request may be sent again."""

    status = 503
    code = "service_unavailable"


class ValidationFailed(ServiceError):
    """Well-formed input whose values are refused (wrong type, missing required field, policy)."""

    status = 422
    code = "validation_failed"
