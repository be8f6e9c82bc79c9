"""Who sees what, through real HTTP: read vs full, the grant set, the workspace bucket,
audiences and the trash, on every read route."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.support.clients import ClientFactory, WorkspaceAccess
from tests.support.content import (
    assert_error,
    create,
    define,
    publish,
)
from tests.support.field_types import relation

NewWorkspace = Callable[..., WorkspaceAccess]


def token(admin: httpx.Client, make_client: ClientFactory, **spec: Any) -> httpx.Client:
    response = admin.post("/api/v1/tokens", json={"name": "t", **spec})
    assert response.status_code == 201, response.text
    return make_client(response.json()["token"])


def readable(
    client: httpx.Client, type_name: str, entry_id: str, version: str | None = None
) -> bool:
    """Whether `client` sees the entry on every read route at once (all must agree), in its
    default view or the `version` asked."""
    view = {"version": version} if version else {}
    single = client.get(f"/api/v1/content/{type_name}/{entry_id}", params=view)
    listed = client.get(f"/api/v1/content/{type_name}", params={"pageSize": 100, **view})
    addressed = client.get(
        f"/api/v1/content/{type_name}",
        params={"filter": f'{{"field": "id", "op": "eq", "value": "{entry_id}"}}', **view},
    )
    assert single.status_code in (200, 404), single.text
    seen = [
        single.status_code == 200,
        listed.status_code == 200 and entry_id in [e["id"] for e in listed.json()["items"]],
        addressed.status_code == 200 and addressed.json()["total"] == 1,
    ]
    assert len(set(seen)) == 1, seen
    if not seen[0]:
        assert_error(single, 404, "not_found")
    return seen[0]


def test_read_tokens_see_published_entries_only(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    draft = create(workspace.full, "note", {"text": "d"})
    live = publish(workspace.full, "note", create(workspace.full, "note", {"text": "p"})["id"])
    assert not readable(workspace.read, "note", draft["id"])
    assert readable(workspace.read, "note", live["id"])
    assert readable(workspace.full, "note", draft["id"])
    assert readable(workspace.full, "note", live["id"])
    workspace.full.post(f"/api/v1/content/note/{live['id']}/unpublish")
    assert not readable(workspace.read, "note", live["id"])


def test_signed_in_users_see_drafts(new_workspace: NewWorkspace, admin: httpx.Client) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    draft = create(workspace.full, "note", {"text": "d"})
    admin.headers["X-Workspace-Id"] = workspace.id
    assert readable(admin, "note", draft["id"])


def test_trashed_entries_are_seen_by_no_read(
    new_workspace: NewWorkspace, admin: httpx.Client
) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    entry = publish(workspace.full, "note", create(workspace.full, "note", {"text": "x"})["id"])
    assert workspace.full.delete(f"/api/v1/content/note/{entry['id']}").status_code == 204
    admin.headers["X-Workspace-Id"] = workspace.id
    for client in (workspace.read, workspace.full, admin):
        assert not readable(client, "note", entry["id"])
    assert workspace.full.get("/api/v1/content/note").json()["total"] == 0


def test_the_grant_set_hides_types_entirely(
    new_workspace: NewWorkspace, admin: httpx.Client, make_client: ClientFactory
) -> None:
    workspace = new_workspace()
    define(workspace.full, "secret", [{"name": "text", "type": "string"}])
    define(workspace.full, "public", [{"name": "text", "type": "string"}])
    entry = publish(workspace.full, "secret", create(workspace.full, "secret", {"text": "s"})["id"])
    narrow_read = token(
        admin, make_client, workspaceId=workspace.id, access="read", contentTypes=["public"]
    )
    narrow_full = token(
        admin, make_client, workspaceId=workspace.id, access="full", contentTypes=["public"]
    )
    for client in (narrow_read, narrow_full):
        unknown = client.get("/api/v1/content/nothing")
        hidden = client.get("/api/v1/content/secret")
        assert_error(hidden, 404)
        assert hidden.json()["error"]["message"] == unknown.json()["error"]["message"].replace(
            "nothing", "secret"
        )
        assert_error(client.get(f"/api/v1/content/secret/{entry['id']}"), 404)
        assert_error(client.get(f"/api/v1/content/secret/{entry['id']}/relations/x"), 404)
    assert_error(narrow_full.post("/api/v1/content/secret", json={"values": {"text": "x"}}), 404)
    assert_error(narrow_full.patch(f"/api/v1/content/secret/{entry['id']}", json={}), 404)
    assert_error(narrow_full.delete(f"/api/v1/content/secret/{entry['id']}"), 404)
    assert narrow_read.get("/api/v1/content/public").status_code == 200


def test_relations_to_ungranted_types_are_not_expandable(
    new_workspace: NewWorkspace, admin: httpx.Client, make_client: ClientFactory
) -> None:
    workspace = new_workspace()
    define(workspace.full, "author", [{"name": "name", "type": "string"}])
    define(
        workspace.full,
        "post",
        [
            {"name": "title", "type": "string"},
            relation("author", "author", "many-to-one"),
        ],
    )
    author = publish(
        workspace.full, "author", create(workspace.full, "author", {"name": "A"})["id"]
    )
    post = create(
        workspace.full, "post", {"title": "P"}, relations={"author": {"link": [author["id"]]}}
    )
    publish(workspace.full, "post", post["id"])
    posts_only = token(
        admin, make_client, workspaceId=workspace.id, access="full", contentTypes=["post"]
    )
    assert_error(posts_only.get("/api/v1/content/post", params={"expand": "author"}), 400)
    assert_error(posts_only.get(f"/api/v1/content/post/{post['id']}/relations/author"), 404)
    # Writing a link to an ungranted type is refused like an unknown field.
    assert_error(
        posts_only.post(
            "/api/v1/content/post", json={"relations": {"author": {"link": [author["id"]]}}}
        ),
        422,
    )


def test_entries_of_another_workspace_are_404_never_data(new_workspace: NewWorkspace) -> None:
    mine, theirs = new_workspace(), new_workspace()
    for workspace in (mine, theirs):
        define(workspace.full, "note", [{"name": "text", "type": "string"}])
    foreign = publish(theirs.full, "note", create(theirs.full, "note", {"text": "theirs"})["id"])
    for client in (mine.read, mine.full):
        assert not readable(client, "note", foreign["id"])
        assert_error(client.get(f"/api/v1/content/note/{foreign['id']}/relations/x"), 404)
    for method, suffix in (
        ("patch", ""),
        ("post", "/publish"),
        ("post", "/unpublish"),
        ("delete", ""),
        ("post", "/restore"),
        ("delete", "/purge"),
    ):
        kwargs = {"json": {"values": {"text": "stolen"}}} if method == "patch" else {}
        response = getattr(mine.full, method)(
            f"/api/v1/content/note/{foreign['id']}{suffix}", **kwargs
        )
        assert_error(response, 404)
    assert theirs.read.get(f"/api/v1/content/note/{foreign['id']}").json()["values"] == {
        "text": "theirs"
    }
    # Linking across workspaces is refused as an unknown target.
    define(
        mine.full,
        "ref",
        [relation("note", "note", "many-to-one")],
    )
    assert_error(
        mine.full.post(
            "/api/v1/content/ref", json={"relations": {"note": {"link": [foreign["id"]]}}}
        ),
        422,
    )
    # A token naming another workspace is refused outright.
    assert_error(mine.full.get("/api/v1/content/note", headers={"X-Workspace-Id": theirs.id}), 403)


@pytest.fixture
def gated(new_workspace: NewWorkspace) -> WorkspaceAccess:
    """A gated type whose read token holds the `members` audience."""
    workspace = new_workspace(read_audiences=("members",))
    define(workspace.full, "lesson", [{"name": "title", "type": "string"}], audienceGated=True)
    return workspace


def test_audiences_gate_tokens_read_and_full_alike(
    gated: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory
) -> None:
    members_full = token(
        admin,
        make_client,
        workspaceId=gated.id,
        access="full",
        audiences=["members", "staff"],
    )
    staff_only = token(admin, make_client, workspaceId=gated.id, access="full", audiences=["staff"])
    nobody = gated.full  # a full token without audiences
    members = create(members_full, "lesson", {"title": "M"}, audiences=["members"])
    assert members["audiences"] == ["members"]
    staff = create(members_full, "lesson", {"title": "S"}, audiences=["staff"])
    for entry in (members, staff):
        publish(members_full, "lesson", entry["id"])

    assert readable(gated.read, "lesson", members["id"])
    assert not readable(gated.read, "lesson", staff["id"])
    assert not readable(staff_only, "lesson", members["id"])
    assert readable(staff_only, "lesson", staff["id"])
    assert not readable(nobody, "lesson", members["id"])
    assert gated.read.get("/api/v1/content/lesson").json()["total"] == 1
    admin.headers["X-Workspace-Id"] = gated.id
    assert readable(admin, "lesson", members["id"])
    assert readable(admin, "lesson", staff["id"])

    # A token cannot write what it could not then see, nor touch what it cannot see.
    error = assert_error(
        staff_only.post("/api/v1/content/lesson", json={"values": {}, "audiences": ["members"]}),
        422,
    )
    assert error["details"][0]["location"] == "audiences"
    assert_error(staff_only.patch(f"/api/v1/content/lesson/{members['id']}", json={}), 404)
    assert_error(staff_only.delete(f"/api/v1/content/lesson/{members['id']}"), 404)
    # Changing the audiences moves the entry between readers once published: the live version
    # keeps the audiences it was published with until then.
    moved = members_full.patch(
        f"/api/v1/content/lesson/{staff['id']}", json={"audiences": ["members"]}
    )
    assert moved.status_code == 200, moved.text
    assert not readable(gated.read, "lesson", staff["id"])
    assert readable(staff_only, "lesson", staff["id"], version="published")
    publish(members_full, "lesson", staff["id"])
    assert readable(gated.read, "lesson", staff["id"])
    assert not readable(staff_only, "lesson", staff["id"])


def test_audiences_on_an_ungated_type_are_refused(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    assert_error(
        workspace.full.post("/api/v1/content/note", json={"values": {}, "audiences": ["a"]}), 422
    )
    entry = create(workspace.full, "note", {})
    assert "audiences" not in entry


def test_audience_gating_applies_to_expansion_and_the_relations_route(
    gated: WorkspaceAccess, admin: httpx.Client
) -> None:
    admin.headers["X-Workspace-Id"] = gated.id
    define(
        admin,
        "course",
        [
            {"name": "name", "type": "string"},
            relation("lessons", "lesson", "one-to-many"),
        ],
    )
    hidden = create(admin, "lesson", {"title": "staff"}, audiences=["staff"])
    shown = create(admin, "lesson", {"title": "members"}, audiences=["members"])
    for entry in (hidden, shown):
        publish(admin, "lesson", entry["id"])
    course = create(
        admin, "course", {"name": "C"}, relations={"lessons": {"link": [hidden["id"], shown["id"]]}}
    )
    publish(admin, "course", course["id"])
    expanded = gated.read.get(
        f"/api/v1/content/course/{course['id']}", params={"expand": "lessons"}
    )
    assert [e["id"] for e in expanded.json()["relations"]["lessons"]] == [shown["id"]]
    related = gated.read.get(f"/api/v1/content/course/{course['id']}/relations/lessons").json()
    assert related["total"] == 1
    assert [e["id"] for e in related["items"]] == [shown["id"]]
    assert (
        admin.get(f"/api/v1/content/course/{course['id']}/relations/lessons").json()["total"] == 2
    )


def test_content_routes_need_credentials_and_the_read_scope(
    new_workspace: NewWorkspace, make_client: ClientFactory, admin: httpx.Client
) -> None:
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    anonymous = make_client()
    assert_error(anonymous.get("/api/v1/content/note"), 401)
    assert_error(anonymous.post("/api/v1/content/note", json={}), 401)
    write_only = token(
        admin,
        make_client,
        workspaceId=workspace.id,
        access="full",
        scopes=["content:write"],
    )
    assert_error(write_only.get("/api/v1/content/note"), 403)
