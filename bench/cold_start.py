"""Cold start of each Lambda handler module: its import time in a fresh Python process.

Measured on what is deployed: the `sam build` output (`make bench` builds it first), each
function's folder and the layer's `python/` folder on `sys.path` as Lambda puts them, no
site-packages, and no bytecode written (Lambda's code folders are read-only). The local
stack's environment is set, so the API handler's import includes building the app, as its init
phase does on AWS. Reported: the median over RUNS fresh processes; the floor of the libraries
each handler cannot do without, imported in turn with it; their ratio against the budget; the
same import with tracing on, and with the layer's bytecode taken away, as `sam build`'s own
Python builder ships it (what the layer's Makefile saves); and whether the module pulled in
X-Ray or, in a worker, a web framework.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from pathlib import Path

from bench.lambda_process import function_environment, last_json_line
from bench.report import Row
from infra.local_stack import LocalStack
from infra.template_model import Template

BENCHMARK = "cold_start"
RUNS = 7
ROOT = Path(__file__).parents[1]
BUILD_DIR = ROOT / ".aws-sam" / "build"
LAYER = "CoreLayer"
WEB_FRAMEWORKS = ("fastapi", "starlette", "pydantic", "mangum", "graphene", "graphql", "jinja2")
# The budgets for importing a handler module (the API's builds the app), as ratios to the floor
# of the libraries its kind cannot do without, measured in turn with it (D114); a worker's own
# code within a fifth of its floor, loading what only an occasional case needs when it occurs
# (D146).
API_IMPORT_BUDGET = 2.5
# The event types of a function that answers HTTP requests (SAM's names).
HTTP_EVENTS = frozenset({"HttpApi", "Api"})
WORKER_IMPORT_BUDGET = 1.2
# Tracing on, as in Lambda with Active tracing: reported beside, no budget of its own.
TRACING_ON = {
    "AWS_LAMBDA_FUNCTION_NAME": "cold-start-bench",
    "LAMBDA_TASK_ROOT": "/var/task",
    "POWERTOOLS_TRACE_DISABLED": "false",
}
# What each kind of handler cannot do without, the floor its own code adds to: (name, code).
API_FLOOR = (
    "FastAPI, Mangum, boto3, Powertools logger",
    "import fastapi, mangum, boto3\nfrom aws_lambda_powertools import Logger",
)
WORKER_FLOOR = (
    "boto3, Powertools logger, metrics, batch",
    "import boto3\nfrom aws_lambda_powertools import Logger, Metrics\n"
    "from aws_lambda_powertools.utilities.batch import BatchProcessor",
)

# Lambda's order: the function's code, then the layer's python/ folder.
_PROBE = """
import importlib.util, json, sys, time
path, code_dir, layer_dir = sys.argv[1], sys.argv[2], sys.argv[3]
started = time.perf_counter()
sys.path[:0] = [code_dir, layer_dir]
spec = importlib.util.spec_from_file_location("handler", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
elapsed = time.perf_counter() - started
print(json.dumps({"ms": elapsed * 1000, "modules": sorted(sys.modules)}))
"""

_FLOOR_PROBE = """
import json, sys, time
started = time.perf_counter()
sys.path[:0] = [sys.argv[1]]
exec(sys.argv[2])
print(json.dumps({"ms": (time.perf_counter() - started) * 1000, "modules": []}))
"""


def _fresh_process(argv: list[str], env: dict[str, str]) -> tuple[float, set[str]]:
    # -I: no user site or PYTHON* variables; -S: no site-packages; -B: write no bytecode.
    answer = last_json_line(["-I", "-S", "-B", "-c", *argv], env, timeout=120)
    return float(answer["ms"]), {m.split(".")[0] for m in answer["modules"]}


def median_of_fresh(argv: list[str], env: dict[str, str]) -> tuple[float, set[str]]:
    samples: list[float] = []
    modules: set[str] = set()
    for _ in range(RUNS):
        elapsed, modules = _fresh_process(argv, env)
        samples.append(elapsed)
    return statistics.median(samples), modules


def medians_in_turn(
    argv: list[str], floor_argv: list[str], env: dict[str, str]
) -> tuple[float, float, set[str]]:
    """A module's import and its floor's, one fresh process of each in turn, so that a machine
    slowing down or speeding up during the run weighs on both alike."""
    samples: list[float] = []
    floors: list[float] = []
    modules: set[str] = set()
    for _ in range(RUNS):
        elapsed, modules = _fresh_process(argv, env)
        samples.append(elapsed)
        floors.append(_fresh_process(floor_argv, env)[0])
    return statistics.median(samples), statistics.median(floors), modules


def run(stack: LocalStack) -> list[Row]:
    layer = BUILD_DIR / LAYER / "python"
    if not layer.is_dir():
        raise SystemExit(f"{layer} is missing: `make bench` runs `sam build` first")
    template = Template.load(ROOT / "template.yaml")
    assert stack.settings is not None
    env = function_environment(stack)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="layer-no-bytecode-") as scratch:
        bare_layer = Path(scratch) / "python"
        shutil.copytree(layer, bare_layer, ignore=shutil.ignore_patterns("__pycache__"))
        for logical_id, function in sorted(template.functions.items()):
            code_dir = BUILD_DIR / logical_id
            handler_file = code_dir / (function.handler.split(".")[0] + ".py")
            http = any(event.type in HTTP_EVENTS for event in function.events.values())
            rows.extend(_rows_for(logical_id, handler_file, (layer, bare_layer), env, http=http))
    return rows


def _rows_for(
    logical_id: str,
    handler_file: Path,
    layers: tuple[Path, Path],
    env: dict[str, str],
    *,
    http: bool,
) -> list[Row]:
    """A function answering HTTP (the API, the file URLs) is held to the API's floor and budget:
    it serves through FastAPI and Mangum by design; every other function is a worker."""
    layer, bare_layer = layers
    probe = [_PROBE, str(handler_file), str(handler_file.parent)]
    floor_name, floor_code = API_FLOOR if http else WORKER_FLOOR
    floor_probe = [_FLOOR_PROBE, str(layer), floor_code]
    median_ms, floor_ms, modules = medians_in_turn([*probe, str(layer)], floor_probe, env)
    traced_ms, _ = median_of_fresh([*probe, str(layer)], {**env, **TRACING_ON})
    bare_ms, _ = median_of_fresh([*probe, str(bare_layer)], env)
    budget = API_IMPORT_BUDGET if http else WORKER_IMPORT_BUDGET
    ratio = median_ms / floor_ms
    rows = [
        Row(BENCHMARK, logical_id, "import time (median of fresh processes)", median_ms, "ms"),
        Row(BENCHMARK, logical_id, f"  its floor, in turn with it: {floor_name}", floor_ms, "ms"),
        Row(
            BENCHMARK,
            logical_id,
            "  import time / its floor",
            ratio,
            "x",
            target=f"<= {budget:g} x",
            meets_target=ratio <= budget,
        ),
        Row(BENCHMARK, logical_id, "  the same with tracing on", traced_ms, "ms"),
        Row(BENCHMARK, logical_id, "  the same, layer without bytecode", bare_ms, "ms"),
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
    if not http:
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
