"""The README's quickstart as data: its commands, the answers it shows, and how to compare.

The quickstart is the README's `## Quickstart` section; every fenced block in it is read, in
order. The first is the `make run` line (its `NAME=value` settings are what the test stack is
started with); each later `sh` block is a step, and the `json` or `text` block right after it is
the answer the step's last command prints: JSON (compared as a pattern: every key shown must be
there with that value, lists element by element, and `…` inside a string stands for any text)
or text (line by line, `…` standing for any text). Every step shows its answer.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra import REPO_ROOT

README = REPO_ROOT / "README.md"
_SECTION = re.compile(r"^## Quickstart\n(.*?)(?=^## |\Z)", re.DOTALL | re.MULTILINE)
_BLOCK = re.compile(r"^```(\w*)\n(.*?)\n```$", re.DOTALL | re.MULTILINE)
ELLIPSIS = "…"


@dataclass
class Step:
    commands: str
    answer: str | None = None
    answer_kind: str = ""


@dataclass
class Quickstart:
    server_env: dict[str, str]
    steps: list[Step]


def parse(text: str | None = None) -> Quickstart:
    text = README.read_text(encoding="utf-8") if text is None else text
    section = _SECTION.search(text)
    assert section, "the README has no '## Quickstart' section"
    blocks = _BLOCK.findall(section.group(1))
    assert blocks, "the quickstart has no fenced blocks"
    (server_language, server), *rest = blocks
    words = shlex.split(server)
    assert server_language == "sh", server
    assert words[-2:] == ["make", "run"], server
    server_env = dict(word.split("=", 1) for word in words[:-2])
    steps: list[Step] = []
    for language, body in rest:
        if language == "sh":
            steps.append(Step(body))
            continue
        assert language in ("json", "text"), f"a {language!r} block in the quickstart: {body}"
        assert steps, f"an answer before any commands: {body}"
        assert steps[-1].answer is None, f"two answers for one block of commands: {body}"
        steps[-1].answer, steps[-1].answer_kind = body, language
    return Quickstart(server_env, steps)


def substituted(steps: list[Step], replacements: dict[str, str]) -> list[Step]:
    """The steps with each `old` text replaced by `new`, in commands and answers alike."""

    def apply(text: str) -> str:
        for old, new in replacements.items():
            text = text.replace(old, new)
        return text

    return [
        Step(apply(s.commands), apply(s.answer) if s.answer else None, s.answer_kind) for s in steps
    ]


def _text_pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".+".join(re.escape(part) for part in expected.split(ELLIPSIS)))


def json_mismatches(expected: Any, actual: Any, where: str = "$") -> list[str]:
    """What in `actual` differs from the pattern `expected` (empty when it matches)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {actual!r}"]
        problems: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                problems.append(f"{where}.{key}: missing")
            else:
                problems += json_mismatches(value, actual[key], f"{where}.{key}")
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: expected {len(expected)} item(s), got {actual!r}"]
        return [
            problem
            for index, (e, a) in enumerate(zip(expected, actual, strict=True))
            for problem in json_mismatches(e, a, f"{where}[{index}]")
        ]
    if isinstance(expected, str) and ELLIPSIS in expected:
        if isinstance(actual, str) and _text_pattern(expected).fullmatch(actual):
            return []
        return [f"{where}: {actual!r} does not match {expected!r}"]
    return [] if expected == actual else [f"{where}: expected {expected!r}, got {actual!r}"]


def text_mismatches(expected: str, actual: str) -> list[str]:
    want, got = expected.splitlines(), actual.rstrip("\n").splitlines()
    if len(want) != len(got):
        return [f"expected {len(want)} line(s), got {len(got)}:\n{actual}"]
    return [
        f"line {n}: {line!r} does not match {pattern!r}"
        for n, (pattern, line) in enumerate(zip(want, got, strict=True), start=1)
        if not _text_pattern(pattern).fullmatch(line)
    ]


def mismatches(step: Step, output: str) -> list[str]:
    assert step.answer is not None
    if step.answer_kind == "json":
        try:
            actual = json.loads(output)
        except ValueError:
            return [f"not JSON: {output!r}"]
        return json_mismatches(json.loads(step.answer), actual)
    return text_mismatches(step.answer, output)


def script(steps: list[Step], outputs: Path) -> str:
    """One bash script that runs the steps in one shell, as a person types them, each step's
    output in `outputs/<n>.out` and `<n>.err`."""
    lines = ["set -euo pipefail"]
    for number, step in enumerate(steps):
        lines.append(f"{{\n{step.commands}\n}} > {outputs}/{number}.out 2> {outputs}/{number}.err")
    return "\n".join(lines) + "\n"
