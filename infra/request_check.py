"""Holds every request the app's own AWS clients send to `request_rules` before it leaves.

Switched on by `AWS_REQUEST_CHECK=on`, which the local stack sets for `make run` and for every
test stack (and passes to any process it starts through its environment); the template never
sets it, and the layer does not ship this module: on Lambda the check does not exist.
`AWS_REQUEST_CHECK_TABLES` carries the tables' key schemas as JSON
(`{name: TableSchema.to_json()}`), written by the local stack from what it provisioned.

Each process of the local stack (the one you started, the API's workers, the emulator's, which
runs the invoked functions) and the test process call `hook_into_app_clients` as they start: the
layer's `storage.aws.on_client_created` then hands this module every client it builds, and a
DynamoDB or SQS client built while the switch is on gets a botocore `before-parameter-build`
handler (so PynamoDB's requests, which go through that client, are held too). A request that
breaks a rule raises `RequestRefused` naming the rule, before anything is sent, and is also
noted in a process-wide list, so a test fails on it even when the app caught the exception (a
batch handler that reports the record as failed, a poller that retries).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from typing import Any

from content_service.storage import aws
from infra.request_rules import RequestRefused, Tables, TableSchema, check

SWITCH = "AWS_REQUEST_CHECK"
TABLES = "AWS_REQUEST_CHECK_TABLES"
_SERVICES = ("dynamodb", "sqs")

_lock = threading.Lock()
_refused: list[RequestRefused] = []
_parsed: tuple[str, Tables] = ("", {})


def enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether `AWS_REQUEST_CHECK` asks for the check; any value but on/off is an error."""
    raw = (os.environ if env is None else env).get(SWITCH, "").strip().lower()
    if raw not in ("", "on", "off"):
        raise ValueError(f"{SWITCH} must be on or off, not {raw!r}")
    return raw == "on"


def tables_json(tables: Mapping[str, TableSchema]) -> str:
    """The value of `AWS_REQUEST_CHECK_TABLES` for these tables."""
    return json.dumps({name: schema.to_json() for name, schema in tables.items()})


def tables() -> Tables:
    """The key schemas in `AWS_REQUEST_CHECK_TABLES` (parsed once per value)."""
    global _parsed
    raw = os.environ.get(TABLES, "")
    cached = _parsed
    if cached[0] == raw:
        return cached[1]
    loaded: Any = json.loads(raw) if raw else {}
    parsed = {str(name): TableSchema.from_json(spec) for name, spec in loaded.items()}
    _parsed = (raw, parsed)
    return parsed


def hook_into_app_clients() -> None:
    """Every client the app builds in this process from now on is checked while the switch is
    on (`storage.aws` keeps the hook once, however often this is called)."""
    aws.on_client_created(install_when_switched_on)


def install_when_switched_on(client: Any) -> None:
    """`install` when `AWS_REQUEST_CHECK` is on as the client is built."""
    if enabled():
        install(client)


def install(client: Any) -> None:
    """Registers the check on one botocore client (a DynamoDB or SQS client; others pass)."""
    service = client.meta.service_model.service_name
    if service in _SERVICES:
        client.meta.events.register(f"before-parameter-build.{service}", _before_build)


def _before_build(params: Mapping[str, Any], model: Any, **_: Any) -> None:
    try:
        check(model.service_model.service_name, model.name, params, tables())
    except RequestRefused as refused:
        with _lock:
            _refused.append(refused)
        raise


def take_refusals() -> list[RequestRefused]:
    """The refusals since the last call (and forgets them): what a test fixture checks."""
    with _lock:
        taken = list(_refused)
        _refused.clear()
    return taken
