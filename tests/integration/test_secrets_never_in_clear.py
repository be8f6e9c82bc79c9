"""Passwords and tokens never appear in logs, and are stored only as hashes."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from content_service.observability import SERVICE_NAME, logger
from infra.local_stack import LocalStack
from tests.support.cli import run_cli
from tests.support.clients import ClientFactory, sign_in


def _schema_table_dump(stack: LocalStack) -> str:
    assert stack.settings is not None
    client = stack.emulator.dynamodb()
    items: list[Any] = []
    paginator = client.get_paginator("scan")
    for page in paginator.paginate(TableName=stack.settings.tables.schema):
        items.extend(page["Items"])
    return json.dumps(items)


class _Collector(logging.Handler):
    """Formats every record with the service's own JSON formatter, extra keys included."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.setFormatter(logger.registered_formatter)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def collected_logs() -> Iterator[_Collector]:
    collector = _Collector()
    targets = [logging.getLogger(), logging.getLogger(SERVICE_NAME)]
    for target in targets:
        target.addHandler(collector)
    try:
        yield collector
    finally:
        for target in targets:
            target.removeHandler(collector)


def test_password_and_tokens_are_neither_logged_nor_stored(
    stack: LocalStack,
    make_client: ClientFactory,
    capsys: pytest.CaptureFixture[str],
    collected_logs: _Collector,
) -> None:
    email = f"secret-{uuid.uuid4().hex[:8]}@example.com"
    password = f"pw-{uuid.uuid4().hex}"

    assert (
        run_cli("user", "create", "--email", email, "--role", "admin", "--password", password) == 0
    )
    client = sign_in(make_client(), email, password)
    make_client().post("/login", data={"email": email, "password": password + "x"})
    created = client.post(
        "/api/v1/tokens", json={"name": "logged?", "workspaceId": "default", "access": "full"}
    ).json()
    token = created["token"]
    assert make_client(token).get("/api/v1/me").status_code == 200
    make_client(token[:-1] + ("A" if token[-1] != "A" else "B")).get("/api/v1/me")

    logs = "\n".join(collected_logs.lines) + capsys.readouterr().err
    assert '"path":"/api/v1/tokens"' in logs.replace(" ", ""), "the access log was not captured"
    assert '"message":"signed in"' in logs
    assert password not in logs
    assert token not in logs
    assert token[3:] not in logs

    stored = _schema_table_dump(stack)
    assert email in stored
    assert password not in stored
    assert token not in stored
    assert token[3:] not in stored
