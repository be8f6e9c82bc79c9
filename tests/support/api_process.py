"""Another API server process against the session's emulator, as a second Lambda instance or a
second worker would be: its own Python, its own memory, the same tables.

    with api_process(stack, frozen_time=...) as url:
        httpx.get(f"{url}/healthz")

Run as a module it serves the app with uvicorn on the given port; `--frozen-time` pins the
rate limiter's clock (unix seconds), so a burst spread over two processes stays inside one
window however slowly the machine runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.ports import free_port
from infra.local_stack import LocalStack
from tests.support.waiting import answers_healthz

REPO_ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def api_process(stack: LocalStack, *, frozen_time: float | None = None) -> Iterator[str]:
    """Starts the process, waits for it to answer, yields its base URL, stops it."""
    assert stack.settings is not None
    port = free_port()
    env = {
        **os.environ,
        **stack.environment,
        "SESSION_KEY_FILE": str(stack.settings.session_key_file),
        "CONTENT_RATE_LIMIT": "0",
        "LOG_LEVEL": "WARNING",
        "POWERTOOLS_TRACE_DISABLED": "true",
    }
    command = [sys.executable, "-m", "tests.support.api_process", "--port", str(port)]
    if frozen_time is not None:
        command += ["--frozen-time", repr(frozen_time)]
    process = subprocess.Popen(
        command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not answers_healthz(url):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                _, errors = process.communicate(timeout=10)
                raise RuntimeError(f"the API process did not start: {errors.decode()[-2000:]}")
            time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--frozen-time", type=float)
    args = parser.parse_args()
    import uvicorn

    from content_service.api.app import create_app
    from content_service.identity.rate_limits import limiter
    from infra import request_check

    request_check.hook_into_app_clients()
    if args.frozen_time is not None:
        frozen: float = args.frozen_time
        limiter.clock = lambda: frozen
    uvicorn.run(create_app(), host="127.0.0.1", port=args.port, log_config=None, access_log=False)


if __name__ == "__main__":
    main()
