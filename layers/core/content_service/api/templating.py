"""Jinja2 templates and the app's own static files (no page loads anything from a CDN).

The templates (and jinja2 with them) load when the first page is rendered: most requests are
JSON, and an API instance that never serves a page never pays for them.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi.templating import Jinja2Templates

PACKAGE_DIR = Path(__file__).parent
STATIC_DIR = PACKAGE_DIR / "static"


@functools.cache
def templates() -> Jinja2Templates:
    from fastapi.templating import Jinja2Templates

    return Jinja2Templates(directory=str(PACKAGE_DIR / "templates"))
