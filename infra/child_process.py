"""What every process the local stack starts does first: die with its parent, leave the stop
to it, log like it.

The local stack's emulator and API workers are `multiprocessing` children started with
"spawn" (a fresh interpreter: no thread or lock of the parent is copied). A parent killed with
SIGKILL cannot stop them, so each asks Linux to kill it when its parent dies
(`PR_SET_PDEATHSIG`), and also treats the end of its control pipe as that death (other
systems). A crash of `make run` then ends the whole tree at once, as it ended the one process
before, and the next start finds its ports free.

A clean stop is the parent's to run, in its order (the API, the pollers, then the emulator's last
compaction). Ctrl-C's SIGINT and a stop's SIGTERM (systemd's, `kill -TERM -PGID`) reach every
process of the group, so each child ignores both (`leave_stop_to_parent`) and the parent stops it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
import sys

from aws_lambda_powertools.logging.filters import SuppressFilter

from content_service.observability import SERVICE_NAME

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """SIGKILL when the parent dies (Linux); exits at once when it is already gone."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # died before the request above took effect
        os._exit(1)


def leave_stop_to_parent() -> None:
    """Ignores SIGINT and SIGTERM, which a stop of the whole process group sends this process
    too: the parent tells it when to stop. A program run from here inherits the ignoring."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)


def configure_logging() -> None:
    """The format and level `make run` logs with (`LOG_LEVEL`), botocore kept quiet."""
    logging.basicConfig(
        level=os.environ.get("LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
    )
    for chatty in ("botocore", "pynamodb"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    # The core logs through Powertools' Logger, whose own handler writes each record as one
    # JSON line; the root handler takes everything else (uvicorn, the emulator, this module).
    for handler in logging.root.handlers:
        handler.addFilter(SuppressFilter(SERVICE_NAME))
