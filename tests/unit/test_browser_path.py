"""The browser tests find Chromium through `CHROMIUM`, else the PATH, else fail naming both."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import ChromiumMissing, chromium_path


def _executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_the_environment_variable_names_the_browser(tmp_path: Path) -> None:
    named = _executable(tmp_path / "my-chromium")
    on_path = _executable(tmp_path / "chromium")
    env = {"CHROMIUM": str(named), "PATH": str(on_path.parent)}
    assert chromium_path(env) == str(named)


def test_without_it_the_chromium_on_the_path(tmp_path: Path) -> None:
    on_path = _executable(tmp_path / "chromium")
    assert chromium_path({"PATH": f"/nonexistent:{tmp_path}"}) == str(on_path)


def test_a_variable_naming_no_executable_fails_saying_so(tmp_path: Path) -> None:
    _executable(tmp_path / "chromium")
    env = {"CHROMIUM": str(tmp_path / "absent"), "PATH": str(tmp_path)}
    with pytest.raises(ChromiumMissing, match=r"CHROMIUM=.*absent is not an executable"):
        chromium_path(env)


def test_neither_fails_naming_both(tmp_path: Path) -> None:
    with pytest.raises(ChromiumMissing) as missing:
        chromium_path({"PATH": str(tmp_path)})
    assert "CHROMIUM=" in str(missing.value)
    assert "`chromium` on the PATH" in str(missing.value)
