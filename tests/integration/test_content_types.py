"""Content types through real HTTP: definitions, validation, changes, deletion, access."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from content_service.content import service
from infra.local_stack import LocalStack
from tests.support.clients import ClientFactory, WorkspaceAccess
from tests.support.content import (
    Storage,
    assert_error,
    create,
    define,
    shared_workspace,
)

NewWorkspace = Callable[..., WorkspaceAccess]

BLOG_POST = {
    "name": "blog_post",
    "kind": "collection",
    "localized": True,
    "audienceGated": False,
    "titleField": "title",
    "fields": [
        {"name": "title", "type": "string", "required": True},
        {"name": "body", "type": "richtext"},
        {"name": "author", "type": "relation", "target": "author", "cardinality": "many-to-one"},
    ],
}
AUTHOR = {"name": "author", "fields": [{"name": "name", "type": "string", "required": True}]}


@pytest.fixture
def workspace(new_workspace: NewWorkspace) -> WorkspaceAccess:
    return new_workspace()


@pytest.fixture(scope="module")
def untouched(base_url: str) -> Iterator[WorkspaceAccess]:
    """One workspace for the tests whose every write is refused."""
    with shared_workspace(base_url) as access:
        yield access


def test_create_read_list_a_type_with_the_contract_body(workspace: WorkspaceAccess) -> None:
    assert workspace.full.post("/api/v1/content-types", json=AUTHOR).status_code == 201
    response = workspace.full.post("/api/v1/content-types", json=BLOG_POST)
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["name"] == "blog_post"
    assert created["kind"] == "collection"
    assert created["localized"] is True
    assert created["titleField"] == "title"
    assert created["graphql"] == {
        "typeName": "BlogPost",
        "singleField": "blogPost",
        "listField": "blogPosts",
    }
    assert created["fields"][2] == {
        "name": "author",
        "type": "relation",
        "required": False,
        "target": "author",
        "cardinality": "many-to-one",
    }
    assert workspace.read.get("/api/v1/content-types/blog_post").json() == created
    listed = workspace.read.get("/api/v1/content-types").json()["items"]
    assert [t["name"] for t in listed] == ["author", "blog_post"]


def test_title_field_defaults_to_the_first_string_field(workspace: WorkspaceAccess) -> None:
    created = define(
        workspace.full,
        "note",
        [{"name": "count", "type": "integer"}, {"name": "heading", "type": "string"}],
    )
    assert created["titleField"] == "heading"
    assert (
        define(workspace.full, "counter", [{"name": "n", "type": "integer"}])["titleField"] is None
    )


@pytest.mark.parametrize(
    ("body", "location"),
    [
        ({"name": "BlogPost", "fields": []}, "name"),
        ({"name": "blog-post", "fields": []}, "name"),
        ({"name": "_blog", "fields": []}, "name"),
        ({"name": "a" * 65, "fields": []}, "name"),
        ({"name": "blog__post", "fields": []}, "name"),
        ({"name": "query", "fields": []}, "name"),
        ({"name": "t", "fields": [{"name": "id", "type": "string"}]}, "fields[0].name"),
        ({"name": "t", "fields": [{"name": "status", "type": "string"}]}, "fields[0].name"),
        ({"name": "t", "fields": [{"name": "_x", "type": "string"}]}, "fields[0].name"),
        ({"name": "t", "fields": [{"name": "localeGroupId", "type": "string"}]}, "fields[0].name"),
        ({"name": "t", "fields": [{"name": "Title", "type": "string"}]}, "fields[0].name"),
        (
            {
                "name": "t",
                "fields": [{"name": "a", "type": "string"}, {"name": "a", "type": "text"}],
            },
            "fields[1].name",
        ),
        ({"name": "t", "fields": [{"name": "e", "type": "enum"}]}, "fields[0].values"),
        (
            {"name": "t", "fields": [{"name": "e", "type": "enum", "values": ["a b"]}]},
            "fields[0].values",
        ),
        (
            {"name": "t", "fields": [{"name": "e", "type": "enum", "values": ["A", "A"]}]},
            "fields[0].values",
        ),
        (
            {"name": "t", "fields": [{"name": "e", "type": "string", "values": ["A"]}]},
            "fields[0].values",
        ),
        (
            {
                "name": "t",
                "fields": [{"name": "r", "type": "relation", "cardinality": "one-to-one"}],
            },
            "fields[0].target",
        ),
        (
            {"name": "t", "fields": [{"name": "r", "type": "relation", "target": "t"}]},
            "fields[0].cardinality",
        ),
        (
            {
                "name": "t",
                "fields": [
                    {"name": "r", "type": "relation", "target": "nope", "cardinality": "one-to-one"}
                ],
            },
            "fields[0].target",
        ),
        (
            {"name": "t", "fields": [{"name": "s", "type": "string", "target": "t"}]},
            "fields[0].target",
        ),
        (
            {"name": "t", "titleField": "n", "fields": [{"name": "n", "type": "integer"}]},
            "titleField",
        ),
        ({"name": "t", "titleField": "missing", "fields": []}, "titleField"),
    ],
)
def test_invalid_definitions_are_422_naming_the_problem(
    untouched: WorkspaceAccess, body: dict[str, Any], location: str
) -> None:
    workspace = untouched
    error = assert_error(workspace.full.post("/api/v1/content-types", json=body), 422)
    assert location in [d["location"].removeprefix("body.") for d in error["details"]], error
    assert workspace.full.get("/api/v1/content-types").json()["items"] == []


@pytest.mark.parametrize(
    "body",
    [
        {"name": "t", "fields": [{"name": "x", "type": "blob"}]},
        {"name": "t", "kind": "bag", "fields": []},
        {"name": "t", "localized": "yes", "fields": []},
        {"name": "t", "fields": [{"name": "x", "type": "string", "unknown": 1}]},
        {"name": "t", "extra": True, "fields": []},
        {"name": 5, "fields": []},
        {"name": "t", "fields": [{"name": f"f{i}", "type": "string"} for i in range(101)]},
    ],
)
def test_malformed_definitions_are_422(untouched: WorkspaceAccess, body: dict[str, Any]) -> None:
    assert_error(untouched.full.post("/api/v1/content-types", json=body), 422, "validation_failed")
    assert untouched.full.get("/api/v1/content-types").json()["items"] == []


def test_malformed_json_is_400(untouched: WorkspaceAccess) -> None:
    response = untouched.full.post(
        "/api/v1/content-types",
        content=b'{"name": "t", "fields": [',
        headers={"Content-Type": "application/json"},
    )
    assert_error(response, 400, "bad_request")


def test_derived_graphql_names_must_not_collide(workspace: WorkspaceAccess) -> None:
    define(workspace.full, "post", [])
    error = assert_error(
        workspace.full.post("/api/v1/content-types", json={"name": "posts", "fields": []}), 422
    )
    assert "collide" in error["details"][0]["problem"]
    assert "post" in error["details"][0]["problem"]
    define(workspace.full, "category", [])
    assert_error(
        workspace.full.post("/api/v1/content-types", json={"name": "categories", "fields": []}),
        422,
    )


def test_a_duplicate_name_is_409(workspace: WorkspaceAccess) -> None:
    define(workspace.full, "author", [])
    assert_error(workspace.full.post("/api/v1/content-types", json=AUTHOR), 409, "conflict")


def test_a_type_may_relate_to_itself(workspace: WorkspaceAccess) -> None:
    created = define(
        workspace.full,
        "page",
        [{"name": "parent", "type": "relation", "target": "page", "cardinality": "many-to-one"}],
    )
    assert created["fields"][0]["target"] == "page"


def test_put_adds_and_removes_fields_and_changes_required_enum_and_title(
    workspace: WorkspaceAccess,
) -> None:
    define(
        workspace.full,
        "product",
        [
            {"name": "name", "type": "string"},
            {"name": "size", "type": "enum", "values": ["S", "M"]},
            {"name": "legacy", "type": "text"},
        ],
    )
    response = workspace.full.put(
        "/api/v1/content-types/product",
        json={
            "name": "product",
            "titleField": "sku",
            "fields": [
                {"name": "name", "type": "string", "required": True},
                {"name": "size", "type": "enum", "values": ["S", "M", "L"]},
                {"name": "sku", "type": "string"},
            ],
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert [f["name"] for f in body["fields"]] == ["name", "size", "sku"]
    assert body["fields"][0]["required"] is True
    assert body["fields"][1]["values"] == ["S", "M", "L"]
    assert body["titleField"] == "sku"
    assert body["version"] == 2
    assert workspace.read.get("/api/v1/content-types/product").json() == body


@pytest.mark.parametrize(
    "changed",
    [
        {"name": "ref", "type": "string"},
        {"name": "ref", "type": "relation", "target": "product", "cardinality": "one-to-one"},
        {"name": "ref", "type": "relation", "target": "author", "cardinality": "many-to-many"},
    ],
)
def test_put_refuses_changing_a_fields_type_target_or_cardinality(
    workspace: WorkspaceAccess, changed: dict[str, Any]
) -> None:
    define(workspace.full, "author", [])
    define(
        workspace.full,
        "product",
        [{"name": "ref", "type": "relation", "target": "author", "cardinality": "one-to-one"}],
    )
    response = workspace.full.put(
        "/api/v1/content-types/product", json={"name": "product", "fields": [changed]}
    )
    error = assert_error(response, 409, "conflict")
    assert error["details"][0]["location"].startswith("fields[0].")
    assert workspace.full.get("/api/v1/content-types/product").json()["version"] == 1


def test_put_cannot_rename_and_needs_an_existing_type(workspace: WorkspaceAccess) -> None:
    define(workspace.full, "author", [])
    assert_error(
        workspace.full.put("/api/v1/content-types/author", json={"name": "writer", "fields": []}),
        422,
    )
    assert_error(
        workspace.full.put("/api/v1/content-types/nobody", json={"name": "nobody", "fields": []}),
        404,
    )


def test_shape_of_a_type_with_entries_cannot_change(workspace: WorkspaceAccess) -> None:
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    create(workspace.full, "note", {"text": "x"})
    for change in ({"localized": True}, {"kind": "single"}, {"audienceGated": True}):
        response = workspace.full.put(
            "/api/v1/content-types/note",
            json={"name": "note", "fields": [{"name": "text", "type": "string"}], **change},
        )
        assert_error(response, 409)


def test_delete_is_refused_while_another_type_relates_to_it(workspace: WorkspaceAccess) -> None:
    define(workspace.full, "author", [])
    define(
        workspace.full,
        "book",
        [{"name": "author", "type": "relation", "target": "author", "cardinality": "many-to-one"}],
    )
    error = assert_error(workspace.full.delete("/api/v1/content-types/author"), 409)
    assert "relation" in error["message"]
    assert error["details"] == {"relatedFrom": ["book"]}
    assert workspace.full.delete("/api/v1/content-types/book").status_code == 204
    assert workspace.full.delete("/api/v1/content-types/author").status_code == 204
    assert_error(workspace.full.get("/api/v1/content-types/author"), 404)


def test_delete_is_refused_while_the_type_has_entries_trashed_or_not(
    workspace: WorkspaceAccess,
) -> None:
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    entry = create(workspace.full, "note", {"text": "x"})
    assert_error(workspace.full.delete("/api/v1/content-types/note"), 409)
    assert workspace.full.delete(f"/api/v1/content/note/{entry['id']}").status_code == 204
    error = assert_error(workspace.full.delete("/api/v1/content-types/note"), 409)
    assert "purge" in error["message"]
    assert workspace.full.delete(f"/api/v1/content/note/{entry['id']}/purge").status_code == 204
    assert workspace.full.delete("/api/v1/content-types/note").status_code == 204


def test_every_type_change_bumps_the_workspace_schema_version(workspace: WorkspaceAccess) -> None:
    assert service.schema_version(workspace.id) == 0
    define(workspace.full, "author", [])
    assert service.schema_version(workspace.id) == 1
    workspace.full.put(
        "/api/v1/content-types/author",
        json={"name": "author", "fields": [{"name": "name", "type": "string"}]},
    )
    assert service.schema_version(workspace.id) == 2
    assert_error(workspace.full.post("/api/v1/content-types", json={"name": "Bad"}), 422)
    assert service.schema_version(workspace.id) == 2
    workspace.full.delete("/api/v1/content-types/author")
    assert service.schema_version(workspace.id) == 3
    schema = service.get_schema(workspace.id)
    assert schema.version == 3
    assert dict(schema.types) == {}


def test_writes_need_a_full_token_or_a_user(
    workspace: WorkspaceAccess, admin: httpx.Client
) -> None:
    assert_error(workspace.read.post("/api/v1/content-types", json=AUTHOR), 403)
    response = admin.post(
        "/api/v1/content-types", json=AUTHOR, headers={"X-Workspace-Id": workspace.id}
    )
    assert response.status_code == 201, response.text
    assert_error(workspace.read.delete("/api/v1/content-types/author"), 403)
    assert workspace.full.get("/api/v1/content-types/author").status_code == 200


def test_reads_and_writes_follow_the_grant_set(
    workspace: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory
) -> None:
    define(workspace.full, "author", [])
    define(workspace.full, "secret", [])
    created = admin.post(
        "/api/v1/tokens",
        json={
            "name": "authors only",
            "workspaceId": workspace.id,
            "access": "full",
            "contentTypes": ["author", "book"],
        },
    ).json()
    narrow = make_client(created["token"])
    assert [t["name"] for t in narrow.get("/api/v1/content-types").json()["items"]] == ["author"]
    assert_error(narrow.get("/api/v1/content-types/secret"), 404)
    assert_error(narrow.get("/api/v1/content-types/nothing"), 404)
    assert_error(narrow.put("/api/v1/content-types/secret", json={"name": "secret"}), 404)
    assert_error(narrow.delete("/api/v1/content-types/secret"), 404)
    assert_error(narrow.post("/api/v1/content-types", json={"name": "other"}), 403)
    # An ungranted relation target is as unknown as a missing one.
    response = narrow.post(
        "/api/v1/content-types",
        json={
            "name": "book",
            "fields": [
                {"name": "s", "type": "relation", "target": "secret", "cardinality": "one-to-one"}
            ],
        },
    )
    error = assert_error(response, 422)
    assert error["details"][0]["problem"] == "content type 'secret' not found"


def test_types_of_another_workspace_are_not_found(new_workspace: NewWorkspace) -> None:
    mine, theirs = new_workspace(), new_workspace()
    define(theirs.full, "author", [])
    assert_error(mine.full.get("/api/v1/content-types/author"), 404)
    assert mine.full.get("/api/v1/content-types").json()["items"] == []
    assert_error(mine.full.delete("/api/v1/content-types/author"), 404)


def test_type_routes_need_credentials(make_client: ClientFactory) -> None:
    assert_error(make_client().get("/api/v1/content-types"), 401)


def test_a_refused_type_write_stores_nothing(workspace: WorkspaceAccess, stack: LocalStack) -> None:
    storage = Storage(stack)
    with storage.unchanged(workspace.id):
        assert_error(
            workspace.full.post("/api/v1/content-types", json={"name": "x", "kind": "bag"}), 422
        )
    assert service.get_schema(workspace.id).types == {}
