"""Driving the GraphQL playground (GraphiQL) in a browser test as a person would."""

from __future__ import annotations

import json

from playwright.sync_api import Locator, Page


def set_editor(page: Page, selector: str, text: str) -> None:
    """Types into a GraphiQL (CodeMirror 5) editor the way a person pastes: select all, paste."""
    page.locator(f"{selector} .CodeMirror:visible").first.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def run_query(page: Page, token: str, query: str) -> Locator:
    """Pastes the bearer token into the headers and the query into its editor, runs it, and
    returns the response pane."""
    set_editor(page, ".graphiql-editor-tool", json.dumps({"Authorization": f"Bearer {token}"}))
    set_editor(page, ".graphiql-query-editor", query)
    page.get_by_role("button", name="Execute query (Ctrl-Enter)").click()
    return page.locator(".graphiql-response")
