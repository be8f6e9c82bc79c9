"""Envelope encryption of secret attributes with the service's KMS key: `seal` and `open_value`.

A sealed value is text: `sealed:v1:<data key>:<nonce>:<ciphertext>`, each part unpadded
base64url. The data key is a fresh AES-256 key from KMS `GenerateDataKey`, stored as KMS
encrypted it (under the key `SECRETS_KEY_ARN` names, with the caller's encryption context); the
value is AES-256-GCM over its UTF-8 bytes, with the attribute's name as associated data, so a
sealed value copied to another attribute, or to another record (another encryption context),
does not open. One `seal` call seals several attributes of one record under one data key.

Opening asks KMS `Decrypt` for the data key, kept in memory for five minutes (a delivery worker
opens the same endpoint's secret for every delivery of a batch). Text that is not sealed (a row
written before sealing existed) is returned as it is, so old rows keep working until
`content-service webhooks seal` rewrites them. Only the code that signs, sends or shows a secret
opens one: the fan-out and the scheduler read endpoints without ever calling KMS.
"""

from __future__ import annotations

import base64
import secrets
import threading
import time
from collections.abc import Mapping
from typing import Any

from content_service import runtime
from content_service.settings import SettingsError
from content_service.storage import aws

PREFIX = "sealed:v1:"
_NONCE_BYTES = 12
_KEY_CACHE_SECONDS = 300
_KEY_CACHE_SIZE = 1024

_lock = threading.Lock()
_keys: dict[bytes, tuple[bytes, float]] = {}


class SealedValueError(ValueError):
    """A sealed value that does not open (damaged, or sealed for another attribute or record)."""


def is_sealed(value: object) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _aesgcm(key: bytes) -> Any:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM(key)


def seal(values: Mapping[str, str], context: Mapping[str, str]) -> dict[str, str]:
    """Each value sealed, under one new data key, with its key (the attribute) as associated
    data; a value already sealed is kept as it is."""
    settings = runtime.settings()
    if not settings.secrets_key_arn:
        raise SettingsError("SECRETS_KEY_ARN is not set: secrets cannot be stored")
    plain = {name: value for name, value in values.items() if not is_sealed(value)}
    if not plain:
        return dict(values)
    answer = aws.kms(settings).generate_data_key(
        KeyId=settings.secrets_key_arn, KeySpec="AES_256", EncryptionContext=dict(context)
    )
    cipher = _aesgcm(answer["Plaintext"])
    wrapped = _b64(answer["CiphertextBlob"])
    sealed = dict(values)
    for name, value in plain.items():
        nonce = secrets.token_bytes(_NONCE_BYTES)
        body = cipher.encrypt(nonce, value.encode("utf-8"), name.encode("utf-8"))
        sealed[name] = f"{PREFIX}{wrapped}:{_b64(nonce)}:{_b64(body)}"
    return sealed


def _data_key(wrapped: bytes, context: Mapping[str, str]) -> bytes:
    now = time.monotonic()
    cache_key = wrapped + repr(sorted(context.items())).encode()
    with _lock:
        cached = _keys.get(cache_key)
    if cached is not None and cached[1] > now:
        return cached[0]
    settings = runtime.settings()
    request: dict[str, Any] = {"CiphertextBlob": wrapped, "EncryptionContext": dict(context)}
    if settings.secrets_key_arn:
        request["KeyId"] = settings.secrets_key_arn
    plaintext: bytes = aws.kms(settings).decrypt(**request)["Plaintext"]
    with _lock:
        if len(_keys) >= _KEY_CACHE_SIZE:
            _keys.clear()
        _keys[cache_key] = (plaintext, now + _KEY_CACHE_SECONDS)
    return plaintext


def forget_data_keys() -> None:
    """Drops the data keys kept in memory (a test that runs several functions in one process
    gives each the empty memory a Lambda instance starts with)."""
    with _lock:
        _keys.clear()


def open_value(value: str, name: str, context: Mapping[str, str]) -> str:
    """The clear text of a value sealed for attribute `name` of the record `context` names;
    text that is not sealed comes back unchanged."""
    if not is_sealed(value):
        return value
    try:
        wrapped, nonce, body = (_unb64(part) for part in value[len(PREFIX) :].split(":"))
    except ValueError:
        raise SealedValueError(f"{name}: not a sealed value this service wrote") from None
    from cryptography.exceptions import InvalidTag

    try:
        clear: bytes = _aesgcm(_data_key(wrapped, context)).decrypt(
            nonce, body, name.encode("utf-8")
        )
    except InvalidTag:
        raise SealedValueError(f"{name}: the sealed value does not open here") from None
    return clear.decode("utf-8")
