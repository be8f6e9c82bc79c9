"""Cold start of each Lambda handler module: its import time in a fresh Python process.

Each function of template.yaml is imported the way Lambda imports it (its CodeUri on
`sys.path`, the layer's package installed), with the local stack's environment, so the API
handler's import includes building the app and reading its session key from SSM (moto), as
its init phase does on AWS. Reported: the median over RUNS fresh processes, and whether the
module pulled in a web framework (the fan-out and delivery workers must not).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench.report import Row
from infra.local_stack import LocalStack
from infra.template_model import Template

BENCHMARK = "cold_start"
RUNS = 7
WEB_FRAMEWORKS = ("fastapi", "starlette", "pydantic", "mangum", "graphene", "graphql", "jinja2")
# The budgets the README states for importing a handler module (the API's builds the app).
API_IMPORT_BUDGET_MS = 600.0
WORKER_IMPORT_BUDGET_MS = 250.0
# Tracing on, as in Lambda with Active tracing: reported beside, no budget of its own.
TRACING_ON = {
    "AWS_LAMBDA_FUNCTION_NAME": "cold-start-bench",
    "LAMBDA_TASK_ROOT": "/var/task",
    "POWERTOOLS_TRACE_DISABLED": "false",
}

_PROBE = """
import importlib.util, json, sys, time
path, code_dir = sys.argv[1], sys.argv[2]
started = time.perf_counter()
sys.path.insert(0, code_dir)
spec = importlib.util.spec_from_file_location("handler", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
elapsed = time.perf_counter() - started
print(json.dumps({"ms": elapsed * 1000, "modules": sorted(sys.modules)}))
"""


def measure_import(handler_path: Path, env: dict[str, str]) -> tuple[float, set[str]]:
    samples: list[float] = []
    modules: set[str] = set()
    for _ in range(RUNS):
        result = subprocess.run(
            [sys.executable, "-c", _PROBE, str(handler_path), str(handler_path.parent)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        answer = json.loads(result.stdout.strip().splitlines()[-1])
        samples.append(float(answer["ms"]))
        modules = {m.split(".")[0] for m in answer["modules"]}
    return statistics.median(samples), modules


def run(stack: LocalStack) -> list[Row]:
    root = Path(__file__).parents[1]
    template = Template.load(root / "template.yaml")
    assert stack.settings is not None
    env = {
        **os.environ,
        **stack.environment,
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("SESSION_KEY_FILE", None)
    rows: list[Row] = []
    for logical_id, function in sorted(template.functions.items()):
        handler_file = root / function.code_uri / (function.handler.split(".")[0] + ".py")
        rows.extend(_rows_for(logical_id, handler_file, env))
    return rows


def _rows_for(logical_id: str, handler_file: Path, env: dict[str, str]) -> list[Row]:
    median_ms, modules = measure_import(handler_file, env)
    traced_ms, _ = measure_import(handler_file, {**env, **TRACING_ON})
    budget = API_IMPORT_BUDGET_MS if logical_id == "ApiFunction" else WORKER_IMPORT_BUDGET_MS
    rows = [
        Row(
            BENCHMARK,
            logical_id,
            "import time (median of fresh processes)",
            median_ms,
            "ms",
            target=f"<= {budget:.0f}",
            meets_target=median_ms <= budget,
        ),
        Row(BENCHMARK, logical_id, "  the same with tracing on", traced_ms, "ms"),
        Row(
            BENCHMARK,
            logical_id,
            "aws_xray_sdk imported with tracing off",
            int("aws_xray_sdk" in modules),
            "modules",
            target="= 0",
            meets_target="aws_xray_sdk" not in modules,
        ),
    ]
    if logical_id != "ApiFunction":
        imported = sorted(m for m in WEB_FRAMEWORKS if m in modules)
        rows.append(
            Row(
                BENCHMARK,
                logical_id,
                f"web frameworks imported{': ' + ', '.join(imported) if imported else ''}",
                len(imported),
                "modules",
                target="= 0",
                meets_target=not imported,
            )
        )
    return rows
