"""Rules for an endpoint's custom headers (docs/webhooks.md, "Endpoint").

The service owns the `X-Service-*` headers and the framing headers, so a custom header may
neither forge a delivery's identity or signature nor change how the body is framed. The rules
are data as well as code because the admin page shows them next to the form.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

RESERVED_PREFIX = "X-Service-"
RESERVED_HEADER_NAMES: tuple[str, ...] = (
    "Host",
    "Content-Type",
    "Content-Length",
    "Transfer-Encoding",
    "Connection",
    "User-Agent",
    # The Standard Webhooks headers a `standard` endpoint's deliveries carry.
    "webhook-id",
    "webhook-timestamp",
    "webhook-signature",
)
MAX_HEADERS = 20
MAX_NAME_LENGTH = 256
MAX_VALUE_LENGTH = 1024

# RFC 9110 section 5.6.2: token = 1*tchar.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# Visible ASCII, space and horizontal tab. CR, LF and NUL would split or end the header;
# other controls and non-ASCII are refused too, since receivers disagree on how to read them.
_VALUE = re.compile(r"[\t\x20-\x7e]*")

_RESERVED_LOWER = frozenset(name.lower() for name in RESERVED_HEADER_NAMES)


class HeaderRuleError(ValueError):
    """A custom header breaks a rule; the message names the header."""


def is_valid_header_name(name: str) -> bool:
    """True when `name` is an HTTP token (RFC 9110 section 5.6.2) of acceptable length."""
    return 0 < len(name) <= MAX_NAME_LENGTH and _TOKEN.fullmatch(name) is not None


def check_header_name(name: str) -> None:
    """Refuses a name that is not an HTTP token, is reserved, or uses the service's prefix."""
    shown = name[:80]
    if not is_valid_header_name(name):
        raise HeaderRuleError(
            f"header name {shown!r} must be 1 to {MAX_NAME_LENGTH} HTTP token characters"
        )
    if name.lower().startswith(RESERVED_PREFIX.lower()):
        raise HeaderRuleError(f"header {name!r} uses the reserved prefix {RESERVED_PREFIX}")
    if name.lower() in _RESERVED_LOWER:
        raise HeaderRuleError(f"header {name!r} is set by the service and cannot be configured")


def check_header_value(name: str, value: str) -> None:
    """Refuses a value that is too long or holds control or non-ASCII characters."""
    if len(value) > MAX_VALUE_LENGTH:
        raise HeaderRuleError(
            f"value of header {name!r} is longer than {MAX_VALUE_LENGTH} characters"
        )
    if not _VALUE.fullmatch(value):
        raise HeaderRuleError(
            f"value of header {name!r} may hold only printable ASCII, spaces and tabs "
            "(no CR, LF, NUL or other control characters)"
        )


def validate_custom_headers(headers: Mapping[str, object]) -> dict[str, str]:
    """Checks every rule and returns the headers as a plain `dict[str, str]`.

    Names differing only in case are refused: HTTP names are case-insensitive, so the pair
    would be sent as one header with two values.
    """
    if len(headers) > MAX_HEADERS:
        raise HeaderRuleError(f"at most {MAX_HEADERS} custom headers are allowed")
    seen: dict[str, str] = {}
    checked: dict[str, str] = {}
    for name, value in headers.items():
        check_header_name(name)
        if not isinstance(value, str):
            raise HeaderRuleError(f"value of header {name!r} must be a string")
        check_header_value(name, value)
        previous = seen.setdefault(name.lower(), name)
        if previous != name:
            raise HeaderRuleError(f"headers {previous!r} and {name!r} differ only in case")
        checked[name] = value
    return checked


def rules_json() -> dict[str, object]:
    """The rules for the admin page, so the page and the check cannot drift apart."""
    return {
        "reservedPrefix": RESERVED_PREFIX,
        "reservedNames": list(RESERVED_HEADER_NAMES),
        "maxHeaders": MAX_HEADERS,
        "maxNameLength": MAX_NAME_LENGTH,
        "maxValueLength": MAX_VALUE_LENGTH,
    }
