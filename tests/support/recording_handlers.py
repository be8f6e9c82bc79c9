"""Recording handlers: the real template with every function's code replaced by a handler that
records each event it gets and answers from a plan the test sets (the poller tests)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from infra.template_model import Template

# A handler that records what it was called with and answers from a plan the test sets:
# "ok", "raise", or {"fail": [indexes]} (a partial batch failure naming those records).
RECORDING_HANDLER = """
import threading

CALLS = []
PLAN = []
LOCK = threading.Lock()


def _identifier(record):
    if "dynamodb" in record:
        return record["dynamodb"]["SequenceNumber"]
    return record.get("messageId")


def handler(event, context):
    with LOCK:
        CALLS.append(
            {
                "event": event,
                "function_name": context.function_name,
                "memory_limit_in_mb": context.memory_limit_in_mb,
                "invoked_function_arn": context.invoked_function_arn,
                "aws_request_id": context.aws_request_id,
                "remaining_ms": context.get_remaining_time_in_millis(),
            }
        )
        plan = PLAN.pop(0) if PLAN else "ok"
    if plan == "raise":
        raise RuntimeError("planned failure")
    if isinstance(plan, dict):
        records = event.get("Records", [])
        return {
            "batchItemFailures": [
                {"itemIdentifier": _identifier(records[i])}
                for i in plan["fail"]
                if i < len(records)
            ]
        }
    return {"batchItemFailures": []}
"""


def template_with_recording_handlers(tmp_path: Path) -> Template:
    """The real template, with every function's CodeUri pointing at a recording handler.

    Everything else (events, batch sizes, filters, retries, destinations) stays the template's.
    """
    real = Template.load()
    body = copy.deepcopy(dict(real.body))
    for logical_id in real.functions:
        code_dir = tmp_path / "functions" / logical_id
        code_dir.mkdir(parents=True)
        (code_dir / "handler.py").write_text(RECORDING_HANDLER, encoding="utf-8")
        body["Resources"][logical_id]["Properties"]["CodeUri"] = f"functions/{logical_id}/"
    return Template(body, tmp_path / "template.yaml")


def calls_of(handler: Any) -> list[dict[str, Any]]:
    """The CALLS list of a handler loaded from RECORDING_HANDLER."""
    calls: list[dict[str, Any]] = handler.__globals__["CALLS"]
    return calls


def plan_of(handler: Any) -> list[Any]:
    plan: list[Any] = handler.__globals__["PLAN"]
    return plan
