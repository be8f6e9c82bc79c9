"""Password hashing with scrypt (stdlib), a deliberately slow, memory-hard hash.

Stored as `scrypt$<n>$<r>$<p>$<salt b64>$<hash b64>` so parameters can be raised later without
invalidating existing hashes. The clear password is never stored or logged.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

_N, _R, _P, _LEN = 2**14, 8, 1, 32
MIN_PASSWORD_LENGTH = 10


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=_LEN)
    return "$".join(
        ["scrypt", str(_N), str(_R), str(_P), _b64(salt), _b64(digest)],
    )


def verify_password(password: str, stored: str) -> bool:
    """Constant-time check; a malformed stored hash verifies nothing."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.urlsafe_b64decode(digest + "==")
        if len(expected) < _LEN:
            return False
        actual = hashlib.scrypt(
            password.encode(),
            salt=base64.urlsafe_b64decode(salt + "=="),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


@functools.cache
def dummy_hash() -> str:
    """Verified against when the e-mail is unknown, so a wrong e-mail costs the same time as a
    wrong password and the response never tells which half was wrong. Built on first use, not
    at import, to keep cold starts short."""
    return hash_password(secrets.token_urlsafe(16))


def generate_password() -> str:
    return secrets.token_urlsafe(18)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")
