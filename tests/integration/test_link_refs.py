"""The reverse-link index over real HTTP (docs/content.md, "What links here"): its items after
every kind of write and cardinality, `GET .../links` for each caller, the trash refusal, and
`content-service links reindex`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.support.blog import define_every_cardinality
from tests.support.cli import run_cli
from tests.support.clients import ClientFactory, WorkspaceAccess
from tests.support.content import Storage, assert_error, create, define, publish
from tests.support.field_types import relation
from tests.support.graphql import post as graphql_post

NewWorkspace = Callable[..., WorkspaceAccess]
Ref = tuple[str, str, str]  # (target id, source id, field key)


@pytest.fixture
def blog(new_workspace: NewWorkspace) -> WorkspaceAccess:
    workspace = new_workspace()
    define_every_cardinality(workspace.full)
    return workspace


def stored_refs(storage: Storage, workspace_id: str) -> set[Ref]:
    """Every reverse-link item of the workspace, as (target, source, field key)."""
    return {
        (str(item["pk"]).rsplit("#", 1)[-1], item["sourceId"], item["fieldKey"])
        for item in storage.content_items(workspace_id)
        if item.get("entity") == "link_ref"
    }


def held_links(storage: Storage, workspace_id: str) -> set[Ref]:
    """The links every stored entry's draft or published version holds (what the index must
    equal)."""
    return {
        (target, item["id"], field_key)
        for item in storage.content_items(workspace_id)
        if item["sk"] in ("ENTRY", "PUBLISHED")
        for field_key, targets in (item.get("links") or {}).items()
        for target in targets
    }


def assert_exact(storage: Storage, workspace_id: str) -> set[Ref]:
    refs = stored_refs(storage, workspace_id)
    assert refs == held_links(storage, workspace_id)
    return refs


def patch(client: httpx.Client, type_name: str, entry_id: str, **body: Any) -> dict[str, Any]:
    response = client.patch(f"/api/v1/content/{type_name}/{entry_id}", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def act(client: httpx.Client, type_name: str, entry_id: str, action: str) -> None:
    path = f"/api/v1/content/{type_name}/{entry_id}"
    if action == "trash":
        response = client.delete(path, params={"force": "true"})
    elif action == "purge":
        response = client.delete(f"{path}/purge")
    else:
        response = client.post(f"{path}/{action}")
    assert response.status_code in (200, 204), (action, response.text)


def test_the_index_follows_every_write_for_every_cardinality(
    blog: WorkspaceAccess, storage: Storage
) -> None:
    client, ws = blog.full, blog.id
    authors = [create(client, "author", {"name": n})["id"] for n in ("Ada", "Bob")]
    tags = [create(client, "tag", {"label": n})["id"] for n in ("a", "b", "c")]
    images = [create(client, "image", {"url": u})["id"] for u in ("u1", "u2")]
    sections = [create(client, "section", {"heading": h})["id"] for h in ("s1", "s2")]
    post = create(
        client,
        "post",
        {"title": "P"},
        relations={
            "author": {"link": [authors[0]]},
            "tags": {"link": tags[:2]},
            "cover": {"link": [images[0]]},
            "sections": {"link": sections[:1]},
        },
    )["id"]
    other = create(client, "post", {"title": "Q"}, relations={"tags": {"link": tags[:1]}})["id"]
    assert len(assert_exact(storage, ws)) == 6

    # Draft edits: to-one fields replace, to-many add and remove.
    change = {
        "author": {"link": [authors[1]]},
        "tags": {"link": [tags[2]], "unlink": [tags[0]]},
        "cover": {"link": [images[1]]},
        "sections": {"link": [sections[1]], "unlink": [sections[0]]},
    }
    patch(client, "post", post, relations=change)
    assert (authors[0], post) not in {(t, s) for t, s, _ in assert_exact(storage, ws)}
    act(client, "post", post, "publish")
    assert_exact(storage, ws)

    # A draft unlinking what the published version holds keeps the reverse item.
    patch(client, "post", post, relations={"tags": {"unlink": [tags[1]]}})
    assert (tags[1], post) in {(t, s) for t, s, _ in assert_exact(storage, ws)}
    act(client, "post", post, "discard")
    assert (tags[1], post) in {(t, s) for t, s, _ in assert_exact(storage, ws)}
    patch(client, "post", post, relations={"author": {"link": [authors[0]]}})
    act(client, "post", post, "unpublish")
    refs = assert_exact(storage, ws)
    assert (authors[1], post) not in {(t, s) for t, s, _ in refs}

    # Trash keeps every reverse item (restore brings the links back); purge removes them.
    for action in ("publish", "trash"):
        act(client, "post", post, action)
        before = assert_exact(storage, ws)
    act(client, "post", post, "restore")
    assert assert_exact(storage, ws) == before
    act(client, "post", post, "trash")
    act(client, "post", post, "purge")
    refs = assert_exact(storage, ws)
    assert {s for _, s, _ in refs} == {other}


def test_a_version_restore_brings_its_links_and_their_reverse_items_back(
    blog: WorkspaceAccess, storage: Storage
) -> None:
    client, ws = blog.full, blog.id
    tags = [create(client, "tag", {"label": n})["id"] for n in ("a", "b")]
    post = create(client, "post", {"title": "P"}, relations={"tags": {"link": tags[:1]}})["id"]
    act(client, "post", post, "publish")
    patch(client, "post", post, relations={"tags": {"link": tags[1:], "unlink": tags[:1]}})
    act(client, "post", post, "publish")
    assert {t for t, _, _ in assert_exact(storage, ws)} == {tags[1]}
    response = client.post(f"/api/v1/content/post/{post}/versions/1/restore")
    assert response.status_code == 200, response.text
    assert {t for t, _, _ in assert_exact(storage, ws)} == {tags[0], tags[1]}


def links(client: httpx.Client, type_name: str, entry_id: str, **params: Any) -> dict[str, Any]:
    response = client.get(f"/api/v1/content/{type_name}/{entry_id}/links", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def rows(body: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(i["contentType"], i["field"], i["id"]) for i in body["items"]]


def test_links_groups_by_type_and_field_newest_first_and_pages(
    new_workspace: NewWorkspace,
) -> None:
    workspace = new_workspace()
    define_every_cardinality(workspace.full)
    define(
        workspace.full,
        "book",
        [{"name": "title", "type": "string"}, relation("writer", "author", "many-to-one")],
        titleField="title",
    )
    client = workspace.full
    ada = create(client, "author", {"name": "Ada"})["id"]
    posts = [
        create(client, "post", {"title": f"p{i}"}, relations={"author": {"link": [ada]}})["id"]
        for i in range(3)
    ]
    book = create(client, "book", {"title": "B"}, relations={"writer": {"link": [ada]}})["id"]
    body = links(client, "author", ada)
    expected = [("book", "writer", book)] + [("post", "author", p) for p in reversed(posts)]
    assert rows(body) == expected
    assert body["total"] == 4
    first = body["items"][0]
    assert first == {
        "id": book,
        "contentType": "book",
        "field": "writer",
        "title": "B",
        "status": "draft",
        "updatedAt": first["updatedAt"],
    }
    page = links(client, "author", ada, page=2, pageSize=2)
    assert (page["total"], page["page"], page["pageSize"]) == (4, 2, 2)
    assert rows(page) == expected[2:]
    only = links(client, "author", ada, **{"from": "post", "field": "author"})
    assert rows(only) == expected[1:]
    assert rows(links(client, "author", ada, **{"from": "book"})) == expected[:1]

    # Unknown `from` or `field`: 400; an entry the caller cannot see: 404.
    refused = ({"from": "nope"}, {"from": "tag"}, {"from": "post", "field": "tags"}, {"field": "x"})
    for params in refused:
        assert_error(client.get(f"/api/v1/content/author/{ada}/links", params=params), 400)
    assert_error(workspace.read.get(f"/api/v1/content/author/{ada}/links"), 404)
    assert_error(client.get(f"/api/v1/content/author/{posts[0]}/links"), 404)


def test_links_shows_each_caller_what_it_may_read(
    new_workspace: NewWorkspace, make_client: ClientFactory
) -> None:
    from content_service.identity.tokens import TokenSpec, create_token

    workspace = new_workspace(read_audiences=("members",))
    define_every_cardinality(workspace.full)
    define(
        workspace.full,
        "lesson",
        [{"name": "title", "type": "string"}, relation("teacher", "author", "many-to-one")],
        audienceGated=True,
    )

    def token(**spec: Any) -> httpx.Client:
        made, _ = create_token(TokenSpec(workspace_id=workspace.id, **spec))
        return make_client(made)

    writer = token(name="w", access="full", audiences=("members", "staff"))
    posts_only = token(name="p", access="read", content_types=("author", "post"))
    client = workspace.full
    ada = create(client, "author", {"name": "Ada"})["id"]
    publish(client, "author", ada)
    author = {"author": {"link": [ada]}}
    live = create(client, "post", {"title": "live"}, relations=author)["id"]
    publish(client, "post", live)
    draft_only = create(client, "post", {"title": "draft"}, relations=author)["id"]
    # Published without the link, linking it in the draft only.
    changed = create(client, "post", {"title": "changed"})["id"]
    publish(client, "post", changed)
    patch(client, "post", changed, relations=author)
    trashed = create(client, "post", {"title": "trashed"}, relations=author)["id"]
    publish(client, "post", trashed)
    act(client, "post", trashed, "trash")
    teacher = {"teacher": {"link": [ada]}}
    members = create(writer, "lesson", {"title": "m"}, relations=teacher, audiences=["members"])
    staff = create(writer, "lesson", {"title": "s"}, relations=teacher, audiences=["staff"])
    for lesson in (members, staff):
        publish(writer, "lesson", lesson["id"])

    assert {i for *_, i in rows(links(workspace.read, "author", ada))} == {live, members["id"]}
    assert {i for *_, i in rows(links(posts_only, "author", ada))} == {live}
    assert_error(
        posts_only.get(f"/api/v1/content/author/{ada}/links", params={"from": "lesson"}), 400
    )
    latest = {i for *_, i in rows(links(writer, "author", ada))}
    assert latest == {live, draft_only, changed, members["id"], staff["id"]}
    published = links(writer, "author", ada, version="published")
    assert {i["id"] for i in published["items"]} == {live, members["id"], staff["id"]}
    assert {i["status"] for i in published["items"]} == {"published"}
    statuses = {i["id"]: i["status"] for i in links(writer, "author", ada)["items"]}
    assert statuses[changed] == "changed"
    assert statuses[draft_only] == "draft"


def test_trash_refuses_an_entry_published_entries_link_unless_forced(
    blog: WorkspaceAccess, storage: Storage
) -> None:
    client = blog.full
    ada = create(client, "author", {"name": "Ada"})["id"]
    linking = [
        create(client, "post", {"title": f"p{i}"}, relations={"author": {"link": [ada]}})["id"]
        for i in range(22)
    ]
    # Drafts do not hold the trash back: only published, non-trashed entries do.
    assert client.delete(f"/api/v1/content/author/{ada}").status_code == 204
    act(client, "author", ada, "restore")
    for post in linking:
        publish(client, "post", post)
    act(client, "post", linking[0], "trash")
    with storage.unchanged(blog.id):
        error = assert_error(client.delete(f"/api/v1/content/author/{ada}"), 409, "conflict")
    assert "21 published entries" in error["message"]
    assert "force=true" in error["message"]
    assert error["details"]["count"] == 21
    named = error["details"]["linkedFrom"]
    assert len(named) == 20
    assert {n["id"] for n in named} <= set(linking[1:])
    assert {(n["contentType"], n["field"]) for n in named} == {("post", "author")}
    assert all(n["title"].startswith("p") for n in named)

    mutation = "mutation($id: ID!, $force: Boolean) { deleteAuthor(id: $id, force: $force) }"
    refused = graphql_post(client, mutation, {"id": ada})
    assert refused["data"] == {"deleteAuthor": None}
    assert refused["errors"][0]["extensions"]["status"] == 409
    forced = graphql_post(client, mutation, {"id": ada, "force": True})
    assert forced["data"] == {"deleteAuthor": True}, forced
    assert client.get(f"/api/v1/content/author/{ada}").status_code == 404
    act(client, "author", ada, "restore")
    response = client.delete(f"/api/v1/content/author/{ada}", params={"force": "true"})
    assert response.status_code == 204


def test_links_reindex_restores_missing_items_and_then_writes_nothing(
    blog: WorkspaceAccess, storage: Storage, capsys: pytest.CaptureFixture[str]
) -> None:
    from content_service.storage import dynamo

    client, ws = blog.full, blog.id
    ada = create(client, "author", {"name": "Ada"})["id"]
    tags = [create(client, "tag", {"label": n})["id"] for n in ("a", "b")]
    posts = [
        create(
            client,
            "post",
            {"title": f"p{i}"},
            relations={"author": {"link": [ada]}, "tags": {"link": tags}},
        )["id"]
        for i in range(3)
    ]
    publish(client, "post", posts[0])
    refs = assert_exact(storage, ws)
    # As entries written before the index existed: no reverse items for two of them, and a
    # stale one left behind for a purged source.
    gone = [
        i
        for i in storage.content_items(ws)
        if i.get("entity") == "link_ref" and i["sourceId"] in posts[:2]
    ]
    dynamo.delete_many(dynamo.tables().content, [dynamo.key(i["pk"], i["sk"]) for i in gone])
    stale = {"pk": f"REF#{ws}#{ada}", "sk": "post#f1#2020-01-01T00:00:00.000Z#" + "0" * 36}
    dynamo.client().put_item(
        TableName=dynamo.tables().content,
        Item=dynamo.encode({**stale, "entity": "link_ref", "sourceId": "0" * 36, "fieldKey": "f1"}),
    )
    assert stored_refs(storage, ws) != refs

    assert run_cli("links", "reindex", "--workspace", blog.slug) == 0
    result = json.loads(capsys.readouterr().out)
    # Six entries (an author, two tags, three posts) and the purged source.
    assert result == {"sources": 7, "written": len(gone), "deleted": 1}
    assert assert_exact(storage, ws) == refs
    assert {i for *_, i in rows(links(client, "author", ada))} == set(posts)

    assert run_cli("links", "reindex", "--workspace", blog.slug) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["written"], again["deleted"]) == (0, 0)
    assert stored_refs(storage, ws) == refs
