"""The fan-out, delivery and scheduler handlers import no web framework (cold start)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("fastapi", "starlette", "pydantic", "mangum", "uvicorn", "graphene", "graphql")

PROBE = """
import importlib.util, json, sys
path = sys.argv[1]
sys.path.insert(0, str(__import__("pathlib").Path(path).parent))
spec = importlib.util.spec_from_file_location("handler_under_test", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
assert callable(module.handler)
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


@pytest.mark.parametrize("function", ["fanout", "delivery", "scheduler"])
def test_handler_imports_no_web_framework(function: str) -> None:
    path = ROOT / "functions" / function / "handler.py"
    env = {"AWS_REGION": "us-east-1", "POWERTOOLS_TRACE_DISABLED": "true"}
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**env, "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    loaded = set(json.loads(completed.stdout.strip().splitlines()[-1]))
    assert "content_service" in loaded
    assert not loaded & set(FORBIDDEN), loaded & set(FORBIDDEN)
