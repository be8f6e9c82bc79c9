"""The function-length gate of `make lint`: no function longer than 60 lines.

The complexity gate (ruff C90) counts branches, so a long straight run of steps passes it; a
function that does not fit on a screen usually holds several ideas. A function's length runs
from its `def` line (decorators excluded) to its last line, docstring and comments included.

Run as `python -m infra.function_length DIR...`: prints each function over the limit and exits 1
when there is one.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_LINES = 60
SKIPPED_DIRS = frozenset({".venv", ".aws-sam", "__pycache__", "node_modules"})


@dataclass(frozen=True)
class LongFunction:
    path: Path
    line: int
    name: str
    lines: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.name} is {self.lines} lines (limit {MAX_LINES})"


def function_lengths(source: str) -> Iterator[tuple[int, str, int]]:
    """(line, qualified name, length) of every function and method in `source`."""
    yield from _walk(ast.parse(source), "")


def _walk(node: ast.AST, prefix: str) -> Iterator[tuple[int, str, int]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            name = prefix + child.name
            end = child.end_lineno if child.end_lineno is not None else child.lineno
            yield child.lineno, name, end - child.lineno + 1
            yield from _walk(child, name + ".")
        elif isinstance(child, ast.ClassDef):
            yield from _walk(child, prefix + child.name + ".")
        else:
            yield from _walk(child, prefix)


def python_files(roots: Sequence[Path]) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
            continue
        for path in sorted(root.rglob("*.py")):
            if not SKIPPED_DIRS.intersection(path.parts):
                yield path


def long_functions(roots: Sequence[Path], limit: int = MAX_LINES) -> list[LongFunction]:
    found = []
    for path in python_files(roots):
        for line, name, length in function_lengths(path.read_text(encoding="utf-8")):
            if length > limit:
                found.append(LongFunction(path, line, name, length))
    return found


def main(argv: Sequence[str]) -> int:
    if not argv:
        print("usage: python -m infra.function_length DIR...", file=sys.stderr)
        return 2
    found = long_functions([Path(arg) for arg in argv])
    for long_function in found:
        print(long_function)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
