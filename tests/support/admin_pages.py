"""Helpers for the webhook admin page tests (browser and HTTP).

- `Shots`: numbered screenshots under the test's output folder, at laptop or phone width.
- `AdminVisit`: where most admin page tests start (the `admin_visit` fixture of tests/e2e).
- `sign_in_page`: fills the sign-in form (whatever the answer); `signed_in`: signs a Playwright
  page in as a user; `admin_in`: as the suite's admin.
- `editor_user`: a signed-in editor for refusal tests.
- `no_horizontal_scroll`: the page is not wider than its viewport.
- `endpoint_with_log`: an endpoint on the test receiver whose log holds a few deliveries.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

from playwright.sync_api import Page, ViewportSize, expect

from content_service import runtime
from content_service.identity.users import create_user
from harness.receiver import Answer, Receiver
from infra.local_stack import LocalStack
from tests.support.webhooks import Hooks, write_event

LAPTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}


@dataclass
class Shots:
    """Screenshots named `NN-<step>.png`, in the order they were taken."""

    page: Page
    folder: Path
    taken: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        # A re-run starts clean, so the folder never mixes this run's steps with an older one's.
        for old in self.folder.glob("[0-9][0-9]-*.png"):
            old.unlink()

    def __call__(self, step: str, *, full_page: bool = True) -> Path:
        path = self.folder / f"{len(self.taken) + 1:02d}-{step}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        self.taken.append(path)
        return path

    @contextmanager
    def phone(self) -> Iterator[None]:
        """Phone width (390x844) for the enclosed steps, then back to the laptop size."""
        self.page.set_viewport_size(PHONE)
        try:
            yield
        finally:
            self.page.set_viewport_size(LAPTOP)


class AdminVisit(NamedTuple):
    """The browser page, the admin's credentials, the test's screenshots, the webhooks API and
    a fresh workspace, with receivers on 127.0.0.1 allowed (the `admin_visit` fixture)."""

    page: Page
    credentials: dict[str, Any]
    shot: Shots
    hooks: Hooks
    workspace: Any


def sign_in_page(page: Page, email: str, password: str, next_path: str = "/webhooks") -> None:
    page.goto(f"/login?next={quote(next_path, safe='/')}")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def signed_in(page: Page, email: str, password: str, next_path: str = "/webhooks") -> None:
    """Signs in through the form and lands on `next_path` (query string and all)."""
    sign_in_page(page, email, password, next_path=next_path)
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    page.wait_for_load_state("load")


def admin_in(page: Page, credentials: dict[str, Any], next_path: str = "/webhooks") -> None:
    """Signs the suite's admin (the `credentials` fixture) in through the form, landing on
    `next_path`."""
    admin = credentials["admin"]
    signed_in(page, admin["email"], admin["password"], next_path)
    expect(page).to_have_url(next_path)


@dataclass(frozen=True)
class Account:
    email: str
    password: str


def editor_user() -> Account:
    """A new user with the editor role (no webhook permissions)."""
    account = Account(f"editor-{uuid.uuid4().hex[:10]}@example.com", "editor-password-1")
    create_user(runtime.settings(), account.email, "editor", account.password)
    return account


def no_horizontal_scroll(page: Page) -> bool:
    """True when the document is no wider than the viewport (inner containers may scroll)."""
    width: bool = page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    return width


def unique_path(label: str = "hook") -> str:
    """A receiver path unique to one test, so a URL filter finds only its endpoints."""
    return f"/{label}-{uuid.uuid4().hex[:10]}"


def endpoint_with_log(
    stack: LocalStack,
    hooks: Hooks,
    receiver: Receiver,
    workspace_id: str,
    answers: Sequence[Answer],
    titles: Sequence[str],
    *,
    label: str,
    kind: str = "entry.published",
) -> dict[str, Any]:
    """An endpoint on `receiver` (a path of its own, `label`) for the workspace, and one `kind`
    event per title delivered while the receiver gives `answers` in turn: the endpoint."""
    endpoint = hooks.create(receiver.url(unique_path(label)), workspaces=[workspace_id])
    receiver.respond(*answers)
    for title in titles:
        write_event(workspace_id=workspace_id, kind=kind, title=title)
    stack.drain()
    return endpoint
