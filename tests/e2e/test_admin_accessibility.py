"""axe-core on every admin page, in Chromium: zero violations, with the page in the states a
person sees (rows in the log and one opened, the secret shown, a dialog open, a test result,
the refusal and not-found pages), at laptop and phone width.

tests/support/axe.py runs the axe-core that the pinned `axe-playwright-python` package ships.
"""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Page, expect

from harness.receiver import Answer, Receiver
from infra.local_stack import LocalStack
from tests.support.admin_pages import (
    AdminVisit,
    admin_in,
    editor_user,
    endpoint_with_log,
    signed_in,
)
from tests.support.axe import assert_no_violations, violations

pytestmark = pytest.mark.browser


def test_axe_sees_a_violation_when_there_is_one(page: Page, base_url: str) -> None:
    """The check is not vacuous: an image without a text alternative is reported."""
    page.goto("/login")
    page.evaluate("() => document.querySelector('main').append(document.createElement('img'))")
    assert "image-alt" in {v["id"] for v in violations(page)}


def test_every_admin_page_has_no_axe_violation(
    stack: LocalStack, receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    answers = [Answer(200, b'{"ok": true}'), Answer(500, b"broken"), Answer(410)]
    titles = ["First", "Second", "Third"]
    endpoint = endpoint_with_log(stack, hooks, receiver, workspace.id, answers, titles, label="axe")

    page.goto("/login")
    assert_no_violations(page, "the sign-in page")
    admin_in(page, credentials, "/webhooks")
    assert_no_violations(page, "the endpoint list")
    page.goto("/webhooks/new")
    assert_no_violations(page, "the editor (new)")
    page.goto(f"/webhooks/{endpoint['id']}/edit")
    assert_no_violations(page, "the editor (edit)")
    page.goto(f"/webhooks/{endpoint['id']}")
    expect(page.locator(".log-row")).to_have_count(3)
    assert_no_violations(page, "the endpoint page")
    for row in page.locator(".log-row summary").all():
        row.click()
    for snippet in page.locator(".snippet summary").all():
        snippet.click()
    assert_no_violations(page, "the endpoint page, rows and code opened")
    shot("endpoint-opened")
    page.get_by_role("button", name="Send test").click()
    expect(page.get_by_role("region", name="Send test result")).to_be_visible()
    assert_no_violations(page, "the endpoint page with a test result")
    page.get_by_role("button", name="Recover…").click()
    expect(page.get_by_role("dialog", name="Recover failed deliveries")).to_be_visible()
    assert_no_violations(page, "the recover dialog")
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Rotate secret").click()
    page.get_by_role("dialog").get_by_role("button", name="Rotate secret").click()
    expect(page.get_by_label("Signing secret", exact=True)).not_to_have_value("")
    assert_no_violations(page, "the endpoint page with a new secret shown")
    page.goto(f"/webhooks/{uuid.uuid4()}")
    assert_no_violations(page, "the not-found page")
    with shot.phone():
        for path in ("/webhooks", f"/webhooks/{endpoint['id']}", "/webhooks/new"):
            page.goto(path)
            assert_no_violations(page, f"{path} at phone width")


def test_the_refusal_page_has_no_axe_violation(page: Page) -> None:
    editor = editor_user()
    signed_in(page, editor.email, editor.password, "/webhooks")
    expect(page.get_by_role("heading", name="You need the admin role")).to_be_visible()
    assert_no_violations(page, "the 403 page")
