"""The emulator's waitress server (infra/emulator_server.py) once it has stopped."""

from __future__ import annotations

import os
from pathlib import Path

from infra.emulator_server import EmulatorServer


def test_a_request_ending_after_the_stop_writes_into_no_reused_descriptor(tmp_path: Path) -> None:
    server = EmulatorServer("127.0.0.1", 0)
    server.start()
    waitress_server = vars(server)["_server"]
    trigger_fd = waitress_server.trigger.trigger
    server.stop()

    # The trigger's descriptor number now belongs to a file opened for appending, as a journal
    # segment opened after the stop could; a request still running (an SQS long poll) then ends
    # and its channel pulls the server's trigger.
    segment = tmp_path / "00000001.jsonl"
    opened = os.open(segment, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        if opened != trigger_fd:
            os.dup2(opened, trigger_fd)
        waitress_server.pull_trigger()
    finally:
        if opened != trigger_fd:
            os.close(trigger_fd)
        os.close(opened)
    assert segment.read_bytes() == b""
