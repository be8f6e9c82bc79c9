"""The emulator's KMS keys, kept across restarts of the local stack as its tables are.

moto draws each key's id and material at random, so a key provisioned again after a restart could
not open what the previous run sealed with it (webhook secrets, docs/webhooks.md). The local stack
saves each provisioned key's id, ARN, alias and material to a file readable by its owner only,
and on the next start puts them back into moto, in this process (the server runs here), before
provisioning looks the keys up by alias. Only ever local: these are the emulator's keys.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from infra.provisioning import DEFAULT_ACCOUNT_ID, ProvisionedKey


def _backend(region: str) -> Any:
    from moto.kms.models import kms_backends

    return kms_backends[DEFAULT_ACCOUNT_ID][region]


def save(path: Path, region: str, keys: Iterable[ProvisionedKey]) -> None:
    """Writes the keys' ids, aliases and material (owner-only, replaced atomically)."""
    backend = _backend(region)
    kept = [
        {
            "keyId": key.key_id,
            "arn": key.arn,
            "alias": key.alias,
            "material": base64.b64encode(backend.keys[key.key_id].key_material).decode(),
        }
        for key in keys
    ]
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump({"keys": kept}, handle)
    os.replace(temporary, path)


def restore(path: Path, region: str) -> int:
    """Puts the saved keys back under their ids and aliases; how many (0 without a file)."""
    if not path.is_file():
        return 0
    saved = json.loads(path.read_text(encoding="utf-8"))["keys"]
    backend = _backend(region)
    restored = 0
    for entry in saved:
        if entry["keyId"] in backend.keys:
            continue
        key = backend.create_key(
            policy=None,
            key_usage="ENCRYPT_DECRYPT",
            key_spec="SYMMETRIC_DEFAULT",
            description=entry["alias"],
            tags=None,
        )
        backend.keys.pop(key.id)
        key.id, key.arn = entry["keyId"], entry["arn"]
        key.key_material = base64.b64decode(entry["material"])
        backend.keys[key.id] = key
        if not backend.alias_exists(entry["alias"]):
            backend.create_alias(key.id, entry["alias"])
        restored += 1
    return restored
