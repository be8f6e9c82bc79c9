"""Jinja2 templates and the app's own static files (no page loads anything from a CDN)."""

from __future__ import annotations

from pathlib import Path

from fastapi.templating import Jinja2Templates

PACKAGE_DIR = Path(__file__).parent
STATIC_DIR = PACKAGE_DIR / "static"
templates = Jinja2Templates(directory=str(PACKAGE_DIR / "templates"))
