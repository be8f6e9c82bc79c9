"""The REST API reference (`/api/v1/docs`) and the GraphQL playground in a real browser.

Every request the pages make is checked to stay on 127.0.0.1 (the `page` fixture aborts and
reports any other, and each test here asserts the hosts it saw). axe-core runs on both pages;
in the playground it skips the vendored CodeMirror editors (`.CodeMirror`), whose syntax
colours and hidden text areas are GraphiQL's, and checks everything else: the bar, GraphiQL's
toolbar, tabs and panes, and the names this project gives the editors' text areas.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Request, Response, ViewportSize, expect

from tests.support.axe import describe, violations
from tests.support.clients import WorkspaceAccess
from tests.support.content import define
from tests.support.playground import run_query, set_editor

pytestmark = pytest.mark.browser

SERIOUS = ("critical", "serious")
PHONE: ViewportSize = {"width": 390, "height": 844}


def _hosts_seen(page: Page) -> list[str]:
    seen: list[str] = []

    def record(request: Request) -> None:
        seen.append(urlsplit(request.url).hostname or request.url)

    page.on("request", record)
    return seen


def _serious(page: Page, context: object = None) -> list[dict[str, object]]:
    return [v for v in violations(page, context) if v["impact"] in SERIOUS]


def _introspection(token: str) -> Callable[[Response], bool]:
    """The answer to the playground's introspection with `token` (waiting for the answer, not
    the request, so autocomplete has the schema before the test types)."""

    def matches(response: Response) -> bool:
        request = response.request
        return (
            request.method == "POST"
            and request.url.endswith("/api/v1/graphql")
            and "__schema" in (request.post_data or "")
            and request.headers.get("authorization") == f"Bearer {token}"
        )

    return matches


def _hints_for(page: Page, text: str) -> list[str]:
    """Types `text` at the end of the query editor and returns the autocomplete offered."""
    set_editor(page, ".graphiql-query-editor", "{\n  ")
    page.keyboard.type(text, delay=30)
    hints = page.locator(".CodeMirror-hints .CodeMirror-hint")
    expect(hints.first).to_be_visible()
    found: list[str] = hints.all_inner_texts()
    page.keyboard.press("Escape")
    return found


def test_the_rest_reference_is_served_offline_and_passes_axe(page: Page, output_dir: Path) -> None:
    hosts = _hosts_seen(page)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    response = page.goto("/api/v1/docs")
    assert response is not None
    assert response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    # The OpenAPI document is generated on its first request: seconds on a loaded 2-core
    # machine (CI saw the 5 s default pass by), so the first render gets a longer deadline.
    title = page.locator(".swagger-ui .info .title")
    expect(title).to_contain_text("Content Service", timeout=30_000)
    operation = page.locator(
        "#operations-content-create_content_api_v1_content__content_type__post"
    )
    expect(operation).to_be_visible()
    operation.locator(".opblock-summary-control").click()
    expect(operation.locator(".responses-wrapper")).to_contain_text("422")
    page.screenshot(path=str(output_dir / "reference.png"))
    found = _serious(page)
    assert not found, describe(found)
    assert not problems, problems
    assert set(hosts) == {"127.0.0.1"}, hosts


def test_the_home_page_links_the_reference_and_the_playground(page: Page) -> None:
    page.goto("/")
    expect(page.get_by_role("link", name="REST API reference")).to_have_attribute(
        "href", "/api/v1/docs"
    )
    expect(page.get_by_role("link", name="GraphQL playground")).to_have_attribute(
        "href", "/api/v1/graphql/playground"
    )


def test_autocomplete_offers_the_types_of_the_token_typed_into_the_headers(
    page: Page, new_workspace: Callable[..., WorkspaceAccess], output_dir: Path
) -> None:
    """The playground introspects again when the headers change: nothing with an empty
    Bearer on load, then the schema of each token pasted, each offering its own types."""
    posts, recipes = new_workspace(), new_workspace()
    define(posts.full, "blog_post", [{"name": "title", "type": "string"}])
    define(recipes.full, "recipe", [{"name": "title", "type": "string"}])
    hosts = _hosts_seen(page)
    sent: list[Request] = []
    page.on("request", lambda r: sent.append(r) if r.url.endswith("/api/v1/graphql") else None)

    page.goto("/api/v1/graphql/playground")
    expect(page.locator(".graphiql-container")).to_be_visible()
    hint = page.locator("#token-hint")
    expect(hint).to_contain_text("Bearer cs_")
    height = hint.evaluate(
        "e => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)"
    )
    assert height < 1.5, f"the token line wraps at 1280 px ({height:.1f} lines)"

    with page.expect_response(_introspection(posts.read_token)):
        set_editor(
            page,
            ".graphiql-editor-tool",
            json.dumps({"Authorization": f"Bearer {posts.read_token}"}),
        )
    offered = _hints_for(page, "bl")
    assert "blogPosts" in offered, offered
    assert "blogPost" in offered, offered
    page.screenshot(path=str(output_dir / "autocomplete.png"))

    with page.expect_response(_introspection(recipes.read_token)):
        set_editor(
            page,
            ".graphiql-editor-tool",
            json.dumps({"Authorization": f"Bearer {recipes.read_token}"}),
        )
    expect(page.locator(".graphiql-doc-explorer, .graphiql-container")).to_be_visible()
    offered = _hints_for(page, "re")
    assert "recipes" in offered, offered
    assert not [h for h in _hints_for(page, "bl") if h.startswith("blogPost")]

    empty_bearer = [r for r in sent if r.headers.get("authorization", "").strip() == "Bearer"]
    assert not empty_bearer, "the playground introspected with an empty Bearer"
    found = _serious(page, {"exclude": [[".CodeMirror"]]})
    assert not found, describe(found)
    assert set(hosts) == {"127.0.0.1"}, hosts


def test_the_playground_works_at_phone_width(
    page: Page, new_workspace: Callable[..., WorkspaceAccess], output_dir: Path
) -> None:
    workspace = new_workspace()
    page.set_viewport_size(PHONE)
    page.goto("/api/v1/graphql/playground")
    expect(page.locator(".graphiql-container")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for pane in (".graphiql-query-editor", ".graphiql-editor-tool", ".graphiql-response"):
        box = page.locator(pane).bounding_box()
        assert box is not None, pane
        assert box["width"] >= PHONE["width"] - 60, (pane, box)
    response = run_query(page, workspace.read_token, "{ __typename }")
    expect(response).to_contain_text('"__typename": "Query"')
    response.scroll_into_view_if_needed()
    page.screenshot(path=str(output_dir / "phone.png"), full_page=True)
    found = _serious(page, {"exclude": [[".CodeMirror"]]})
    assert not found, describe(found)


def test_assets_are_minified_and_served_compressed(page: Page, base_url: str) -> None:
    import httpx

    for asset, most in (
        ("/static/graphiql/graphiql.min.js", 1_100_000),
        ("/static/apidocs/swagger-ui-bundle.js", 1_600_000),
    ):
        plain = httpx.get(f"{base_url}{asset}", headers={"Accept-Encoding": "identity"})
        assert plain.status_code == 200
        assert len(plain.content) < most, (asset, len(plain.content))
        lines = plain.content.count(b"\n") + 1
        assert len(plain.content) / lines > 1000, f"{asset} is not minified ({lines} lines)"
        with httpx.stream(
            "GET", f"{base_url}{asset}", headers={"Accept-Encoding": "gzip"}
        ) as compressed:
            assert compressed.headers["content-encoding"] == "gzip"
            sent = sum(len(chunk) for chunk in compressed.iter_raw())
        assert sent < len(plain.content) / 2, (asset, sent)
