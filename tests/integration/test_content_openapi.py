"""The REST content routes in `/api/v1/openapi.json`, with schemas and the error shape (which
every other operation documents too)."""

from __future__ import annotations

from typing import Any

import pytest

from content_service.content.lists import FILTER_OPS
from tests.support.clients import ClientFactory

ROUTES = {
    ("/api/v1/content-types", "get"): {"200", "401", "403"},
    ("/api/v1/content-types", "post"): {"201", "400", "401", "403", "409", "413", "422"},
    ("/api/v1/content-types/{name}", "get"): {"200", "401", "403", "404"},
    ("/api/v1/content-types/{name}", "put"): {"200", "400", "401", "403", "404", "409", "422"},
    ("/api/v1/content-types/{name}", "delete"): {"204", "401", "403", "404", "409"},
    ("/api/v1/content/{content_type}", "get"): {"200", "400", "401", "403", "404"},
    ("/api/v1/content/{content_type}", "post"): {"201", "400", "401", "403", "404", "409", "422"},
    ("/api/v1/content/{content_type}/{entry_id}", "get"): {"200", "400", "401", "404"},
    ("/api/v1/content/{content_type}/{entry_id}", "patch"): {"200", "400", "404", "409", "422"},
    ("/api/v1/content/{content_type}/{entry_id}", "delete"): {"204", "401", "403", "404", "409"},
    ("/api/v1/content/{content_type}/{entry_id}/publish", "post"): {"200", "404", "409"},
    ("/api/v1/content/{content_type}/{entry_id}/unpublish", "post"): {"200", "404", "409"},
    ("/api/v1/content/{content_type}/{entry_id}/restore", "post"): {"200", "404", "409"},
    ("/api/v1/content/{content_type}/{entry_id}/purge", "delete"): {"204", "404", "409"},
    ("/api/v1/content/{content_type}/{entry_id}/relations/{field}", "get"): {
        "200",
        "400",
        "404",
    },
    ("/api/v1/content/{content_type}/{entry_id}/links", "get"): {"200", "400", "401", "404"},
    ("/api/v1/sync", "get"): {"200", "400", "401", "403", "404", "410"},
}


@pytest.fixture(scope="module")
def document(base_url: str) -> dict[str, Any]:
    import httpx

    with httpx.Client(base_url=base_url) as client:
        response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize(("path", "method"), sorted(ROUTES))
def test_every_content_route_is_documented_with_its_errors(
    document: dict[str, Any], path: str, method: str
) -> None:
    operation = document["paths"][path][method]
    documented = set(operation["responses"])
    assert ROUTES[(path, method)] <= documented, documented
    for status, response in operation["responses"].items():
        if status.startswith("4"):
            schema = response["content"]["application/json"]["schema"]
            assert schema["$ref"].endswith("/ErrorResponse"), (status, schema)


def test_bodies_and_results_have_schemas(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    write = schemas["EntryWriteBody"]
    assert write["additionalProperties"] is False
    assert set(write["properties"]) == {
        "values",
        "relations",
        "locale",
        "localeGroupId",
        "audiences",
        "version",
    }
    entry = schemas["EntryOut"]
    assert {"id", "contentType", "status"} <= set(entry["required"])
    # `values` is left out of a write's answer to a token without content:read (D116).
    assert "values" in entry["properties"]
    assert "values" not in entry["required"]
    assert set(schemas["EntryList"]["required"]) == {"items", "total", "page", "pageSize"}
    assert set(schemas["ErrorResponse"]["required"]) == {"error"}
    listing = document["paths"]["/api/v1/content/{content_type}"]["get"]
    parameters = {p["name"]: p for p in listing["parameters"]}
    assert {"page", "pageSize", "sort", "filter", "fields", "locale", "expand"} <= set(parameters)
    described = parameters["filter"]["description"]
    assert set(FILTER_OPS) <= set(described.replace(";", " ").split()), described
    assert "relation.field" in described

    assert parameters["pageSize"]["schema"]["maximum"] == 100
    assert parameters["pageSize"]["schema"]["minimum"] == 1
    post = document["paths"]["/api/v1/content/{content_type}"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/EntryWriteBody"
    )


def test_the_document_needs_no_credentials(make_client: ClientFactory) -> None:
    assert make_client().get("/api/v1/openapi.json").status_code == 200


def test_every_operation_documents_its_refusals_in_the_error_shape(
    document: dict[str, Any],
) -> None:
    # Any route (or the middleware in front of it) may refuse; none answers FastAPI's own 422.
    assert "HTTPValidationError" not in document["components"]["schemas"]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            refusals = operation["responses"]["4XX"]["content"]["application/json"]["schema"]
            assert refusals["$ref"].endswith("/ErrorResponse"), (method, path)
    for path in ("/api/v1/tokens", "/api/webhooks", "/api/v1/graphql"):
        assert {"401", "403"} <= set(document["paths"][path]["get"]["responses"]), path


def test_the_links_route_shows_its_shape_and_the_trash_its_force(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert set(schemas["LinkerList"]["required"]) == {"items", "total", "page", "pageSize"}
    assert set(schemas["LinkerOut"]["required"]) == {
        "id",
        "contentType",
        "field",
        "title",
        "status",
        "updatedAt",
    }
    paths = document["paths"]
    links = paths["/api/v1/content/{content_type}/{entry_id}/links"]["get"]
    answer = links["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer["$ref"].endswith("/LinkerList")
    assert {"from", "field", "page", "pageSize", "version"} <= {
        p["name"] for p in links["parameters"]
    }
    trash = paths["/api/v1/content/{content_type}/{entry_id}"]["delete"]
    assert "force" in {p["name"] for p in trash["parameters"]}
