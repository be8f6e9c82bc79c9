"""Passwords are stored only as a slow salted hash and verified in constant time."""

from __future__ import annotations

from content_service.identity.passwords import hash_password, verify_password


def test_hash_is_scrypt_salted_and_never_contains_the_password() -> None:
    password = "correct horse battery staple"
    first, second = hash_password(password), hash_password(password)
    assert first.startswith("scrypt$16384$8$1$")
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
