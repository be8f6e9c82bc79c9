"""Signature of outgoing deliveries and a receiver-side verifier (docs/webhooks.md, "Delivery",
"Receiver guide").

The HMAC key is the UTF-8 bytes of the whole secret, `whsec_` included (docs/api.md), so a
receiver can verify with any Stripe-style verifier. The verifier here is what our docs tell
receivers to do; the service itself only signs. During a rotation's grace period a send
carries one `v1=` per valid secret, newest first; any one of them verifies it.

`standard_signature` is the Standard Webhooks scheme's (`webhook-signature`): base64
HMAC-SHA256 of `<message id>.<timestamp>.<body>` keyed with the decoded secret bytes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from collections.abc import Sequence

DEFAULT_TOLERANCE_SECONDS = 300
SCHEME = "v1"

_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"[0-9a-f]{64}")


class SignatureVerificationError(ValueError):
    """The header is malformed, stale, or matches no signature; the message says which."""


def _signed_payload(timestamp: int, raw_body: bytes) -> bytes:
    return b"%d." % timestamp + raw_body


def sign(secret: str, timestamp: int, raw_body: bytes) -> str:
    """Lower-case hex HMAC-SHA256 of `<timestamp>.<raw body>`."""
    if timestamp < 0:
        raise ValueError("timestamp must not be negative")
    key = secret.encode("utf-8")
    return hmac.new(key, _signed_payload(timestamp, raw_body), hashlib.sha256).hexdigest()


def signature_header(secret: str | Sequence[str], timestamp: int, raw_body: bytes) -> str:
    """The `X-Service-Signature` value: `t=<unix seconds>,v1=<hex>`, with one `v1` per secret
    when given several (newest first)."""
    keys = [secret] if isinstance(secret, str) else list(secret)
    if not keys:
        raise ValueError("at least one secret signs a send")
    return ",".join([f"t={timestamp}", *(f"{SCHEME}={sign(k, timestamp, raw_body)}" for k in keys)])


def standard_signature(key: bytes, message_id: str, timestamp: int, raw_body: bytes) -> str:
    """One `webhook-signature` entry of the Standard Webhooks scheme: `v1,<base64>`."""
    signed = f"{message_id}.{timestamp}.".encode() + raw_body
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def parse_signature_header(header: str) -> tuple[int, list[str]]:
    """Splits on `,` then on the first `=`; returns `t` and the well-formed `v1` values.

    `t` must be ASCII digits only (no sign, no whitespace, at most 12 digits) and appear once.
    A `v1` that is not 64 lower-case hex digits is skipped, as are unknown schemes and parts
    without `=`, so a future scheme can sit beside `v1`; a header left with no `v1` is refused.
    """
    timestamp: int | None = None
    signatures: list[str] = []
    for part in header.split(","):
        name, sep, value = part.partition("=")
        if not sep:
            continue
        if name == "t":
            if timestamp is not None:
                raise SignatureVerificationError("signature header has more than one t")
            if not _TIMESTAMP.fullmatch(value):
                raise SignatureVerificationError("signature header t is not an integer")
            timestamp = int(value)
        elif name == SCHEME and _SIGNATURE.fullmatch(value):
            signatures.append(value)
    if timestamp is None:
        raise SignatureVerificationError("signature header has no t")
    if not signatures:
        raise SignatureVerificationError("signature header has no v1 of 64 lower-case hex digits")
    return timestamp, signatures


def verify_signature(
    raw_body: bytes,
    header: str,
    secret: str,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    now: int | None = None,
) -> None:
    """Accepts when any `v1` matches and `t` is within `tolerance` seconds of `now`.

    Both directions are refused (docs/webhooks.md, "Receiver guide"), unlike Stripe's verifier,
    which only refuses old timestamps. Several `v1` values are allowed so a receiver can accept
    old and new secrets' signatures while it rotates.
    """
    timestamp, signatures = parse_signature_header(header)
    current = int(time.time()) if now is None else now
    if abs(current - timestamp) > tolerance:
        raise SignatureVerificationError(
            f"signature timestamp is {current - timestamp} s away from now "
            f"(tolerance {tolerance} s)"
        )
    expected = sign(secret, timestamp, raw_body)
    if not any(hmac.compare_digest(expected, candidate) for candidate in signatures):
        raise SignatureVerificationError("no v1 signature matches the body and secret")
