"""axe-core in the browser tests: `assert_no_violations(page)` runs every axe rule on the page
as it is now and fails with a readable list of what it found.

The script is the copy of axe-core that the pinned `axe-playwright-python` package ships
(`axe.min.js`), read from the installed package: nothing is fetched from the internet. It is
evaluated through Playwright (the DevTools protocol), so the pages' Content-Security-Policy,
which allows only the app's own scripts, stays in force and needs no exception. Any page works:
the admin pages, the GraphQL playground.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from playwright.sync_api import Page

# Every rule axe has, the best-practice ones included; a rule that cannot apply is skipped by
# axe itself.
DEFAULT_OPTIONS: dict[str, Any] = {"resultTypes": ["violations"]}


@functools.cache
def axe_source() -> str:
    return (resources.files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")


def axe_version() -> str:
    """The bundled axe-core's version, from the script's banner (`/*! axe v4.12.1`)."""
    return axe_source().split("axe v", 1)[1].split()[0]


def violations(
    page: Page, context: Any = None, options: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """axe's violations on the page now (an empty list when there are none)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source())
    result: dict[str, Any] = page.evaluate(
        "([context, options]) => axe.run(context || document, options)",
        [context, options or DEFAULT_OPTIONS],
    )
    found: list[dict[str, Any]] = result["violations"]
    return found


def describe(found: list[dict[str, Any]]) -> str:
    lines = []
    for violation in found:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:5]:
            lines.append(f"    {json.dumps(node['target'])}: {node['failureSummary'][:300]}")
    return "\n".join(lines)


def assert_no_violations(page: Page, where: str = "", context: Any = None) -> None:
    found = violations(page, context)
    assert not found, f"axe-core {axe_version()} found on {where or page.url}:\n{describe(found)}"
