"""A receiver in a process of its own that timestamps every arrival: `python -m
tests.support.receiver_process` prints its port, then one JSON line per request
(`{"at": <epoch seconds>, "delivery": ..., "attempt": ...}`), and answers 200.

Arrival times taken in the process that sends would wait for its interpreter lock behind the
emulator and the workers; a receiver of its own stamps them as a real receiver would.
`ReceiverProcess` runs it and collects the lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import Any

from harness.receiver import Received, Receiver
from infra.running import Running


def _serve() -> None:
    lock = threading.Lock()

    def report(request: Received) -> None:
        line = {
            "at": request.at,
            "delivery": request.header("X-Service-Delivery"),
            "attempt": request.header("X-Service-Attempt"),
        }
        with lock:
            sys.stdout.write(json.dumps(line) + "\n")
            sys.stdout.flush()

    with Receiver(on_request=report) as receiver:
        sys.stdout.write(f"{receiver.port}\n")
        sys.stdout.flush()
        sys.stdin.read()  # until the parent closes it


class ReceiverProcess(Running):
    def __init__(self) -> None:
        self.arrivals: list[dict[str, Any]] = []
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        self.port = 0

    def start(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.receiver_process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self.port = int(self._process.stdout.readline())
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._process is not None
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self.arrivals.append(json.loads(line))

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        assert self._process is not None
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(10)
        if self._reader is not None:
            self._reader.join(5)


if __name__ == "__main__":
    _serve()
