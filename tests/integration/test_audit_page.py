"""The audit, users and roles pages over plain HTTP (docs/admin-ui.md, "The audit page" and "The
users and roles pages"): administrators only, served with the strict policy and no write
routes; the audit page shows hostile values as text, takes an e-mail for the actor, reads the
service's log, and shows the newest page for a cursor it cannot read."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

import httpx

from content_service.api.routes import access_pages, audit_pages
from tests.integration.test_admin_origin_guard import write_routes
from tests.support.admin_pages import editor_user
from tests.support.clients import WorkspaceAccess, sign_in
from tests.support.content import create, define

HOSTILE = '<img src=x onerror="alert(1)">'


def test_only_administrators_open_the_pages(
    new_workspace: Callable[..., WorkspaceAccess],
    anonymous: httpx.Client,
    admin: httpx.Client,
    make_client: Callable[..., httpx.Client],
) -> None:
    ws = new_workspace()
    account = editor_user()
    editor = sign_in(make_client(), account.email, account.password)
    for path, why in (
        (f"/audit?workspace={ws.slug}", "Only administrators read the audit log"),
        ("/users", "Only administrators manage users and roles"),
        ("/roles", "Only administrators manage users and roles"),
    ):
        signed_out = anonymous.get(path)
        assert signed_out.status_code == 303, path
        assert signed_out.headers["location"] == f"/login?next={quote(path, safe='')}"
        assert make_client(ws.full_token).get(path).status_code == 403, path
        refused = editor.get(path)
        assert refused.status_code == 403, path
        assert why in refused.text
        answer = admin.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["cache-control"] == "no-store"
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        for attributes in re.findall(r"<script([^>]*)>", answer.text):
            assert 'src="/static/' in attributes or 'type="application/json"' in attributes
        assert not re.search(r"\son[a-z]+=", answer.text), path
        assert " style=" not in answer.text
    assert write_routes(audit_pages.router, access_pages.router) == set()


def test_the_audit_page_shows_values_as_text_and_reads_its_filters(
    new_workspace: Callable[..., WorkspaceAccess], admin: httpx.Client
) -> None:
    ws = new_workspace()
    define(ws.full, "note", [{"name": "title", "type": "string"}])
    entry = create(ws.full, "note", {"title": HOSTILE})
    page = admin.get("/audit", params={"workspace": ws.slug, "target": f"entry:{entry['id']}"})
    assert page.status_code == 200
    assert HOSTILE not in page.text
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page.text
    assert page.text.count('class="card audit-record"') == 1

    # A forged cursor: the newest page, with the notice, never an error page.
    forged = admin.get("/audit", params={"workspace": ws.slug, "cursor": "bm90LWEtY3Vyc29y"})
    assert forged.status_code == 200
    assert "That page of the log is no longer available" in forged.text
    assert "entry.created" in forged.text

    # The actor as an e-mail; and the service's log, where users and sign-ins are.
    account = editor_user()
    service = admin.get("/audit", params={"scope": "service", "actor": "user:nobody"})
    assert service.status_code == 200
    assert "No record matches these filters." in service.text
    created = admin.get("/audit", params={"scope": "service", "action": "user.created"})
    assert account.email in created.text
    unknown = admin.get("/audit", params={"workspace": ws.slug, "actor": "nobody@example.com"})
    assert unknown.status_code == 200
    assert "no user has the e-mail nobody@example.com" in unknown.text
    bad_time = admin.get("/audit", params={"workspace": ws.slug, "since": "yesterday"})
    assert "Since must be a date and time" in bad_time.text
