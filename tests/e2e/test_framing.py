"""Another site cannot frame the sign-in page (clickjacking): Chromium itself refuses it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path", ["/login", "/"])
def test_another_page_cannot_frame_ours(browser: Browser, base_url: str, path: str) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        with page.expect_console_message(lambda m: "frame-ancestors" in m.text, timeout=10_000):
            page.set_content(f'<iframe src="{base_url}{path}"></iframe>')
        assert "<form" not in page.frames[1].content()
    finally:
        context.close()
