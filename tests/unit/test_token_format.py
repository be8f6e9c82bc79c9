"""docs/api.md: `cs_` + 32 random bytes base64url, stored only as a SHA-256 digest."""

from __future__ import annotations

import base64
import hashlib
import re

from content_service.identity.tokens import mint_token, token_digest


def test_token_is_cs_prefix_and_32_random_bytes() -> None:
    tokens = {mint_token() for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        assert re.fullmatch(r"cs_[A-Za-z0-9_-]{43}", token)
        assert len(base64.urlsafe_b64decode(token[3:] + "=")) == 32


def test_digest_is_sha256_hex_of_the_whole_token() -> None:
    token = mint_token()
    assert token_digest(token) == hashlib.sha256(token.encode()).hexdigest()
    assert token not in token_digest(token)
