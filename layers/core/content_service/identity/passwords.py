"""Password hashing with scrypt (stdlib), a deliberately slow, memory-hard hash.

Stored as `scrypt$<n>$<r>$<p>$<salt b64>$<hash b64>` so parameters can be raised later without
invalidating existing hashes: a hash made with other parameters still verifies with its own, and
`needs_rehash` tells the sign-in to store a new one while it holds the clear password. The cost is
N = 2^17, r = 8, p = 1 (OWASP's password storage guidance for scrypt): about 128 MiB and a few
hundred milliseconds per check. New hashes take the cost the settings give (`password_cost`, log2
of N), which only tests lower. The clear password is never stored or logged.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

from content_service.settings import MAX_PASSWORD_COST, PASSWORD_COST

_R, _P, _LEN = 8, 1, 32
# The largest cost a stored hash may ask for (a damaged or planted hash cannot exhaust memory).
_MAX_N = 2**MAX_PASSWORD_COST
MIN_PASSWORD_LENGTH = 10


def _memory(n: int, r: int, p: int) -> int:
    """What OpenSSL's scrypt needs (128 * r * (n + p) bytes), with room to spare."""
    return 128 * r * (n + p) + 2**20


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(
        password.encode(), salt=salt, n=n, r=r, p=p, dklen=length, maxmem=_memory(n, r, p)
    )


def hash_password(password: str, cost: int = PASSWORD_COST) -> str:
    """A new hash with N = 2^cost."""
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, 2**cost, _R, _P, _LEN)
    return "$".join(
        ["scrypt", str(2**cost), str(_R), str(_P), _b64(salt), _b64(digest)],
    )


def verify_password(password: str, stored: str) -> bool:
    """Constant-time check; a malformed stored hash verifies nothing."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt" or not 1 < int(n) <= _MAX_N or not 0 < int(r) * int(p) <= 64:
            return False
        expected = base64.urlsafe_b64decode(digest + "==")
        if len(expected) < _LEN:
            return False
        actual = _scrypt(
            password,
            base64.urlsafe_b64decode(salt + "=="),
            int(n),
            int(r),
            int(p),
            len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


def needs_rehash(stored: str, cost: int = PASSWORD_COST) -> bool:
    """A hash made with other parameters than today's (an older, cheaper N)."""
    return stored.split("$")[:4] != ["scrypt", str(2**cost), str(_R), str(_P)]


@functools.cache
def dummy_hash(cost: int = PASSWORD_COST) -> str:
    """Verified against when the e-mail is unknown, so a wrong e-mail costs the same time as a
    wrong password and the response never tells which half was wrong. Built on first use, not
    at import, to keep cold starts short."""
    return hash_password(secrets.token_urlsafe(16), cost)


def generate_password() -> str:
    return secrets.token_urlsafe(18)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")
