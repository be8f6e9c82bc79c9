"""The media function's handler answering one file URL event, in a process of its own.

`python -m bench.media_process EVENT_FILE` imports `functions/media/handler.py` as Lambda does,
answers the API Gateway event (payload 2.0) in EVENT_FILE once, and prints one JSON line: the
answer's status, media type and size, and the resident set after the import and at its peak.
The peak is `VmHWM`, not `ru_maxrss`, which Linux carries across execve from a larger parent
(bench/api_memory.py). The `assets` suite holds the peak of a 50 MP transform to the
MediaFunction's MemorySize.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import sys
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

HANDLER = Path(__file__).parents[1] / "functions" / "media" / "handler.py"


class LambdaContext:
    """What the Powertools logger and Mangum read from Lambda's context."""

    function_name = "MediaFunction"
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:MediaFunction"
    log_group_name = "/aws/lambda/MediaFunction"
    log_stream_name = "bench"

    def __init__(self) -> None:
        self.aws_request_id = str(uuid.uuid4())

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


def load_handler(path: Path = HANDLER) -> ModuleType:
    """The handler module, imported from its file under a name of its own."""
    spec = importlib.util.spec_from_file_location("media_handler", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def answer_summary(response: dict[str, Any]) -> dict[str, Any]:
    """The status, media type and body size of a Mangum answer (its body base64 or text)."""
    body = response.get("body") or ""
    raw = base64.b64decode(body) if response.get("isBase64Encoded") else body.encode()
    headers = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
    return {
        "status": response["statusCode"],
        "media_type": headers.get("content-type", ""),
        "bytes": len(raw),
    }


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def main(argv: list[str]) -> int:
    event = json.loads(Path(argv[0]).read_text())
    module = load_handler()
    after_import = _peak_mb()
    summary = answer_summary(module.handler(event, LambdaContext()))
    print(json.dumps({**summary, "after_import_mb": after_import, "peak_mb": _peak_mb()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
