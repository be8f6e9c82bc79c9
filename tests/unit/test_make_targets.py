"""`make test` runs every test; `make check` leaves out only the markers docs/development.md
names (read from the Makefile's text: nothing is run)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEVELOPMENT = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")


def recipe(target: str) -> list[str]:
    """The recipe lines of `target` in the Makefile, variables left as written."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    found = [i for i, line in enumerate(lines) if re.match(rf"{target}:(\s|$)", line)]
    assert found, f"the Makefile has no `{target}` target"
    start = found[0]
    body: list[str] = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        body.append(line.strip())
    return body


def pytest_arguments(target: str) -> list[str]:
    (line,) = [line for line in recipe(target) if "-m pytest" in line]
    words = shlex.split(line)
    return words[words.index("pytest") + 1 :]


def test_make_test_selects_every_test() -> None:
    """No marker, keyword, deselection or path: pytest's testpaths (`tests`), all of it."""
    arguments = pytest_arguments("test")
    assert not {"-m", "-k", "--deselect", "--ignore", "-x"} & set(arguments), arguments
    assert not [a for a in arguments if a.startswith(("tests", "-m=", "-k=", "--ignore"))]


def test_make_check_leaves_out_only_the_documented_markers() -> None:
    arguments = pytest_arguments("check")
    assert arguments[:2] == ["tests/unit", "tests/integration"]
    markers = arguments[arguments.index("-m") + 1]
    assert markers == "$(CHECK_MARKERS)"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (expression,) = re.findall(r"^CHECK_MARKERS := (.+)$", makefile, re.M)
    left_out = re.findall(r"not (\w+)", expression)
    assert expression == " and ".join(f"not {m}" for m in left_out)
    top = DEVELOPMENT[: DEVELOPMENT.index("\n## ", DEVELOPMENT.index("## `make check`") + 1)]
    for marker in left_out:
        assert f"`{marker}`" in top, f"docs/development.md's `make check` does not name {marker}"


def test_the_layout_names_every_top_level_folder() -> None:
    """Every folder the repository holds (what git tracks), hidden ones included."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    folders = {path.split("/")[0] for path in tracked if "/" in path}
    layout = DEVELOPMENT[DEVELOPMENT.index("## Layout") :]
    missing = sorted(f for f in folders if f"{f}/" not in layout)
    assert missing == [], f"docs/development.md's layout does not name {missing}"
