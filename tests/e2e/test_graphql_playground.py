"""The GraphQL playground in a real browser: GraphiQL served by the app itself (the page fixture
fails on any request to another origin), a token pasted into its header editor, a query run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Response, expect

from tests.support.admin_pages import sign_in_page
from tests.support.clients import WorkspaceAccess
from tests.support.playground import run_query

pytestmark = pytest.mark.browser


def test_the_playground_runs_a_query_with_a_pasted_token(
    page: Page, new_workspace: Callable[..., WorkspaceAccess], output_dir: Path
) -> None:
    workspace = new_workspace()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto("/api/v1/graphql/playground")
    expect(page.locator(".graphiql-container")).to_be_visible()
    page.screenshot(path=str(output_dir / "loaded.png"))
    response = run_query(page, workspace.read_token, "{ __typename }")
    expect(response).to_contain_text('"__typename": "Query"')
    page.screenshot(path=str(output_dir / "answered.png"))
    assert not [p for p in problems if "Content Security Policy" in p or "Refused" in p], problems


def test_graphiqls_own_introspection_passes_the_introspection_bound(
    page: Page, credentials: dict[str, Any]
) -> None:
    """GraphiQL introspects the schema as it loads (a signed-in user's cookie authenticates it):
    its own query, whatever it asks, stays within the bound of `introspection_bound`."""
    admin = credentials["admin"]

    def introspection(response: Response) -> bool:
        request = response.request
        return (
            request.method == "POST"
            and request.url.endswith("/api/v1/graphql")
            and "__schema" in (request.post_data or "")
        )

    with page.expect_response(introspection) as answered:
        sign_in_page(page, admin["email"], admin["password"], "/api/v1/graphql/playground")
    answer = answered.value.json()
    assert "errors" not in answer, answer
    assert answer["data"]["__schema"]["queryType"]["name"] == "Query"
    page.get_by_role("button", name="Show Documentation Explorer").click()
    expect(page.locator(".graphiql-doc-explorer")).to_contain_text("Query")
