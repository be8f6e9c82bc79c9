"""Webhook secrets and custom header values are stored sealed with the template's KMS key (the
emulator's), open only for their own endpoint and attribute, and rows stored in clear before
sealing keep working until `content-service webhooks seal` seals them."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.kms.models import kms_backends

from content_service import runtime
from content_service.storage import sealing
from content_service.webhooks import services
from content_service.webhooks.endpoints import sealing_context
from harness.receiver import Receiver
from infra.emulator import Emulator
from infra.local_stack import LocalStack, LocalStackOptions
from tests.support.cli import run_cli
from tests.support.webhooks import Hooks, stripe_accepts, write_event

pytestmark = pytest.mark.usefixtures("local_receivers_allowed")


def every_stored_item(stack: LocalStack) -> str:
    """Every item of every table in the emulator, as one text to search."""
    dynamodb = stack.emulator.dynamodb()
    items: list[Any] = []
    for table in dynamodb.list_tables()["TableNames"]:
        for page in dynamodb.get_paginator("scan").paginate(TableName=table):
            items.extend(page["Items"])
    return json.dumps(items, default=str)


def test_no_secret_or_header_value_is_stored_in_clear(
    stack: LocalStack, hooks: Hooks, receiver: Receiver, new_workspace: Any
) -> None:
    workspace = new_workspace()
    credential = f"Bearer receiver-credential-{uuid.uuid4().hex}"
    api_key = f"key-{uuid.uuid4().hex}"
    created = hooks.create(
        receiver.url(),
        workspaces=[workspace.id],
        headers={"Authorization": credential, "X-Api-Key": api_key},
    )
    first_secret = created["secret"]
    assert hooks.get(created["id"])["headers"] == {
        "Authorization": credential,
        "X-Api-Key": api_key,
    }
    rotated = hooks.client.post(f"/api/webhooks/{created['id']}/rotate-secret").json()["secret"]
    assert hooks.client.post(f"/api/webhooks/{created['id']}/test").json()["ok"]
    write_event(workspace_id=workspace.id, kind="entry.published")
    stack.drain()

    ping, delivery = receiver.requests[-2:]
    for received in (ping, delivery):
        assert received.header("Authorization") == credential
        assert received.header("X-Api-Key") == api_key
        assert stripe_accepts(received, rotated)
    stored = services.endpoint_store(runtime.settings()).get(created["id"])
    assert stored is not None
    assert stored.secret.startswith(sealing.PREFIX)
    assert all(v.startswith(sealing.PREFIX) for v in stored.headers.values())
    everything = every_stored_item(stack)
    for clear in (first_secret, rotated, credential, api_key, credential.split()[-1], "whsec_"):
        assert clear not in everything


def test_a_sealed_value_opens_only_as_the_attribute_of_the_endpoint_it_was_sealed_for(
    stack: LocalStack,
) -> None:
    mine, other = sealing_context(str(uuid.uuid4())), sealing_context(str(uuid.uuid4()))
    sealed = sealing.seal({"secret": "whsec_abc", "headers/x-a": "one"}, mine)
    assert sealing.open_value(sealed["secret"], "secret", mine) == "whsec_abc"
    assert sealing.open_value(sealed["headers/x-a"], "headers/x-a", mine) == "one"
    with pytest.raises(sealing.SealedValueError):
        sealing.open_value(sealed["headers/x-a"], "secret", mine)
    sealing.forget_data_keys()
    with pytest.raises(ClientError, match="InvalidCiphertext"):
        sealing.open_value(sealed["secret"], "secret", other)
    # One data key for the values of one write; the value itself differs even when equal.
    twice = sealing.seal({"a": "same", "b": "same"}, mine)
    assert twice["a"].split(":")[2] == twice["b"].split(":")[2]
    assert twice["a"] != twice["b"]


def test_a_row_stored_in_clear_works_until_the_seal_command_seals_it(
    stack: LocalStack,
    hooks: Hooks,
    receiver: Receiver,
    new_workspace: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A row written before sealing existed: its secret and headers in clear."""
    workspace = new_workspace()
    created = hooks.create(receiver.url(), workspaces=[workspace.id])
    clear_secret = "whsec_" + "A" * 43
    settings = runtime.settings()
    dynamodb = stack.emulator.dynamodb()
    key = {"id": {"S": created["id"]}}
    dynamodb.update_item(
        TableName=settings.tables.endpoints,
        Key=key,
        UpdateExpression="SET secret = :s, headers = :h",
        ExpressionAttributeValues={
            ":s": {"S": clear_secret},
            ":h": {"M": {"Authorization": {"S": "Bearer old-clear-value"}}},
        },
    )

    def delivers_with_the_clear_values() -> None:
        write_event(workspace_id=workspace.id, kind="entry.updated")
        stack.drain()
        assert stripe_accepts(receiver.requests[-1], clear_secret)
        assert receiver.requests[-1].header("Authorization") == "Bearer old-clear-value"

    def sealed() -> int:
        capsys.readouterr()
        assert run_cli("webhooks", "seal") == 0
        return int(json.loads(capsys.readouterr().out)["sealed"])

    try:
        assert hooks.get(created["id"])["secretHint"] == "AAAA"
        delivers_with_the_clear_values()
        assert sealed() >= 1
        item = dynamodb.get_item(TableName=settings.tables.endpoints, Key=key)["Item"]
        assert item["secret"]["S"].startswith(sealing.PREFIX)
        assert item["headers"]["M"]["Authorization"]["S"].startswith(sealing.PREFIX)
        delivers_with_the_clear_values()
        assert sealed() == 0
    finally:
        hooks.client.delete(f"/api/webhooks/{created['id']}")


def test_the_emulators_key_comes_from_the_template_and_survives_a_restart(
    tmp_path: Path,
) -> None:
    emulator = Emulator(port=0)
    options = LocalStackOptions(
        emulator=emulator,
        local_dir=tmp_path,
        prefix=f"keys{uuid.uuid4().hex[:6]}-",
        api=False,
        pollers=False,
        bootstrap=False,
        apply_environment=False,
        user_env={},
        resumer=None,
    )
    with emulator:
        with LocalStack(options) as first:
            assert first.provisioned is not None
            key = first.provisioned.keys["SecretsKey"]
            assert first.environment["SECRETS_KEY_ARN"] == key.arn
            blob = emulator.kms().encrypt(KeyId=key.arn, Plaintext=b"whsec_x")["CiphertextBlob"]
        assert (tmp_path / "kms-keys.json").stat().st_mode & 0o777 == 0o600
        # A fresh emulator knows no key: moto's state is the process's, so forget this one.
        kms_backends[DEFAULT_ACCOUNT_ID][emulator.region].keys.pop(key.key_id)
        with LocalStack(options) as second:
            assert second.provisioned is not None
            assert second.provisioned.keys["SecretsKey"] == key
            assert emulator.kms().decrypt(CiphertextBlob=blob)["Plaintext"] == b"whsec_x"
