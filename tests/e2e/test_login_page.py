"""The sign-in page in a real browser: it signs in, refuses a wrong password, signs out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.admin_pages import sign_in_page

pytestmark = pytest.mark.browser


def test_sign_in_and_out(page: Page, credentials: dict[str, Any], output_dir: Path) -> None:
    admin = credentials["admin"]
    sign_in_page(page, admin["email"], "wrong-password-123", next_path="/")
    expect(page.get_by_role("alert")).to_have_text("Email or password is incorrect.")
    page.screenshot(path=str(output_dir / "refused.png"))

    sign_in_page(page, admin["email"], admin["password"], next_path="/")
    expect(page.get_by_text(f"{admin['email']} (admin)")).to_be_visible()
    page.screenshot(path=str(output_dir / "signed-in.png"))

    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url("/login")
    assert page.request.get("/api/v1/me").status == 401
