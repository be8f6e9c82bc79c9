"""Passwords are stored only as a slow salted hash and verified in constant time."""

from __future__ import annotations

import base64
import hashlib
import secrets

from content_service.identity.passwords import hash_password, needs_rehash, verify_password


def old_hash(password: str, n: int = 2**14) -> str:
    """A hash in the stored format made with an older, cheaper cost."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=8, p=1, dklen=32)

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    return f"scrypt${n}$8$1${b64(salt)}${b64(digest)}"


def test_hash_is_scrypt_salted_and_never_contains_the_password() -> None:
    password = "correct horse battery staple"
    first, second = hash_password(password), hash_password(password)
    assert first.startswith("scrypt$131072$8$1$")
    assert first != second
    assert password not in first
    assert verify_password(password, first)
    assert verify_password(password, second)


def test_wrong_password_and_malformed_hashes_verify_nothing() -> None:
    stored = hash_password("correct horse battery staple")
    assert not verify_password("correct horse battery stapl", stored)
    assert not verify_password("", stored)
    for malformed in ("", "plain", "bcrypt$1$2$3$4$5", "scrypt$x$8$1$AA$AA", stored[:-4]):
        assert not verify_password("correct horse battery staple", malformed)


def test_an_older_cost_still_verifies_and_asks_for_a_rehash() -> None:
    older = old_hash("correct horse battery staple")
    assert verify_password("correct horse battery staple", older)
    assert needs_rehash(older)
    assert not needs_rehash(hash_password("correct horse battery staple"))


def test_a_stored_hash_cannot_ask_for_an_absurd_cost() -> None:
    planted = old_hash("pw").replace("scrypt$16384$", f"scrypt${2**24}$")
    assert not verify_password("pw", planted)
