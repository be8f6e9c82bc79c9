"""What each Lambda handler module imports at cold start, in a fresh interpreter per case.

- The fan-out, purge, delivery and scheduler workers import no web framework, no GraphQL library and
  no PynamoDB (they use none of them).
- The API handler loads graphene, graphql-core, jinja2 and PynamoDB only when the first GraphQL
  request, page or identity lookup needs them, not at import.
- Each worker loads at import the webhook modules its every invocation uses, and no module only
  an occasional case needs (a notice, an EventBridge target, an alarm, a recovery job, a replay,
  another worker's job): those load when one occurs (D146).
- With tracing off (`POWERTOOLS_TRACE_DISABLED`, or outside Lambda) no handler imports
  `aws_xray_sdk`; with it on, X-Ray patches only what the service sends requests with.

The probe itself is checked against a handler that does import a denied module, so a broken
probe cannot pass every case.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

import pytest

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ROOT / "functions"
WORKERS = ("fanout", "purge", "delivery", "scheduler")

WEB_FRAMEWORKS = ("fastapi", "starlette", "pydantic", "mangum", "uvicorn", "jinja2")
GRAPHQL = ("graphene", "graphql")
TRACING = ("aws_xray_sdk",)
DENIED_IN_WORKERS = (*WEB_FRAMEWORKS, *GRAPHQL, *TRACING, "pynamodb")
DENIED_IN_API = (*GRAPHQL, *TRACING, "jinja2", "pynamodb")

# Per worker: webhook modules its every invocation uses, and modules only an occasional case or
# another worker needs.
WEBHOOK_MODULES_AT_IMPORT = {
    "delivery": (
        "sending.delivery_worker",
        "sending.http_sender",
        "sending.signing",
        "deliveries.delivery_store",
        "endpoints.endpoint_store",
    ),
    "fanout": (
        "deliveries.fanout",
        "deliveries.matching",
        "deliveries.delivery_store",
        "deliveries.outbox_store",
    ),
    "scheduler": (
        "deliveries.sweeper",
        "deliveries.fanout",
        "deliveries.delivery_store",
        "deliveries.outbox_store",
    ),
}
OCCASIONAL = (
    "operations.notices",
    "operations.notice_redaction",
    "operations.alarm_topic",
    "sending.event_bus",
    "deliveries.recovery",
    "deliveries.replay",
)
WEBHOOK_MODULES_DEFERRED = {
    "delivery": (
        *OCCASIONAL,
        "deliveries.sweeper",
        "deliveries.fanout",
        "endpoints.endpoint_registry",
    ),
    "fanout": (
        *OCCASIONAL,
        "sending.http_sender",
        "deliveries.sweeper",
        "sending.rate_limit",
        "deliveries.attempt_stats",
    ),
    "scheduler": (
        *OCCASIONAL,
        "sending.http_sender",
        "sending.rate_limit",
        "deliveries.attempt_stats",
        "endpoints.endpoint_registry",
    ),
}

TRACING_OFF = {"POWERTOOLS_TRACE_DISABLED": "true"}
# Powertools turns tracing off outside Lambda even when nothing says so.
OUTSIDE_LAMBDA: dict[str, str] = {}
TRACING_ON = {
    "POWERTOOLS_TRACE_DISABLED": "false",
    "LAMBDA_TASK_ROOT": "/var/task",
    "AWS_LAMBDA_FUNCTION_NAME": "probe",
}

PROBE = """
import importlib.util, json, pathlib, sys
path = pathlib.Path(sys.argv[1])
sys.path.insert(0, str(path.parent))
spec = importlib.util.spec_from_file_location("handler_under_test", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
assert callable(module.handler)
patched = sorted(sys.modules["aws_xray_sdk.core.patcher"]._PATCHED_MODULES) if (
    "aws_xray_sdk.core.patcher" in sys.modules
) else None
print(json.dumps({
    "modules": sorted({name.split(".")[0] for name in sys.modules}),
    "webhooks": sorted(
        name.removeprefix("content_service.webhooks.")
        for name in sys.modules if name.startswith("content_service.webhooks.")
    ),
    "patched": patched,
}))
"""


class Probe(TypedDict):
    """What the probe prints: the top-level modules imported, the webhook modules among them
    (named below `content_service.webhooks`: `sending.http_sender`), and what X-Ray patched
    (None when X-Ray was not imported)."""

    modules: list[str]
    webhooks: list[str]
    patched: list[str] | None


def _import_in_fresh_process(handler: Path, env: dict[str, str], tmp_path: Path) -> Probe:
    key_file = tmp_path / "session.key"
    key_file.write_text("k" * 40)
    base = {
        "PATH": "/usr/bin:/bin",
        "AWS_REGION": "us-east-1",
        # The API reads its key at the first cookie; at import it only checks one is configured.
        "SESSION_KEY_FILE": str(key_file),
    }
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, str(handler)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**base, **env},
        timeout=120,
    )
    answer: Probe = json.loads(completed.stdout.strip().splitlines()[-1])
    return answer


def _denied(answer: Probe, denied: tuple[str, ...]) -> set[str]:
    loaded = answer["modules"]
    assert isinstance(loaded, list)
    return set(loaded) & set(denied)


@pytest.mark.parametrize("env", [TRACING_OFF, OUTSIDE_LAMBDA], ids=["trace-disabled", "no-lambda"])
@pytest.mark.parametrize("function", WORKERS)
def test_worker_imports_nothing_it_does_not_use(
    function: str, env: dict[str, str], tmp_path: Path
) -> None:
    answer = _import_in_fresh_process(FUNCTIONS / function / "handler.py", env, tmp_path)
    assert "content_service" in answer["modules"]
    assert not _denied(answer, DENIED_IN_WORKERS), _denied(answer, DENIED_IN_WORKERS)


@pytest.mark.parametrize("function", sorted(WEBHOOK_MODULES_DEFERRED))
def test_worker_loads_webhook_modules_as_its_work_needs_them(function: str, tmp_path: Path) -> None:
    answer = _import_in_fresh_process(FUNCTIONS / function / "handler.py", TRACING_OFF, tmp_path)
    loaded = set(answer["webhooks"])
    assert set(WEBHOOK_MODULES_AT_IMPORT[function]) <= loaded
    assert not loaded & set(WEBHOOK_MODULES_DEFERRED[function]), sorted(
        loaded & set(WEBHOOK_MODULES_DEFERRED[function])
    )


def test_purge_loads_an_edge_s_client_only_when_the_configuration_names_that_edge(
    tmp_path: Path,
) -> None:
    """`requests` serves only the Varnish purger: a CloudFront-only deployment never loads it."""
    answer = _import_in_fresh_process(FUNCTIONS / "purge" / "handler.py", TRACING_OFF, tmp_path)
    assert "requests" not in answer["modules"]


@pytest.mark.parametrize("env", [TRACING_OFF, OUTSIDE_LAMBDA], ids=["trace-disabled", "no-lambda"])
def test_api_defers_what_only_some_requests_need(env: dict[str, str], tmp_path: Path) -> None:
    answer = _import_in_fresh_process(FUNCTIONS / "api" / "handler.py", env, tmp_path)
    assert {"fastapi", "mangum", "content_service"} <= set(answer["modules"])
    assert not _denied(answer, DENIED_IN_API), _denied(answer, DENIED_IN_API)


@pytest.mark.parametrize("function", ["api", *WORKERS])
def test_tracing_on_patches_only_what_the_service_uses(function: str, tmp_path: Path) -> None:
    answer = _import_in_fresh_process(FUNCTIONS / function / "handler.py", TRACING_ON, tmp_path)
    assert "aws_xray_sdk" in answer["modules"]
    assert answer["patched"] == ["botocore", "httplib"]


def test_the_probe_sees_a_denied_import(tmp_path: Path) -> None:
    handler = tmp_path / "handler.py"
    handler.write_text("import graphql\n\ndef handler(event, context):\n    return None\n")
    answer = _import_in_fresh_process(handler, TRACING_OFF, tmp_path)
    assert _denied(answer, DENIED_IN_WORKERS) == {"graphql"}
