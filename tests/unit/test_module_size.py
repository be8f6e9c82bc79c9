"""No module of the service's layer over 600 lines: one that grows past it holds several ideas
and is split by the sections it already has (docs/decisions.md, D101)."""

from __future__ import annotations

from pathlib import Path

import pytest

LAYERS = Path(__file__).resolve().parents[2] / "layers"
MAX_LINES = 600


def long_modules(root: Path, limit: int = MAX_LINES) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(f"{path.relative_to(root)}: {lines} lines (limit {limit})")
    return found


def test_no_module_in_layers_is_over_600_lines() -> None:
    assert long_modules(LAYERS) == []


@pytest.mark.parametrize(("lines", "too_long"), [(600, False), (601, True)])
def test_the_check_counts_lines(tmp_path: Path, lines: int, too_long: bool) -> None:
    (tmp_path / "module.py").write_text("x = 1\n" * lines)
    assert bool(long_modules(tmp_path)) is too_long
