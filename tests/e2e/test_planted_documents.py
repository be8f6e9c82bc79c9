"""A page on another site cannot plant a trusted GraphQL document through a signed-in editor's
browser (docs/graphql.md, "Persisted documents"; D116).

The page links to `GET /api/v1/graphql` with a query and its hash. Following the link is a
top-level cross-site navigation, so Chromium sends the `SameSite=Lax` session cookie: the query
runs as the editor, but the document is not registered, so a `persistedOnly` token of the
workspace still cannot run it by its hash.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import Browser, Request

from content_service.identity.bootstrap import DEFAULT_SLUG
from content_service.identity.tokens import TokenSpec, create_token
from content_service.identity.workspaces import resolve_workspace
from infra.local_stack import LocalStack
from tests.support.admin_pages import sign_in_page

pytestmark = pytest.mark.browser


@pytest.fixture
def other_site() -> Iterator[tuple[str, dict[str, str]]]:
    """A site of its own (`localhost`, where the service is `127.0.0.1`): the page it serves
    is put in the dict under "page"."""
    served: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = served["page"].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}/", served
    finally:
        server.shutdown()
        server.server_close()


def test_a_cross_site_link_runs_but_never_plants_a_document(
    stack: LocalStack,
    browser: Browser,
    base_url: str,
    credentials: dict[str, Any],
    other_site: tuple[str, dict[str, str]],
) -> None:
    workspace = resolve_workspace(DEFAULT_SLUG)
    token, _ = create_token(
        TokenSpec(name="site build", workspace_id=workspace.id, access="full", persisted_only=True)
    )
    query = f"{{ planted_{uuid.uuid4().hex[:12]}: __typename }}"
    digest = hashlib.sha256(query.encode()).hexdigest()
    extensions = {"persistedQuery": {"version": 1, "sha256Hash": digest}}
    link = f"{base_url}/api/v1/graphql?" + urlencode(
        {"query": query, "extensions": json.dumps(extensions)}
    )
    url, served = other_site
    served["page"] = f'<!doctype html><title>prize</title><a id="go" href="{link}">prize</a>'

    context = browser.new_context(base_url=base_url)
    try:
        page = context.new_page()
        admin = credentials["admin"]
        sign_in_page(page, admin["email"], admin["password"], next_path="/content")
        sent: list[Request] = []
        page.on("request", lambda r: sent.append(r) if "/api/v1/graphql" in r.url else None)
        page.goto(url)
        with page.expect_navigation():
            page.click("#go")
        answered = page.inner_text("body")
        fetch_site = sent[0].all_headers().get("sec-fetch-site")
    finally:
        context.close()

    assert fetch_site == "cross-site"
    assert '"Query"' in answered, f"the link did not run as the signed-in editor: {answered}"
    with httpx.Client(base_url=base_url, timeout=30) as client:
        ran = client.post(
            "/api/v1/graphql",
            json={"extensions": extensions},
            headers={"Authorization": f"Bearer {token}"},
        ).json()
    codes = [error["extensions"]["code"] for error in ran.get("errors", [])]
    assert codes == ["PERSISTED_QUERY_NOT_FOUND"], ran
