"""The shared test vectors of tests/vectors/ (JSON files other implementations can read too)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

VECTORS_DIR = Path(__file__).resolve().parents[1] / "vectors"


def vectors(name: str) -> Any:
    """The parsed contents of `tests/vectors/<name>`."""
    return json.loads((VECTORS_DIR / name).read_text(encoding="utf-8"))
