"""The `content-service` CLI run in the test process, against the session's stack."""

from __future__ import annotations

from content_service.cli import main
from tests.support.settings import settings_changed


def run_cli(*argv: str) -> int:
    """Runs one command and answers its exit code. The CLI configures the runtime from the
    environment, which does not hold the session stack's own options (its session key file);
    the stack's settings are put back after it, so the API served by this process keeps them."""
    with settings_changed():
        return main(list(argv))
