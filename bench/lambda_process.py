"""A Lambda handler in a Python process of its own, for the suites that measure one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from infra.local_stack import LocalStack


def function_environment(stack: LocalStack) -> dict[str, str]:
    """What a function of the stack sees on Lambda: its environment, quiet, and the session key
    read from the parameter store (SSM on the stack's emulator), not from a local file."""
    env = {
        **os.environ,
        **stack.environment,
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("SESSION_KEY_FILE", None)
    return env


def last_json_line(arguments: list[str], env: dict[str, str], timeout: float) -> Any:
    """Runs this Python with `arguments` and returns the JSON its last line of output holds."""
    result = subprocess.run(
        [sys.executable, *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])
