"""Import boundaries, read from the source with `ast` (nothing imported).

- Content writes the outbox event and webhooks read it; the event's shape lives in storage
  (`storage/outbox_event.py`), so the content capability imports nothing from webhooks.
- The tests and the benchmarks share what they share through `harness/`: neither imports the
  other.
- The AWS request rules and their check serve the local stack and the tests only
  (`infra/request_rules.py`, `infra/request_check.py`, docs/decisions.md D147): nothing under
  `layers/` imports them, so the Lambda layer does not ship them.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "layers" / "core" / "content_service"


def imported_modules(path: Path, package: str) -> set[str]:
    """Absolute names of every module `path` imports, relative imports resolved."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def imports_under(directory: Path, package: str) -> list[tuple[str, str]]:
    """(file, module) for each import by a file under `directory`, whose files belong to
    `package` (subpackages resolved from their folders)."""
    found: list[tuple[str, str]] = []
    for path in sorted(directory.rglob("*.py")):
        own = ".".join([package, *path.parent.relative_to(directory).parts])
        found.extend(
            (str(path.relative_to(ROOT)), name) for name in sorted(imported_modules(path, own))
        )
    return found


def imports_from(directory: Path, package: str, forbidden: str) -> list[str]:
    """Each import of `forbidden` (or a module under it) by a file under `directory`."""
    return [
        f"{path} imports {name}"
        for path, name in imports_under(directory, package)
        if name == forbidden or name.startswith(forbidden + ".")
    ]


def test_content_imports_nothing_from_webhooks() -> None:
    assert (
        imports_from(PACKAGE / "content", "content_service.content", "content_service.webhooks")
        == []
    )


def test_the_layer_imports_no_request_rules_nor_their_check() -> None:
    """Under any package name (`infra.`, the old `content_service.storage.`, a relative one)."""
    test_only = {"request_rules", "request_check"}
    found = [
        f"{path} imports {name}"
        for path, name in imports_under(PACKAGE, "content_service")
        if test_only & set(name.split("."))
    ]
    assert found == []


def test_tests_import_nothing_from_bench() -> None:
    assert imports_from(ROOT / "tests", "tests", "bench") == []


def test_bench_imports_nothing_from_tests() -> None:
    assert imports_from(ROOT / "bench", "bench", "tests") == []


def test_harness_imports_neither_tests_nor_bench() -> None:
    harness = ROOT / "harness"
    assert (
        imports_from(harness, "harness", "tests") + imports_from(harness, "harness", "bench") == []
    )


def test_the_probe_sees_relative_and_absolute_imports(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "from content_service.webhooks.outbox_store import OutboxStore\n"
        "from ..webhooks import fanout\n"
        "import content_service.webhooks.queue\n"
        "from . import values\n"
    )
    found = imported_modules(tmp_path / "a.py", "content_service.content")
    assert {
        "content_service.webhooks.outbox_store",
        "content_service.webhooks.fanout",
        "content_service.webhooks.queue",
        "content_service.content.values",
    } <= found
