"""The emulator's moto patches: pinned to one moto release, and DynamoDB's answers kept.

`infra/moto_transactions.py`, `infra/moto_journal.py`, `infra/moto_s3_journal.py` and
`infra/moto_speedups.py` reach into moto's internals, so each refuses to install on any moto but
the one they were checked against (`infra/moto_version.py`), whose version must be the one
pyproject.toml pins. A transaction whose operation cannot apply to its item is cancelled as
DynamoDB cancels it: a `ValidationError` reason at that item, nothing applied.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import moto
import pytest
from botocore.exceptions import ClientError

from infra import moto_journal, moto_s3_journal, moto_speedups, moto_transactions
from infra.emulator import Emulator
from infra.moto_version import PINNED, MotoVersionError
from infra.provisioning import provision
from infra.template_model import Template

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@pytest.fixture(scope="module")
def table() -> Iterator[tuple[Any, str]]:
    with Emulator(port=0) as emulator:
        provisioned = provision(emulator, Template.load(), prefix="patches-")
        yield emulator.dynamodb(), provisioned.tables["EndpointsTable"].name


def test_the_pinned_release_is_the_one_pyproject_installs() -> None:
    (pin,) = re.findall(r'"moto\[[^\]]*\]==([^"]+)"', PYPROJECT.read_text())
    assert pin == PINNED == moto.__version__


@pytest.mark.parametrize(
    ("module", "patches"),
    [
        ("moto_transactions", moto_transactions),
        ("moto_journal", moto_journal),
        ("moto_s3_journal", moto_s3_journal),
        ("moto_speedups", moto_speedups),
    ],
)
def test_each_patch_refuses_another_moto_and_says_what_to_check(
    monkeypatch: pytest.MonkeyPatch, module: str, patches: Any
) -> None:
    monkeypatch.setattr(moto, "__version__", "5.3.0")
    with pytest.raises(MotoVersionError) as refused:
        patches.install()
    message = str(refused.value)
    assert f"infra/{module}.py" in message
    assert PINNED in message
    assert "5.3.0" in message
    assert "re-read each patched function" in message


def _reasons(error: ClientError) -> list[str]:
    return [r["Code"] for r in error.response.get("CancellationReasons", [])]


def test_an_operand_of_the_wrong_type_cancels_the_transaction_at_its_item(
    table: tuple[Any, str],
) -> None:
    client, name = table
    client.put_item(TableName=name, Item={"id": {"S": "counted"}, "n": {"N": "1"}})
    client.put_item(TableName=name, Item={"id": {"S": "texted"}, "s": {"S": "words"}})
    with pytest.raises(ClientError) as cancelled:
        client.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": name,
                        "Key": {"id": {"S": "counted"}},
                        "UpdateExpression": "SET n = n + :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    }
                },
                {
                    "Update": {
                        "TableName": name,
                        "Key": {"id": {"S": "texted"}},
                        "UpdateExpression": "SET s = s + :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    }
                },
            ]
        )
    assert cancelled.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert _reasons(cancelled.value) == ["None", "ValidationError"]
    counted = client.get_item(TableName=name, Key={"id": {"S": "counted"}})["Item"]
    assert counted["n"] == {"N": "1"}  # the first operation was not applied


def test_an_item_that_would_outgrow_400_kb_cancels_the_transaction_at_its_item(
    table: tuple[Any, str],
) -> None:
    client, name = table
    client.put_item(TableName=name, Item={"id": {"S": "big"}, "a": {"S": "x" * 300_000}})
    with pytest.raises(ClientError) as cancelled:
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": name, "Item": {"id": {"S": "small"}}}},
                {
                    "Update": {
                        "TableName": name,
                        "Key": {"id": {"S": "big"}},
                        "UpdateExpression": "SET b = :more",
                        "ExpressionAttributeValues": {":more": {"S": "y" * 200_000}},
                    }
                },
            ]
        )
    assert _reasons(cancelled.value) == ["None", "ValidationError"]
    assert "Item" not in client.get_item(TableName=name, Key={"id": {"S": "small"}})
    big = client.get_item(TableName=name, Key={"id": {"S": "big"}})["Item"]
    assert set(big) == {"id", "a"}
