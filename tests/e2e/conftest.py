"""Browser fixtures: Chromium driven by Playwright (it cannot download browsers here): the one
`CHROMIUM` names, else `chromium` on the PATH (`tests/support/browser.py`).

Every page request is checked to stay on the app's own origin, so a page that would load an
asset from a CDN fails its test; and anything a page's Content-Security-Policy refuses (Chromium
reports it on the console) fails its test too, so the policy never breaks a page unnoticed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from content_service.assets.objects import bucket_origin
from tests.support.admin_pages import AdminVisit, Shots
from tests.support.browser import ChromiumMissing, chromium_path
from tests.support.webhooks import Hooks

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Package scope, not session: Playwright's sync API keeps an event loop running on the test
# thread while it is open, which breaks later tests that run asyncio on that thread.
@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="package")
def browser(playwright: Playwright) -> Iterator[Browser]:
    try:
        chromium = chromium_path()
    except ChromiumMissing as missing:
        pytest.fail(str(missing))
    launched = playwright.chromium.launch(
        executable_path=chromium, headless=True, args=CHROMIUM_ARGS
    )
    yield launched
    launched.close()


@pytest.fixture
def csp_refusals() -> list[str]:
    """What the page's Content-Security-Policy refused; left non-empty, it fails the test (a
    test that provokes a refusal on purpose checks it, then clears the list)."""
    return []


@pytest.fixture
def page(
    browser: Browser, base_url: str, output_dir: Path, csp_refusals: list[str]
) -> Iterator[Page]:
    """A fresh browser context per test; foreign requests are recorded and fail the test. The
    local stack's assets bucket is not foreign: the media pages upload to it and show its
    previews, as on AWS they use the stack's own bucket."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 800})
    foreign: list[str] = []
    ours = (base_url, f"{bucket_origin()}/") if bucket_origin() else (base_url,)

    def guard(route: Any) -> None:
        url = route.request.url
        if url.startswith(ours) or url.startswith(("data:", "blob:", "about:")):
            route.continue_()
        else:
            foreign.append(url)
            route.abort()

    context.route("**/*", guard)
    opened = context.new_page()
    refused = csp_refusals
    opened.on(
        "console",
        lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
    )
    yield opened
    opened.screenshot(path=str(output_dir / "final.png"), full_page=True)
    context.close()
    assert not foreign, f"the page tried to load from another origin: {foreign}"
    assert not refused, f"the page's Content-Security-Policy refused something: {refused}"


@pytest.fixture
def admin_visit(
    page: Page,
    credentials: dict[str, Any],
    output_dir: Path,
    hooks: Hooks,
    new_workspace: Callable[..., Any],
    local_receivers_allowed: None,
) -> AdminVisit:
    """Where most admin page tests start: the fixtures they share, a fresh workspace made last."""
    return AdminVisit(page, credentials, Shots(page, output_dir), hooks, new_workspace())
