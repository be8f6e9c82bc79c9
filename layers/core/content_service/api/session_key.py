"""The key that signs session cookies: an SSM SecureString on AWS, a local file otherwise.

The key is read when the first session cookie is checked or signed, not at cold start: a
request with a bearer token never needs it, so an instance serving only those never calls SSM.
Whether a source is configured at all is still checked at cold start.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable

import itsdangerous
from starlette.middleware.sessions import SessionMiddleware
from starlette.types import ASGIApp

from content_service.settings import Settings, SettingsError
from content_service.storage import aws


def require_key_source(settings: Settings) -> None:
    if settings.session_key_file is None and not settings.session_key_parameter:
        raise SettingsError("no session key: set SESSION_KEY_FILE or SESSION_KEY_PARAMETER")


def load_session_key(settings: Settings) -> str:
    require_key_source(settings)
    if settings.session_key_file is not None:
        key = settings.session_key_file.read_text().strip()
    else:
        from aws_lambda_powertools.utilities.parameters import SSMProvider

        provider = SSMProvider(boto3_client=aws.ssm(settings))
        key = str(provider.get(settings.session_key_parameter, decrypt=True))
    if len(key) < 32:
        raise SettingsError("the session key must be at least 32 characters")
    return key


class _SignerOnFirstUse:
    """itsdangerous' TimestampSigner, built from the key the first time one is needed."""

    def __init__(self, load_key: Callable[[], str]) -> None:
        self._load_key = load_key
        self._lock = threading.Lock()
        self._signer: itsdangerous.TimestampSigner | None = None

    def _ready(self) -> itsdangerous.TimestampSigner:
        with self._lock:
            if self._signer is None:
                self._signer = itsdangerous.TimestampSigner(self._load_key())
            return self._signer

    def sign(self, value: str | bytes) -> bytes:
        return self._ready().sign(value)

    def unsign(self, value: str | bytes, max_age: int | None = None) -> bytes:
        return self._ready().unsign(value, max_age=max_age)


class SessionKeyMiddleware(SessionMiddleware):
    """Starlette's session middleware, its key read at the first cookie it checks or signs.
    Its cookie is made `Secure` over https by `security_headers`, which knows the request."""

    def __init__(
        self,
        app: ASGIApp,
        /,
        *,
        load_key: Callable[[], str],
        session_cookie: str,
        max_age: int,
    ) -> None:
        # Starlette builds its signer here; a random key it never uses, replaced at once.
        super().__init__(
            app,
            secret_key=secrets.token_hex(32),
            session_cookie=session_cookie,
            max_age=max_age,
            same_site="lax",
        )
        self.signer = _SignerOnFirstUse(load_key)  # type: ignore[assignment]
