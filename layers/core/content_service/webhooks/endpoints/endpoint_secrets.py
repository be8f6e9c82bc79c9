"""Endpoint secrets: minting, the older secrets a rotation keeps valid, and what signs a send.

The one place that knows how an endpoint's secrets are held: the current secret, and the older
secrets a rotation with a grace period keeps valid, each with its expiry (newest first, at most
`MAX_OLDER_SECRETS`). The endpoint store reads and writes them only through `SecretRing`, so
wrapping each secret value (sealing at rest) changes this module and the store alone.

Two forms, one per signature scheme (docs/webhooks.md, "Signature schemes"):
- `service`: `whsec_` + 32 random bytes in unpadded base64url (49 characters); the HMAC key is
  the UTF-8 bytes of the whole string, as Stripe's verifiers take it.
- `standard`: `whsec_` + 32 random bytes in padded standard base64, the form the official
  `standardwebhooks` libraries decode into the key bytes. The same string is also the
  `X-Service-Signature` key (its UTF-8 bytes), so one secret verifies both headers.

Named `endpoint_secrets` so it does not shadow the standard library's `secrets` module.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from content_service.clock import iso_utc

SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
SECRET_RANDOM_BYTES = 32
HINT_LENGTH = 4
MAX_OLDER_SECRETS = 10
MAX_GRACE_SECONDS = 7 * 24 * 3600

SignatureScheme = Literal["service", "standard"]
SIGNATURE_SCHEMES: tuple[SignatureScheme, ...] = ("service", "standard")


def mint_secret(scheme: SignatureScheme = "service") -> str:
    """A new secret in the form its scheme's verifiers take."""
    raw = secrets.token_bytes(SECRET_RANDOM_BYTES)
    if scheme == "standard":
        return SECRET_PREFIX + base64.b64encode(raw).decode("ascii")
    return SECRET_PREFIX + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def secret_hint(secret: str) -> str:
    """The last four characters, shown on every read after the secret's one-time reveal."""
    return secret[-HINT_LENGTH:]


def standard_key(secret: str) -> bytes:
    """The key bytes a `standardwebhooks` verifier derives from `secret` (base64 after the
    prefix, standard alphabet, strictly: a base64url secret has no such key)."""
    body = secret.removeprefix(SECRET_PREFIX)
    try:
        key = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the secret is not standard base64 after its prefix") from None
    if not key:
        raise ValueError("the secret decodes to no key bytes")
    return key


@dataclass(frozen=True)
class OlderSecret:
    """A secret replaced by a rotation, still valid until `expires_at` (ISO 8601 UTC)."""

    secret: str
    expires_at: str

    def valid_at(self, now_iso: str) -> bool:
        return now_iso < self.expires_at

    def to_values(self) -> dict[str, str]:
        return {"secret": self.secret, "expiresAt": self.expires_at}

    def to_json(self) -> dict[str, str]:
        """What any read shows: the hint and the expiry, never the secret."""
        return {"secretHint": secret_hint(self.secret), "expiresAt": self.expires_at}


@dataclass(frozen=True)
class SecretRing:
    """An endpoint's current secret and its older secrets, newest first."""

    current: str
    older: tuple[OlderSecret, ...] = ()

    def signing(self, now: float) -> tuple[str, ...]:
        """Every secret valid now, newest first: each signs the send, so a receiver holding
        any one of them verifies it."""
        now_iso = iso_utc(now)
        return (self.current, *(o.secret for o in self.older if o.valid_at(now_iso)))

    def valid_older(self, now: float) -> tuple[OlderSecret, ...]:
        now_iso = iso_utc(now)
        return tuple(o for o in self.older if o.valid_at(now_iso))

    def rotated(self, new: str, grace_seconds: int, now: float) -> SecretRing:
        """`new` becomes current. With a grace period the replaced secret stays valid that
        long; with none it stops now. Older secrets keep their own expiry and their order
        (the most recently replaced first); expired ones are dropped, and past
        `MAX_OLDER_SECRETS` the oldest go."""
        if not 0 <= grace_seconds <= MAX_GRACE_SECONDS:
            raise ValueError(f"graceSeconds must be from 0 to {MAX_GRACE_SECONDS} (7 days)")
        kept = self.valid_older(now)
        if grace_seconds > 0:
            kept = (OlderSecret(self.current, iso_utc(now + grace_seconds)), *kept)
        return SecretRing(new, kept[:MAX_OLDER_SECRETS])

    def older_values(self) -> list[dict[str, str]]:
        """The stored form of the older secrets (the `olderSecrets` attribute)."""
        return [o.to_values() for o in self.older]

    @staticmethod
    def older_from_values(stored: Sequence[Mapping[str, Any]] | None) -> tuple[OlderSecret, ...]:
        return tuple(
            OlderSecret(str(o["secret"]), str(o["expiresAt"]))
            for o in stored or ()
            if isinstance(o, Mapping) and "secret" in o and "expiresAt" in o
        )
