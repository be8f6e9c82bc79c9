"""The Lambda layer ships its bytecode, so a cold start compiles nothing (decision D62).

The layer's own Makefile (what `sam build` runs) is run into a temporary folder. Then each
handler is imported the way Lambda imports it: the function's folder and the layer's `python/`
on `sys.path`, no site-packages, no bytecode written (Lambda's folders are read-only). An audit
hook counts the modules the import system compiled from source under the layer: there must be
none. Without the Makefile's `compileall` step every module the handler needs is compiled, at
every cold start.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

import pytest

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ROOT / "functions"
PYC_FLAGS_UNCHECKED_HASH = 0b01  # PEP 552: hash-based, source not checked

PROBE = """
import importlib.util, json, sys
handler, layer = sys.argv[1], sys.argv[2]
compiled = []
def count_compiles(event, args):
    if event != "compile" or not str(args[1]).startswith(layer):
        return
    # Only the import system's compiles: a library may parse its own source on purpose.
    if sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):
        compiled.append(args[1])
sys.addaudithook(count_compiles)
sys.path[:0] = [handler.rsplit("/", 1)[0], layer]
spec = importlib.util.spec_from_file_location("handler", handler)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
assert callable(module.handler)
files = [getattr(m, "__file__", None) or "" for m in list(sys.modules.values())]
print(json.dumps({"compiled": compiled, "from_layer": sum(f.startswith(layer) for f in files)}))
"""

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    artifacts = tmp_path_factory.mktemp("CoreLayer")
    subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT / "layers" / "core"), "build-CoreLayer"],
        env={**os.environ, "ARTIFACTS_DIR": str(artifacts), "PYTHON": sys.executable},
        check=True,
        capture_output=True,
        timeout=600,
    )
    return artifacts / "python"


class Probe(TypedDict):
    """What the probe prints: the sources the import system compiled under the layer, and how
    many of the loaded modules came from the layer."""

    compiled: list[str]
    from_layer: int


def _import_as_lambda(function: str, layer: Path, tmp_path: Path) -> Probe:
    key_file = tmp_path / "session.key"
    key_file.write_text("k" * 40)
    completed = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-B",
            "-c",
            PROBE,
            str(FUNCTIONS / function / "handler.py"),
            str(layer),
        ],
        capture_output=True,
        text=True,
        check=True,
        env={
            "PATH": "/usr/bin:/bin",
            "AWS_REGION": "us-east-1",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "SESSION_KEY_FILE": str(key_file),
        },
        timeout=120,
    )
    answer: Probe = json.loads(completed.stdout.strip().splitlines()[-1])
    return answer


@pytest.mark.parametrize("function", ["api", "fanout", "purge", "delivery", "scheduler"])
def test_a_cold_start_compiles_nothing_from_the_layer(
    function: str, layer: Path, tmp_path: Path
) -> None:
    answer = _import_as_lambda(function, layer, tmp_path)
    assert answer["from_layer"] > 100  # the handler did run on the layer's packages
    assert answer["compiled"] == []


def test_the_probe_counts_what_is_compiled(layer: Path, tmp_path: Path) -> None:
    bare = tmp_path / "python"
    shutil.copytree(layer, bare, ignore=shutil.ignore_patterns("__pycache__"))
    answer = _import_as_lambda("fanout", bare, tmp_path)
    compiled = answer["compiled"]
    assert any(path.endswith("content_service/webhooks/deliveries/fanout.py") for path in compiled)
    assert any("/botocore/" in path for path in compiled)


def test_every_module_has_bytecode_valid_whatever_the_zip_does_to_mtimes(layer: Path) -> None:
    tag = sys.implementation.cache_tag
    missing, checked = [], []
    for source in layer.rglob("*.py"):
        cached = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
        if not cached.is_file():
            missing.append(str(source.relative_to(layer)))
            continue
        flags = int.from_bytes(cached.read_bytes()[4:8], "little")
        if flags != PYC_FLAGS_UNCHECKED_HASH:
            checked.append(str(source.relative_to(layer)))
    assert missing == []
    assert checked == []
