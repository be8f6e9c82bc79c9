"""Import boundaries, read from the source with `ast` (nothing imported).

- Content writes the outbox event and webhooks read it; the event's shape lives in storage
  (`storage/outbox_event.py`), so the content capability imports nothing from webhooks.
- The tests and the benchmarks share what they share through `harness/`: neither imports the
  other.
- A webhooks sub-package (`endpoints`, `deliveries`, `sending`, `operations`) is imported from
  outside it by its own name only: `from content_service.webhooks.sending import Sender`, never
  from one of its modules; its `__init__` names what it exports and loads each lazily (D146).
- A content sub-package (`schema`, `entries`, `writes`, `lists`, `relations`) is imported from
  outside it by its own name only: `from content_service.content.lists import list_entries`,
  never from one of its modules (a test may reach a module's private `_name`); its `__init__`
  names what it exports and loads each lazily (D150).
- The webhooks modules, and the content modules, import one another without a cycle (imports run
  at import time; those in functions and under `TYPE_CHECKING` do not, and a name from a
  sub-package's `__init__` is an import of the module that defines it).
- The AWS request rules and their check serve the local stack and the tests only
  (`infra/request_rules.py`, `infra/request_check.py`, docs/decisions.md D147): nothing under
  `layers/` imports them, so the Lambda layer does not ship them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "layers" / "core" / "content_service"
WEBHOOKS = PACKAGE / "webhooks"
WEBHOOKS_NAME = "content_service.webhooks"
CONTENT = PACKAGE / "content"
CONTENT_NAME = "content_service.content"
IMPORTERS = ("functions", "harness", "bench", "infra", "tests")


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


def from_imports(tree: ast.AST, package: str) -> Iterator[tuple[ast.stmt, str, list[str]]]:
    """Each import statement under `tree`: the module it names (relative resolved) and the
    names it takes from it (`import a.b` takes nothing)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            yield node, module, [alias.name for alias in node.names]


def inner_module_imports(
    root: Path, files: Path, split: Path, *, private_ok: bool = False
) -> list[str]:
    """Each import, by a file under `files` outside the sub-package, of an inner module of a
    sub-package of `split` (its folders with an `__init__`): `from ...sending.http_sender
    import Sender` or `from ...sending import http_sender`. Relative imports are resolved from
    the file's folder under `root` (the layer's code from `layers/core`). With `private_ok`, an
    import taking only private `_names` from a module is allowed (a test of its helpers)."""
    split_name = ".".join(split.relative_to(split.parents[1]).parts)
    inner = {
        init.parent.name: {path.stem for path in init.parent.glob("*.py")}
        for init in split.glob("*/__init__.py")
    }
    found: list[str] = []
    for path in sorted(files.rglob("*.py")):
        own = ".".join(path.relative_to(root).parent.parts)
        for _, module, names in from_imports(ast.parse(path.read_text(encoding="utf-8")), own):
            parts = module.split(".")
            if not module.startswith(split_name + ".") or parts[2] not in inner:
                continue
            inside = ".".join(parts[:3])
            if own == inside or own.startswith(inside + "."):
                continue
            private = private_ok and bool(names) and all(name.startswith("_") for name in names)
            if (len(parts) > 3 and not private) or set(names) & inner[parts[2]]:
                found.append(f"{path.relative_to(root)} imports {module} {names}")
    return found


def imported_from_outside(split: Path, *, private_ok: bool = False) -> list[str]:
    layer = ROOT / "layers" / "core"
    found = inner_module_imports(layer, layer, split, private_ok=private_ok)
    for folder in IMPORTERS:
        found += inner_module_imports(ROOT, ROOT / folder, split, private_ok=private_ok)
    return found


def test_webhooks_subpackages_are_imported_by_their_own_names_only() -> None:
    assert imported_from_outside(WEBHOOKS) == []


def test_content_subpackages_are_imported_by_their_own_names_only() -> None:
    assert imported_from_outside(CONTENT, private_ok=True) == []


def subpackages(split: Path) -> set[str]:
    return {init.parent.name for init in split.glob("*/__init__.py")}


def exported_from(init: Path) -> dict[str, str]:
    """A sub-package's `_MODULES`: each name its `__init__` exports, and the module defining it."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["_MODULES"]
            and isinstance(node.value, ast.Dict)
        ):
            return {
                ast.literal_eval(key): ast.literal_eval(value)
                for key, value in zip(node.value.keys, node.value.values, strict=True)
                if key is not None
            }
    return {}


def executed_at_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a module runs when imported: its body, into `if`/`try` blocks, except
    what runs only for the type checker (`if TYPE_CHECKING:`); not into functions or classes'
    methods."""
    for node in body:
        if isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                yield from executed_at_import(node.body)
            yield from executed_at_import(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from executed_at_import(block)
            for handler in node.handlers:
                yield from executed_at_import(handler.body)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules under `root` (a package of the layer) its import runs (a package
    is its `__init__`; a name from a sub-package's `__init__` is its defining module)."""
    files = {
        ".".join(path.relative_to(root.parents[1]).with_suffix("").parts).removesuffix(
            ".__init__"
        ): path
        for path in root.rglob("*.py")
    }
    exports = {name: exported_from(path) for name, path in files.items() if path.stem == "__init__"}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.stem == "__init__" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_body = ast.Module(body=list(executed_at_import(tree.body)), type_ignores=[])
        edges: set[str] = set()
        for _, module, names in from_imports(module_body, package):
            if module in files:
                edges.add(module)
            for imported in names:
                if f"{module}.{imported}" in files:
                    edges.add(f"{module}.{imported}")
                elif imported in exports.get(module, {}):
                    edges.add(f"{module}.{exports[module][imported]}")
        graph[name] = edges - {name}
    return graph


def a_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of `graph` (its modules, the first repeated at the end), or []."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str]:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return []
        for target in sorted(graph.get(node, ())):
            cycle = visit(target, [*path, node])
            if cycle:
                return cycle
        done.add(node)
        return []

    for start in sorted(graph):
        cycle = visit(start, [])
        if cycle:
            return cycle
    return []


def test_webhooks_modules_import_one_another_without_a_cycle() -> None:
    graph = import_graph(WEBHOOKS)
    assert graph[f"{WEBHOOKS_NAME}.sending.delivery_worker"] >= {
        f"{WEBHOOKS_NAME}.deliveries",
        f"{WEBHOOKS_NAME}.deliveries.delivery_store",
    }
    assert a_cycle(graph) == []


def test_content_modules_import_one_another_without_a_cycle() -> None:
    graph = import_graph(CONTENT)
    assert graph[f"{CONTENT_NAME}.writes.write_transaction"] >= {
        f"{CONTENT_NAME}.lists",
        f"{CONTENT_NAME}.lists.list_index",
    }
    assert a_cycle(graph) == []


def exports_agree(split: Path) -> None:
    """Each `__init__` of `split`'s sub-packages: `__all__`, the names imported for the type
    checker and the lazy map agree, each from the module that defines it; no export is named
    like a module (loading that module would replace the name on the package)."""
    for name in sorted(subpackages(split)):
        init = split / name / "__init__.py"
        tree = ast.parse(init.read_text(encoding="utf-8"))
        exported = exported_from(init)
        declared = next(
            ast.literal_eval(node.value)
            for node in tree.body
            if isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["__all__"]
        )
        typed = {
            alias.name: (node.module or "")
            for statement in tree.body
            if isinstance(statement, ast.If)
            for node in statement.body
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        modules = {path.stem for path in (split / name).glob("*.py")}
        assert exported, name
        assert sorted(declared) == sorted(exported) == sorted(typed), name
        assert {n: m for n, m in exported.items() if typed[n] != m} == {}, name
        assert set(exported) & modules == set(), name
        assert set(exported.values()) <= modules, name


def test_webhooks_subpackages_export_what_their_modules_define() -> None:
    exports_agree(WEBHOOKS)


def test_content_subpackages_export_what_their_modules_define() -> None:
    exports_agree(CONTENT)


def test_the_probes_see_an_inner_import_and_a_cycle(tmp_path: Path) -> None:
    layer = tmp_path / "layer"
    package = layer / "content_service" / "webhooks"
    (package / "sending").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sending" / "__init__.py").write_text("_MODULES = {'Sender': 'http_sender'}\n")
    (package / "sending" / "http_sender.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .. import services\n"
        "from .. import wiring\n"
    )
    (package / "wiring.py").write_text("def f():\n    from . import services\n")
    (package / "services.py").write_text("from .sending import Sender\n")
    (package / "api.py").write_text("from .sending.http_sender import Sender\n")
    found = inner_module_imports(layer, layer, package)
    assert found == [
        "content_service/webhooks/api.py imports content_service.webhooks.sending.http_sender "
        "['Sender']"
    ]
    assert a_cycle(import_graph(package)) == []
    (package / "wiring.py").write_text("from . import services\n")
    assert a_cycle(import_graph(package)) == [
        f"{WEBHOOKS_NAME}.sending.http_sender",
        f"{WEBHOOKS_NAME}.wiring",
        f"{WEBHOOKS_NAME}.services",
        f"{WEBHOOKS_NAME}.sending.http_sender",
    ]


def test_the_content_probes_see_an_inner_import_and_a_cycle(tmp_path: Path) -> None:
    layer = tmp_path / "layers" / "core"
    content = layer / "content_service" / "content"
    (content / "lists").mkdir(parents=True)
    (content / "__init__.py").write_text("")
    (content / "lists" / "__init__.py").write_text("_MODULES = {'token': 'list_keys'}\n")
    (content / "lists" / "list_keys.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .. import service\n"
        "from .. import requests\n"
    )
    (content / "requests.py").write_text("def f():\n    from . import service\n")
    (content / "service.py").write_text("from .lists import token\n")
    (content / "api.py").write_text(
        "from .lists.list_keys import token\nfrom .lists.list_keys import _private\n"
    )
    found = inner_module_imports(layer, layer, content, private_ok=True)
    assert found == [
        "content_service/content/api.py imports content_service.content.lists.list_keys ['token']"
    ]
    assert a_cycle(import_graph(content)) == []
    (content / "requests.py").write_text("from . import service\n")
    assert a_cycle(import_graph(content)) == [
        "content_service.content.lists.list_keys",
        "content_service.content.requests",
        "content_service.content.service",
        "content_service.content.lists.list_keys",
    ]
