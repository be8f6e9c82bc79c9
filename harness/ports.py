"""Ports on 127.0.0.1 for the local servers a run starts: a free one, and waiting for a
started process to listen on one."""

from __future__ import annotations

import socket
import subprocess
import time


def free_port() -> int:
    """A port nothing listens on now (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_port(
    process: subprocess.Popen[bytes], port: int, *, seconds: float, pause: float
) -> bool:
    """True once `process` accepts connections on `port`; False when it exits first, or (then
    killed) when `seconds` pass without it listening."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(pause)
    process.kill()
    return False


def terminate(process: subprocess.Popen[bytes], seconds: float) -> None:
    """SIGTERM, then SIGKILL when `process` has not exited within `seconds`."""
    process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
