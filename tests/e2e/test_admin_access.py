"""Who may open the webhook admin pages, and how they hold up: a signed-out visitor is sent to
sign in and back, an editor is refused, hostile data shows as text, every action is reachable
from the keyboard and every control has a name. In Debian's Chromium."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Dialog, Page, expect

from harness.receiver import Answer, Receiver
from infra.local_stack import LocalStack
from tests.support.admin_pages import (
    AdminVisit,
    Shots,
    admin_in,
    editor_user,
    signed_in,
    unique_path,
)
from tests.support.webhooks import Hooks, write_event

pytestmark = pytest.mark.browser

# Every form control without a name a screen reader could announce.
UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea, button')]
  .filter((el) => el.type !== 'hidden' && !el.closest('[hidden], template, dialog:not([open])'))
  .filter((el) => {
    const named = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
    const labelled = el.labels && [...el.labels].some((l) => l.textContent.trim());
    const text = el.tagName === 'BUTTON' && el.textContent.trim();
    return !(named || labelled || text);
  })
  .map((el) => el.outerHTML.slice(0, 120))"""

FOCUSED = r"""() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  return {
    tag: el.tagName.toLowerCase(),
    name: (el.getAttribute('aria-label') || (el.labels && el.labels[0] && el.labels[0].textContent)
      || el.textContent || el.value || '').trim().replace(/\s+/g, ' ').slice(0, 80),
    id: el.id,
    outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
  };
}"""


def tab_until(page: Page, name: str, limit: int = 60) -> list[dict[str, Any]]:
    """Presses Tab until an element with this name has focus; returns what was passed on the way.

    Every stop must show a visible focus outline.
    """
    passed: list[dict[str, Any]] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused: dict[str, Any] = page.evaluate(FOCUSED)
        passed.append(focused)
        assert focused["outline"], f"no visible focus on {focused}"
        if focused["name"] == name:
            return passed
    raise AssertionError(f"Tab never reached {name!r}; passed {[f['name'] for f in passed]}")


def test_signed_out_visitor_signs_in_and_returns(
    page: Page,
    credentials: dict[str, Any],
    output_dir: Path,
    hooks: Hooks,
    local_receivers_allowed: None,
) -> None:
    shot = Shots(page, output_dir)
    endpoint = hooks.create("http://127.0.0.1:9" + unique_path(), allWorkspaces=True)
    target = f"/webhooks/{endpoint['id']}?status=dead"
    response = page.goto(target)
    assert response is not None
    assert page.url.endswith(f"/login?next={quote(target, safe='')}")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    shot("sent-to-sign-in")
    admin = credentials["admin"]
    page.get_by_label("Email").fill(admin["email"])
    page.get_by_label("Password").fill(admin["password"])
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(target)
    expect(page.get_by_label("Status")).to_have_value("dead")
    shot("back-on-the-page")


def test_an_editor_is_refused(
    page: Page, base_url: str, output_dir: Path, hooks: Hooks, local_receivers_allowed: None
) -> None:
    shot = Shots(page, output_dir)
    endpoint = hooks.create("http://127.0.0.1:9" + unique_path(), allWorkspaces=True)
    editor = editor_user()
    signed_in(page, editor.email, editor.password, "/webhooks")
    heading = page.get_by_role("heading", name="You need the admin role")
    expect(heading).to_be_visible()
    expect(page.get_by_text(f"signed in as {editor.email} with the editor role")).to_be_visible()
    shot("refused")
    for path in ("/webhooks", "/webhooks/new", f"/webhooks/{endpoint['id']}"):
        response = page.goto(path)
        assert response is not None
        assert response.status == 403, path
        expect(heading).to_be_visible()
        assert endpoint["url"] not in page.content()
    with shot.phone():
        shot("refused-phone")
    # The API refuses the editor too, with the browser's own Origin.
    answer = page.request.post(
        f"/api/webhooks/{endpoint['id']}/rotate-secret", headers={"Origin": base_url}
    )
    assert answer.status == 403
    assert answer.json()["error"]["code"] == "forbidden"
    assert hooks.get(endpoint["id"])["secretHint"] == endpoint["secret"][-4:]


def test_hostile_data_is_shown_as_text(
    stack: LocalStack, receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    script = "<script>window.__pwned=1</script>"
    image = "<img src=x onerror=window.__pwned=2>"
    endpoint = hooks.create(
        receiver.url(f"{unique_path()}/{script}"),
        workspaces=[workspace.id],
        headers={"X-Note": script, "X-Image": image},
    )
    receiver.always(Answer(200, f"{script}{image}".encode()))
    write_event(workspace_id=workspace.id, kind="entry.published", title=image)
    stack.drain()
    dialogs: list[str] = []

    def record(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", record)

    def assert_inert() -> None:
        assert page.evaluate("() => window.__pwned") is None
        assert page.evaluate("() => document.querySelectorAll('[onerror]').length") == 0
        injected = "() => [...document.scripts].some((s) => s.textContent.includes('__pwned'))"
        assert page.evaluate(injected) is False
        assert page.locator("main img").count() == 0

    admin_in(page, credentials, "/webhooks?q=__pwned")
    row = page.locator(".endpoint-row")
    expect(row).to_have_count(1)
    expect(row.get_by_role("link")).to_have_text(endpoint["url"])
    assert_inert()
    shot("list")

    page.goto(f"/webhooks/{endpoint['id']}")
    expect(page.get_by_role("heading", level=1)).to_contain_text(script)
    expect(page.get_by_text(f"X-Note: {script}")).to_be_visible()
    expect(page.get_by_text(f"X-Image: {image}")).to_be_visible()
    log_row = page.locator(".log-row").first
    expect(log_row).to_contain_text(image)
    log_row.locator("summary").first.click()
    expect(log_row.get_by_label(re.compile("Response snippet"))).to_have_text(f"{script}{image}")
    page.get_by_role("button", name="Send test").click()
    expect(page.get_by_label("Response to the test")).to_have_text(f"{script}{image}")
    assert_inert()
    shot("detail")

    page.goto(f"/webhooks/{endpoint['id']}/edit")
    expect(page.get_by_label("Endpoint URL")).to_have_value(endpoint["url"])
    expect(page.get_by_label("Header 1 value")).to_have_value(script)
    expect(page.get_by_label("Header 2 value")).to_have_value(image)
    assert_inert()
    shot("editor")
    assert dialogs == []


def test_keyboard_reaches_every_main_action_and_controls_are_labelled(
    receiver: Receiver, admin_visit: AdminVisit
) -> None:
    page, credentials, shot, hooks, workspace = admin_visit
    path = unique_path("keys")
    endpoint = hooks.create(receiver.url(path), workspaces=[workspace.id])
    admin_in(page, credentials, f"/webhooks?q={path[1:]}")

    # The list: skip link first, then the main navigation, then New endpoint.
    passed = tab_until(page, "New endpoint")
    assert passed[0]["name"] == "Skip to content"
    assert page.evaluate(UNLABELLED) == []
    tab_until(page, endpoint["url"])
    shot("list-focus", full_page=False)
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"/webhooks/{endpoint['id']}")
    page.wait_for_load_state("load")  # the URL changes before the new page can take focus

    # The endpoint page: every action is a real button in the Tab order.
    assert page.evaluate(UNLABELLED) == []
    tab_until(page, "Edit")
    tab_until(page, "Send test")
    page.keyboard.press("Enter")
    expect(page.get_by_role("region", name="Send test result")).to_contain_text("HTTP 200")
    tab_until(page, "Rotate secret")
    tab_until(page, "Delete")
    shot("detail-focus", full_page=False)
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Delete this endpoint?")
    expect(dialog).to_be_visible()
    focused = page.evaluate(FOCUSED)
    assert focused["name"] == "Cancel"
    shot("delete-dialog-focus", full_page=False)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert page.evaluate(FOCUSED)["name"] == "Delete"
    assert hooks.client.get(f"/api/webhooks/{endpoint['id']}").status_code == 200

    # The editor: fields, checkboxes and the save button, in order, all labelled.
    page.goto(f"/webhooks/{endpoint['id']}/edit")
    assert page.evaluate(UNLABELLED) == []
    tab_until(page, "entry.created")
    page.keyboard.press("Space")
    expect(page.get_by_label("entry.created")).to_be_checked()
    # The workspace list can be long: typing in its filter keeps the Tab order short.
    tab_until(page, "Find a workspace")
    page.keyboard.type(workspace.slug)
    tab_until(page, workspace.slug)
    tab_until(page, "Add header")
    page.keyboard.press("Enter")
    expect(page.get_by_label("Header 2 name")).to_be_focused()
    tab_until(page, "Save changes")
    shot("editor-focus", full_page=False)
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"/webhooks/{endpoint['id']}?done=saved")
    assert hooks.get(endpoint["id"])["events"] == ["entry.created"]
