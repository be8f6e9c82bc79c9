"""HTTP caching of content reads: a strong ETag and 304 on every content GET (REST entry, list,
relations page, GraphQL over GET), and Cache-Control and Vary by who asked: a read token's
answer is for shared caches, a full token's or a session's is private, a refusal is kept by
no cache."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.support.clients import WorkspaceAccess
from tests.support.content import create, define, publish
from tests.support.graphql import PATH
from tests.support.settings import delivery_options

READ_CACHE = "public, max-age=0, s-maxage=60, stale-while-revalidate=2"
PRIVATE = "private, no-store"
QUERY = "query ($n: Int) { posts(pageSize: $n) { total items { title } } }"


@pytest.fixture
def blog(new_workspace: Callable[..., WorkspaceAccess]) -> tuple[WorkspaceAccess, list[str]]:
    """A published post with a published tag; the URLs of the four kinds of content read."""
    workspace = new_workspace()
    define(workspace.full, "tag", [{"name": "name", "type": "string"}])
    define(
        workspace.full,
        "post",
        [
            {"name": "title", "type": "string"},
            {"name": "tags", "type": "relation", "target": "tag", "cardinality": "many-to-many"},
        ],
    )
    tag = create(workspace.full, "tag", {"name": "news"})
    publish(workspace.full, "tag", tag["id"])
    post = create(
        workspace.full, "post", {"title": "Hello"}, relations={"tags": {"link": [tag["id"]]}}
    )
    publish(workspace.full, "post", post["id"])
    urls = [
        f"/api/v1/content/post/{post['id']}",
        "/api/v1/content/post?sort=createdAt",
        f"/api/v1/content/post/{post['id']}/relations/tags",
        str(httpx.URL(PATH, params={"query": QUERY, "variables": '{"n": 5}'})),
    ]
    return workspace, urls


def test_every_content_get_has_a_strong_etag_and_answers_a_match_with_304(
    blog: tuple[WorkspaceAccess, list[str]],
) -> None:
    workspace, urls = blog
    for client in (workspace.read, workspace.full):
        for url in urls:
            first = client.get(url)
            assert first.status_code == 200, (url, first.text)
            tag = first.headers["etag"]
            assert tag.startswith('"'), (url, tag)  # strong: no W/ prefix
            assert len(tag) > 10, (url, tag)
            again = client.get(url)
            assert again.headers["etag"] == tag
            assert again.content == first.content
            not_modified = client.get(url, headers={"If-None-Match": tag})
            assert not_modified.status_code == 304, url
            assert not_modified.content == b""
            for header in ("etag", "cache-control", "vary"):
                assert not_modified.headers[header] == first.headers[header], (url, header)
            weak_or_listed = client.get(url, headers={"If-None-Match": f'"other", W/{tag}'})
            assert weak_or_listed.status_code == 304
            stale = client.get(url, headers={"If-None-Match": '"something-else"'})
            assert stale.status_code == 200
            assert stale.content == first.content


def test_a_read_token_s_answer_is_for_shared_caches_a_full_token_s_is_private(
    blog: tuple[WorkspaceAccess, list[str]], admin: httpx.Client
) -> None:
    workspace, urls = blog
    session = admin
    session.headers["X-Workspace-Id"] = workspace.id
    for url in urls:
        vary = "Authorization, Accept" if url.startswith(PATH) else "Authorization"
        read = workspace.read.get(url)
        assert read.headers["cache-control"] == READ_CACHE, url
        assert read.headers["vary"] == vary
        for private in (workspace.full.get(url), session.get(url)):
            assert private.status_code == 200, (url, private.text)
            assert private.headers["cache-control"] == PRIVATE, url
            # The session's answer varies by Cookie too (the session middleware says so).
            assert private.headers["vary"].removesuffix(", Cookie") == vary


def test_the_cache_seconds_setting_drives_s_maxage_and_zero_turns_shared_caching_off(
    blog: tuple[WorkspaceAccess, list[str]],
) -> None:
    workspace, urls = blog
    with delivery_options(cache_seconds=7, stale_seconds=3):
        for url in urls:
            assert workspace.read.get(url).headers["cache-control"] == (
                "public, max-age=0, s-maxage=7, stale-while-revalidate=3"
            )
    with delivery_options(cache_seconds=0):
        for url in urls:
            answer = workspace.read.get(url)
            assert answer.headers["cache-control"] == "private, no-cache"
            assert workspace.read.get(url, headers={"If-None-Match": answer.headers["etag"]})


def test_refusals_and_answers_with_errors_are_never_cached(
    blog: tuple[WorkspaceAccess, list[str]], make_client: Callable[..., httpx.Client]
) -> None:
    workspace, _ = blog
    refusals = [
        workspace.read.get("/api/v1/content/post/00000000-0000-4000-8000-000000000000"),
        workspace.read.get("/api/v1/content/nope"),
        workspace.read.get("/api/v1/content/post?pageSize=0"),
        make_client().get("/api/v1/content/post"),
    ]
    for refused in refusals:
        assert refused.status_code >= 400
        assert refused.headers["cache-control"] == "no-store", refused.text
        assert "etag" not in refused.headers
    errors = [
        workspace.read.get(PATH, params={"query": "{ nope }"}),
        workspace.read.get(PATH, params={"query": '{ post(id: "x") { title } }'}),
        make_client().get(PATH, params={"query": "{ posts { total } }"}),
    ]
    for answer in errors:
        assert answer.status_code == 200
        assert answer.json()["errors"], answer.text
        assert answer.headers["cache-control"] == "no-store"
        assert "etag" not in answer.headers


def test_a_change_the_read_token_sees_changes_the_etag(
    blog: tuple[WorkspaceAccess, list[str]],
) -> None:
    workspace, urls = blog
    before = {url: workspace.read.get(url).headers["etag"] for url in urls}
    post = create(workspace.full, "post", {"title": "Second"})
    publish(workspace.full, "post", post["id"])
    for url in urls[1:2] + urls[3:]:  # the lists change; the first post and its tags do not
        answer = workspace.read.get(url, headers={"If-None-Match": before[url]})
        assert answer.status_code == 200, url
        assert answer.headers["etag"] != before[url]
        assert "Second" in answer.text
    for url in (urls[0], urls[2]):
        assert workspace.read.get(url, headers={"If-None-Match": before[url]}).status_code == 304
