"""GraphQL mutations through real HTTP: create, update (omitted vs null), publish, unpublish,
delete, read-back of relations and draft state, full tokens only, input refused like REST."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.support.clients import WorkspaceAccess
from tests.support.content import Storage, create, define
from tests.support.field_types import relation
from tests.support.graphql import data, errors, only_error, post, service_calls

NewWorkspace = Callable[..., WorkspaceAccess]

CREATE = """mutation ($input: ArticleCreateInput!) {
  createArticle(input: $input) { id status locale title views color meta
                                 author { id name } tags { id name } } }"""
UPDATE = """mutation ($id: ID!, $input: ArticleUpdateInput!) {
  updateArticle(id: $id, input: $input) { id status title views color meta
                                          author { name } tags { name } } }"""


@pytest.fixture
def site(new_workspace: NewWorkspace) -> WorkspaceAccess:
    workspace = new_workspace()
    define(workspace.full, "writer", [{"name": "name", "type": "string"}])
    define(workspace.full, "label", [{"name": "name", "type": "string"}])
    define(
        workspace.full,
        "article",
        [
            {"name": "title", "type": "string", "required": True},
            {"name": "views", "type": "integer"},
            {"name": "color", "type": "enum", "values": ["red", "green"]},
            {"name": "meta", "type": "json"},
            relation("author", "writer", "many-to-one"),
            relation("tags", "label", "many-to-many"),
        ],
    )
    return workspace


def test_create_returns_the_draft_read_back_with_its_relations(site: WorkspaceAccess) -> None:
    writer = create(site.full, "writer", {"name": "Wen"})
    labels = [create(site.full, "label", {"name": n}) for n in ("x", "y")]
    created = data(
        site.full,
        CREATE,
        {
            "input": {
                "values": {"title": "Hi", "views": 2**50, "color": "red", "meta": {"a": [1]}},
                "relations": {
                    "author": {"link": [writer["id"]]},
                    "tags": {"link": [labels[1]["id"], labels[0]["id"]]},
                },
            }
        },
    )["createArticle"]
    assert created["status"] == "DRAFT"
    assert created["locale"] == "en"
    assert created["title"] == "Hi"
    assert created["views"] == 2**50
    assert created["color"] == "red"
    assert created["meta"] == {"a": [1]}
    assert created["author"] == {"id": writer["id"], "name": "Wen"}
    assert [t["name"] for t in created["tags"]] == ["y", "x"]
    rest = site.full.get(
        f"/api/v1/content/article/{created['id']}", params={"expand": "author,tags"}
    ).json()
    assert rest["status"] == "draft"
    assert rest["values"] == {"title": "Hi", "views": 2**50, "color": "red", "meta": {"a": [1]}}
    assert [t["id"] for t in rest["relations"]["tags"]] == [labels[1]["id"], labels[0]["id"]]


def test_update_leaves_omitted_fields_and_clears_explicit_nulls(site: WorkspaceAccess) -> None:
    labels = [create(site.full, "label", {"name": n}) for n in ("x", "y")]
    created = data(
        site.full,
        CREATE,
        {
            "input": {
                "values": {"title": "T", "views": 5, "color": "green", "meta": [1]},
                "relations": {"tags": {"link": [labels[0]["id"]]}},
            }
        },
    )["createArticle"]
    # views omitted (unchanged), color null (cleared), meta changed; tags linked and unlinked.
    updated = data(
        site.full,
        UPDATE,
        {
            "id": created["id"],
            "input": {
                "values": {"color": None, "meta": {"b": True}},
                "relations": {"tags": {"link": [labels[1]["id"]], "unlink": [labels[0]["id"]]}},
            },
        },
    )["updateArticle"]
    assert updated["views"] == 5
    assert updated["title"] == "T"
    assert updated["color"] is None
    assert updated["meta"] == {"b": True}
    assert [t["name"] for t in updated["tags"]] == ["y"]
    # The same through literals: an omitted input field is never materialised.
    document = (
        "mutation { updateArticle(id: ID, input: {values: {views: null}}) { views color meta } }"
    )
    literal = data(site.full, document.replace("ID", f'"{created["id"]}"'))["updateArticle"]
    assert literal == {"views": None, "color": None, "meta": {"b": True}}
    stored = site.full.get(f"/api/v1/content/article/{created['id']}").json()["values"]
    assert stored == {"title": "T", "views": None, "color": None, "meta": {"b": True}}


def test_publish_unpublish_and_delete(site: WorkspaceAccess) -> None:
    entry = create(site.full, "article", {"title": "P"})
    query = "mutation ($id: ID!) { %s(id: $id) { id status publishedAt } }"
    published = data(site.full, query % "publishArticle", {"id": entry["id"]})["publishArticle"]
    assert published["status"] == "PUBLISHED"
    assert published["publishedAt"]
    assert data(site.read, "query ($id: ID!) { article(id: $id) { id } }", {"id": entry["id"]})
    draft = data(site.full, query % "unpublishArticle", {"id": entry["id"]})["unpublishArticle"]
    assert draft["status"] == "DRAFT"
    deleted = data(site.full, "mutation ($id: ID!) { deleteArticle(id: $id) }", {"id": entry["id"]})
    assert deleted == {"deleteArticle": True}
    assert site.full.get(f"/api/v1/content/article/{entry['id']}").status_code == 404
    again = post(site.full, "mutation ($id: ID!) { deleteArticle(id: $id) }", {"id": entry["id"]})
    only_error(again, "CONFLICT", 409)  # as REST answers a second delete
    assert site.full.delete(f"/api/v1/content/article/{entry['id']}").status_code == 409
    assert again["data"] == {"deleteArticle": None}  # nullable: the error nulls the field alone


def test_a_read_token_cannot_write_and_nothing_is_written(
    site: WorkspaceAccess, storage: Storage
) -> None:
    entry = create(site.full, "article", {"title": "keep"})
    mutations = [
        (CREATE, {"input": {"values": {"title": "no"}}}),
        (UPDATE, {"id": entry["id"], "input": {"values": {"title": "no"}}}),
        ("mutation ($id: ID!) { publishArticle(id: $id) { id } }", {"id": entry["id"]}),
        ("mutation ($id: ID!) { unpublishArticle(id: $id) { id } }", {"id": entry["id"]}),
        ("mutation ($id: ID!) { deleteArticle(id: $id) }", {"id": entry["id"]}),
    ]
    with storage.unchanged(site.id):
        for query, variables in mutations:
            result = post(site.read, query, variables)
            (error,) = errors(result)
            assert error["extensions"] == {"status": 403, "code": "FORBIDDEN"}, error
    assert site.full.get(f"/api/v1/content/article/{entry['id']}").json()["values"] == {
        "title": "keep",
        "views": None,
        "color": None,
        "meta": None,
    }


def test_input_is_refused_as_rest_refuses_it(site: WorkspaceAccess, storage: Storage) -> None:
    with storage.unchanged(site.id):
        # A required value missing: the service's 422 with details, as REST answers.
        missing = post(site.full, CREATE, {"input": {"values": {"views": 1}}})
        error = only_error(missing, "BAD_USER_INPUT", 422)
        assert any(d["location"] == "values.title" for d in error["extensions"]["details"])
        # More than 100 ids to link: REST's body limit, the same 422.
        many = [f"00000000-0000-4000-8000-{i:012d}" for i in range(101)]
        too_many = post(
            site.full,
            CREATE,
            {"input": {"values": {"title": "x"}, "relations": {"tags": {"link": many}}}},
        )
        only_error(too_many, "BAD_USER_INPUT", 422)
        # Unknown target ids are the service's refusal too.
        unknown = post(
            site.full,
            CREATE,
            {"input": {"values": {"title": "x"}, "relations": {"tags": {"link": [many[0]]}}}},
        )
        assert errors(unknown)[0]["extensions"]["status"] in (404, 409, 422)
        # A value of the wrong type never reaches a resolver: the variable does not coerce.
        with service_calls() as calls:
            typed = post(site.full, CREATE, {"input": {"values": {"title": "x", "views": "5"}}})
            beyond = post(site.full, CREATE, {"input": {"values": {"title": "x", "views": 2**63}}})
            unknown_field = post(site.full, CREATE, {"input": {"values": {"nope": 1}}})
            bad_enum = post(site.full, CREATE, {"input": {"values": {"title": "x", "color": "x"}}})
        assert calls.calls == []
        for result in (typed, beyond, unknown_field, bad_enum):
            assert "data" not in result
            assert {e["extensions"]["code"] for e in errors(result)} == {"BAD_USER_INPUT"}
            assert {e["extensions"]["status"] for e in errors(result)} == {400}


def test_mutations_serialise_and_read_their_own_writes(site: WorkspaceAccess) -> None:
    result = data(
        site.full,
        """mutation {
          a: createArticle(input: {values: {title: "one"}}) { id title status }
          b: createArticle(input: {values: {title: "two"}}) { id title status }
        }""",
    )
    assert result["a"]["title"] == "one"
    assert result["b"]["title"] == "two"
    listing = data(site.full, '{ articles(sort: "title") { total items { id } } }')
    assert listing["articles"]["total"] == 2
    assert [e["id"] for e in listing["articles"]["items"]] == [result["a"]["id"], result["b"]["id"]]


def test_a_signed_in_user_writes_with_the_session_cookie(
    site: WorkspaceAccess, admin: httpx.Client
) -> None:
    admin.headers["X-Workspace-Id"] = site.id
    created = data(admin, CREATE, {"input": {"values": {"title": "by admin"}}})["createArticle"]
    assert created["status"] == "DRAFT"
    assert data(site.full, "{ articles { items { title } } }")["articles"]["items"] == [
        {"title": "by admin"}
    ]


def test_a_mutation_on_a_type_not_granted_is_a_validation_error(
    site: WorkspaceAccess, admin: httpx.Client, make_client: Any, storage: Storage
) -> None:
    response = admin.post(
        "/api/v1/tokens",
        json={"name": "w", "workspaceId": site.id, "access": "full", "contentTypes": ["label"]},
    )
    assert response.status_code == 201, response.text
    limited = make_client(response.json()["token"])
    with storage.unchanged(site.id), service_calls() as calls:
        result = post(limited, CREATE, {"input": {"values": {"title": "x"}}})
    assert calls.calls == []
    assert {e["extensions"]["code"] for e in errors(result)} == {"GRAPHQL_VALIDATION_FAILED"}


def test_a_full_token_without_content_write_cannot_write(
    site: WorkspaceAccess, admin: httpx.Client, make_client: Any, storage: Storage
) -> None:
    response = admin.post(
        "/api/v1/tokens",
        json={"name": "r", "workspaceId": site.id, "access": "full", "scopes": ["content:read"]},
    )
    assert response.status_code == 201, response.text
    no_write = make_client(response.json()["token"])
    with storage.unchanged(site.id):
        result = post(no_write, CREATE, {"input": {"values": {"title": "x"}}})
    only_error(result, "FORBIDDEN", 403)
    assert data(no_write, "{ articles { total } }") == {"articles": {"total": 0}}
