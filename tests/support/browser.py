"""Which Chromium the browser tests drive (Playwright cannot download browsers here).

`CHROMIUM=/path/to/chromium` names it; else the `chromium` the PATH finds (`make browsers`
installs Debian's package, `/usr/bin/chromium`); else the browser tests fail saying both.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

ENVIRONMENT_VARIABLE = "CHROMIUM"


class ChromiumMissing(RuntimeError):
    """Neither `CHROMIUM` nor the PATH names a Chromium that runs."""


def chromium_path(env: Mapping[str, str] | None = None) -> str:
    """The browser to launch: `CHROMIUM` when set (it must be an executable file), else
    `chromium` on the PATH."""
    env = os.environ if env is None else env
    named = env.get(ENVIRONMENT_VARIABLE, "").strip()
    if named:
        if os.path.isfile(named) and os.access(named, os.X_OK):
            return named
        raise ChromiumMissing(
            f"{ENVIRONMENT_VARIABLE}={named} is not an executable file: name a Chromium there, "
            "or unset it to use the chromium on the PATH"
        )
    found = shutil.which("chromium", path=env.get("PATH"))
    if found:
        return found
    raise ChromiumMissing(
        f"no Chromium: set {ENVIRONMENT_VARIABLE}=/path/to/chromium, or put `chromium` on the "
        "PATH (`make browsers` installs Debian's chromium package)"
    )
