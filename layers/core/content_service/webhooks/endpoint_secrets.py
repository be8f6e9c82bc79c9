"""Endpoint secrets (spec 2.3): `whsec_` + 32 random bytes in unpadded base64url (docs/api.md).

Named `endpoint_secrets` so it does not shadow the standard library's `secrets` module.
"""

from __future__ import annotations

import base64
import secrets

SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
SECRET_RANDOM_BYTES = 32
HINT_LENGTH = 4


def mint_secret() -> str:
    """`whsec_` + 32 random bytes in unpadded base64url: 49 characters in all."""
    raw = secrets.token_bytes(SECRET_RANDOM_BYTES)
    return SECRET_PREFIX + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def secret_hint(secret: str) -> str:
    """The last four characters, shown on every read after the secret's one-time reveal."""
    return secret[-HINT_LENGTH:]
