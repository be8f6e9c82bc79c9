"""The one moto release the emulator's patches were written against.

`infra/moto_transactions.py`, `infra/moto_journal.py`, `infra/moto_s3_journal.py` and
`infra/moto_speedups.py` replace or wrap moto internals (method bodies, private helpers, handler
methods). Another moto may rename, move or change any of them, and a patch that still installs
could then change what a client sees without a test noticing. So each `install()` first asks
`require_pinned`, which refuses any other version with a message saying what to re-check;
tests/integration/test_moto_patches.py keeps this pin equal to pyproject.toml's.
"""

from __future__ import annotations

import moto

PINNED = "5.2.5"


class MotoVersionError(RuntimeError):
    """The installed moto is not the one the patches were checked against."""


def require_pinned(module: str) -> None:
    """Raises unless the installed moto is `PINNED`."""
    version = moto.__version__
    if version != PINNED:
        raise MotoVersionError(
            f"infra/{module}.py patches moto {PINNED}'s internals, but moto {version} is "
            f"installed: re-read each patched function against moto {version}'s code and run "
            f"tests/integration/test_moto_patches.py and test_moto_speedups.py, then set "
            f"PINNED in infra/moto_version.py to {version} (or pin moto=={PINNED} again)"
        )
