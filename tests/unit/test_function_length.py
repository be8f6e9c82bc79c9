"""The function-length gate of `make lint` (infra/function_length.py): 60 lines pass, 61 fail."""

from __future__ import annotations

from pathlib import Path

from infra.function_length import MAX_LINES, long_functions, main


def _function(name: str, lines: int) -> str:
    """A function of exactly `lines` lines, `def` to last statement, under a decorator."""
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 2))
    return f"@staticmethod\ndef {name}() -> None:\n{body}    return None\n"


def test_a_function_of_the_limit_passes(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text(_function("fits", MAX_LINES))
    assert long_functions([tmp_path]) == []
    assert main([str(tmp_path)]) == 0


def test_a_function_one_line_over_the_limit_fails(tmp_path: Path) -> None:
    (tmp_path / "long.py").write_text(_function("too_long", MAX_LINES + 1))
    found = long_functions([tmp_path])
    assert [(f.name, f.lines, f.line) for f in found] == [("too_long", 61, 2)]
    assert main([str(tmp_path)]) == 1


def test_methods_and_nested_functions_are_checked(tmp_path: Path) -> None:
    nested = "".join("    " + line + "\n" for line in _function("inner", 61).splitlines())
    method = "".join("    " + line + "\n" for line in _function("method", 61).splitlines())
    source = f"def outer() -> None:\n{nested}\nclass Holder:\n{method}"
    (tmp_path / "nested.py").write_text(source)
    names = {f.name for f in long_functions([tmp_path])}
    assert names == {"outer", "outer.inner", "Holder.method"}
