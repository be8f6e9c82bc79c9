"""The content and content-model pages over plain HTTP: who may open them, the headers they
are served with, the counts, the list's filters and cursor, escaping, and that the pages take
no writes (docs/admin-ui.md, "Content pages")."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from html import unescape
from urllib.parse import quote

import httpx
import pytest

from content_service.api.routes import content_pages, model_pages
from tests.integration.test_admin_origin_guard import write_routes
from tests.support.admin_pages import editor_user
from tests.support.clients import WorkspaceAccess, sign_in
from tests.support.content import create, define, publish

NewWorkspace = Callable[..., WorkspaceAccess]


@pytest.fixture
def blog(new_workspace: NewWorkspace) -> WorkspaceAccess:
    ws = new_workspace()
    define(ws.full, "author", [{"name": "name", "type": "string"}])
    define(
        ws.full,
        "post",
        [
            {"name": "title", "type": "string", "required": True},
            {"name": "body", "type": "richtext"},
            {
                "name": "author",
                "type": "relation",
                "target": "author",
                "cardinality": "many-to-one",
            },
        ],
        localized=True,
    )
    return ws


@pytest.fixture
def editor(make_client: Callable[..., httpx.Client]) -> httpx.Client:
    account = editor_user()
    return sign_in(make_client(), account.email, account.password)


def paths(ws: WorkspaceAccess, entry_id: str) -> dict[str, bool]:
    """Every new page of the workspace -> whether it is for administrators only."""
    q = f"?workspace={ws.slug}"
    return {
        f"/content{q}": False,
        f"/content/post{q}": False,
        f"/content/post{q}&state=draft&locale=en&q=x": False,
        f"/content/post/new{q}": False,
        f"/content/post/{entry_id}{q}": False,
        f"/content-types{q}": True,
        f"/content-types/post{q}": True,
    }


def test_who_may_open_the_pages(
    blog: WorkspaceAccess,
    anonymous: httpx.Client,
    editor: httpx.Client,
    admin: httpx.Client,
    make_client: Callable[..., httpx.Client],
) -> None:
    entry = create(blog.full, "post", {"title": "Hello"})
    for path, admin_only in paths(blog, entry["id"]).items():
        signed_out = anonymous.get(path)
        assert signed_out.status_code == 303, path
        assert signed_out.headers["location"] == f"/login?next={quote(path, safe='')}"
        token = make_client(blog.full_token).get(path)
        assert token.status_code == 403, path
        assert "API tokens cannot open the admin pages" in token.text
        assert "Hello" not in token.text
        as_editor = editor.get(path)
        assert as_editor.status_code == (403 if admin_only else 200), path
        if admin_only:
            assert "You need the admin role" in as_editor.text
            assert "Only administrators change the content model" in as_editor.text
        assert admin.get(path).status_code == 200, path
    # The API behind the model pages refuses the editor's writes too (D25).
    body = {"name": "nope", "fields": []}
    headers = {"X-Workspace-Id": blog.id}
    assert editor.post("/api/v1/content-types", json=body, headers=headers).status_code == 403
    assert editor.delete("/api/v1/content-types/post", headers=headers).status_code == 403
    assert editor.get("/webhooks").status_code == 403
    assert admin.get("/webhooks").status_code == 200


def test_pages_are_served_with_a_strict_policy_and_take_no_writes(
    blog: WorkspaceAccess, admin: httpx.Client
) -> None:
    entry = create(blog.full, "post", {"title": "Hello"})
    for path in paths(blog, entry["id"]):
        response = admin.get(path)
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["x-frame-options"] == "DENY"
        # No inline script runs under that policy: only data blocks and files of this origin.
        for attributes in re.findall(r"<script([^>]*)>", response.text):
            assert 'src="/static/' in attributes or 'type="application/json"' in attributes
        assert not re.search(r"\son[a-z]+=", response.text), path
        assert " style=" not in response.text
    assert write_routes(content_pages.router, model_pages.router) == set()
    assert admin.post(f"/content/post?workspace={blog.slug}").status_code == 405


def test_home_page_and_navigation_follow_the_role(
    editor: httpx.Client, admin: httpx.Client, anonymous: httpx.Client
) -> None:
    home = editor.get("/").text
    assert 'href="/content"' in home
    assert 'href="/webhooks"' not in home
    assert 'href="/content-types"' not in home
    both = admin.get("/").text
    assert 'href="/content"' in both
    assert 'href="/webhooks"' in both
    assert 'href="/content-types"' in both
    assert 'href="/login?next=%2Fcontent"' in anonymous.get("/").text


def _counts(html: str, type_name: str) -> tuple[str, str, str]:
    row = html.split(f'data-type="{type_name}"', 1)[1].split("</tr>", 1)[0]

    def cell(name: str) -> str:
        return re.search(rf'class="num count-{name}">(\d+)<', row)[1]  # type: ignore[index]

    return cell("draft"), cell("published"), cell("total")


def test_the_overview_counts_entries_by_state_over_every_locale(
    blog: WorkspaceAccess, editor: httpx.Client
) -> None:
    first = create(blog.full, "post", {"title": "one"})
    publish(blog.full, "post", first["id"])
    create(blog.full, "post", {"title": "two"})
    create(blog.full, "post", {"title": "drei"}, locale="de")
    trashed = create(blog.full, "post", {"title": "gone"})
    assert blog.full.delete(f"/api/v1/content/post/{trashed['id']}").status_code == 204
    page = editor.get(f"/content?workspace={blog.slug}").text
    assert _counts(page, "post") == ("2", "1", "3")
    assert _counts(page, "author") == ("0", "0", "0")


def _titles(html: str) -> list[str]:
    return [unescape(t) for t in re.findall(r'class="entry-title" href="[^"]+">([^<]+)</a>', html)]


def test_the_list_is_newest_first_filtered_searched_and_paged_by_cursor(
    blog: WorkspaceAccess, editor: httpx.Client
) -> None:
    made = [create(blog.full, "post", {"title": f"post {n:02d}"}) for n in range(28)]
    publish(blog.full, "post", made[3]["id"])
    create(blog.full, "post", {"title": "Hallo"}, locale="de")
    base = f"/content/post?workspace={blog.slug}"
    first = editor.get(base).text
    assert _titles(first) == [f"post {n:02d}" for n in range(27, 2, -1)]
    assert "28 entries" in first
    older = unescape(re.search(r'href="([^"]+)" rel="next"', first)[1])  # type: ignore[index]
    assert "cursor=" in older
    second = editor.get(older).text
    assert _titles(second) == ["post 02", "post 01", "post 00"]
    assert "Newest entries" in second
    assert 'rel="next"' not in second
    assert _titles(editor.get(f"{base}&state=published").text) == ["post 03"]
    assert _titles(editor.get(f"{base}&q=post 2").text) == [f"post {n}" for n in range(27, 19, -1)]
    assert _titles(editor.get(f"{base}&locale=de").text) == ["Hallo"]
    made[5] = publish(blog.full, "post", made[5]["id"])
    changed = blog.full.patch(
        f"/api/v1/content/post/{made[5]['id']}", json={"values": {"title": "post 05, edited"}}
    )
    assert changed.json()["status"] == "changed"
    assert _titles(editor.get(f"{base}&state=changed").text) == ["post 05, edited"]
    assert _titles(editor.get(f"{base}&state=published").text) == ["post 03"]
    assert (
        '<option value="changed" selected>Changed</option>'
        in editor.get(f"{base}&state=changed").text
    )
    stale = editor.get(f"{base}&cursor=bm90LWEtY3Vyc29y")
    assert stale.status_code == 200
    assert "no longer available" in stale.text
    assert _titles(stale.text)[0] == "post 27"


def test_the_editor_page_renders_values_and_links_escaped(
    blog: WorkspaceAccess, editor: httpx.Client
) -> None:
    author = create(blog.full, "author", {"name": '<img src=x onerror="alert(1)">Ada'})
    hostile = '"><script>window.__pwned=1</script>'
    entry = create(
        blog.full,
        "post",
        {"title": hostile, "body": "<p>x</p><script>alert(2)</script>"},
        relations={"author": {"link": [author["id"]]}},
    )
    page = editor.get(f"/content/post/{entry['id']}?workspace={blog.slug}").text
    assert "<script>window.__pwned" not in page
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    assert "<img src=x" not in page
    assert "&lt;img src=x" in page
    data = page.split('id="editor-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data  # the data block's JSON escapes every `<`
    assert "\\u003cp\\u003ex\\u003c/p\\u003e" in data  # the body, as stored: sanitised


def test_the_editor_says_who_changed_an_entry_and_which_version_is_live(
    blog: WorkspaceAccess, editor: httpx.Client
) -> None:
    entry = create(blog.full, "post", {"title": "By a token"})
    url = f"/content/post/{entry['id']}?workspace={blog.slug}"
    draft = editor.get(url).text
    assert "by an API token" in draft
    assert "Not published: readers get nothing from this entry." in draft
    assert 'id="action-discard" class="button secondary" hidden' in draft
    publish(blog.full, "post", entry["id"])
    blog.full.patch(f"/api/v1/content/post/{entry['id']}", json={"values": {"title": "Next"}})
    changed = editor.get(url).text
    assert "Readers get version 1, published" in changed
    assert "The draft differs from it." in changed
    assert 'id="action-discard" class="button secondary" data-needs-script' in changed
    # No page says a save changes what readers get: a save writes the draft.
    assert "readers get at once" not in changed
    for script in ("entry_editor", "entry_panel", "history", "preview", "schedules", "read_only"):
        asset = editor.get(f"/static/content/{script}.js")
        assert asset.status_code == 200, script


def test_unknown_things_get_404_pages(blog: WorkspaceAccess, admin: httpx.Client) -> None:
    q = f"?workspace={blog.slug}"
    for path in (
        f"/content/nope{q}",
        f"/content/post/{uuid.uuid4()}{q}",
        f"/content/post/not-an-id{q}",
        f"/content/nope/new{q}",
        f"/content-types/nope{q}",
        "/content?workspace=no-such-workspace",
    ):
        response = admin.get(path)
        assert response.status_code == 404, path
        assert "No such" in response.text


def test_a_translation_starts_as_a_copy_and_an_existing_one_is_opened(
    blog: WorkspaceAccess, editor: httpx.Client
) -> None:
    source = create(blog.full, "post", {"title": "Hello"})
    q = f"workspace={blog.slug}"
    new = editor.get(f"/content/post/new?{q}&translationOf={source['id']}&locale=de")
    assert new.status_code == 200
    assert 'value="Hello"' in new.text
    assert '"localeGroupId": "' + source["id"] in new.text.replace("\\u0022", '"')
    german = create(blog.full, "post", {"title": "Hallo"}, locale="de", localeGroupId=source["id"])
    again = editor.get(
        f"/content/post/new?{q}&translationOf={source['id']}&locale=de", follow_redirects=False
    )
    assert again.status_code == 303
    assert again.headers["location"] == f"/content/post/{german['id']}?{q}"
    page = editor.get(f"/content/post/{source['id']}?{q}").text
    assert f'href="/content/post/{german["id"]}?{q}">de</a>' in page
