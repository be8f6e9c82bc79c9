"""Helpers for the GraphQL tests: POST a document over real HTTP, read data and errors, and count
what the service did meanwhile."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from content_service.content import service
from content_service.graphql.cache import schemas

PATH = "/api/v1/graphql"
SERVICE_READS = ("list_entries", "get_entry", "list_related", "load_entries_by_ids")
SERVICE_WRITES = (
    "create_entry",
    "update_entry",
    "publish_entry",
    "unpublish_entry",
    "delete_entry",
)


def post(
    client: httpx.Client,
    query: str,
    variables: dict[str, Any] | None = None,
    operation_name: str | None = None,
) -> dict[str, Any]:
    """The response body of one POST; every GraphQL answer is HTTP 200 JSON."""
    body: dict[str, Any] = {"query": query}
    if variables is not None:
        body["variables"] = variables
    if operation_name is not None:
        body["operationName"] = operation_name
    response = client.post(PATH, json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    result: dict[str, Any] = response.json()
    assert set(result) <= {"data", "errors"}, result
    return result


def data(client: httpx.Client, query: str, variables: dict[str, Any] | None = None) -> Any:
    """`data` of a query that must succeed without errors."""
    result = post(client, query, variables)
    assert "errors" not in result, result
    return result["data"]


def errors(result: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = result.get("errors") or []
    assert found, result
    for error in found:
        assert isinstance(error["message"], str)
        assert error["message"]
        assert isinstance(error["extensions"]["status"], int)
        assert isinstance(error["extensions"]["code"], str)
    return found


def only_error(result: dict[str, Any], code: str, status: int) -> dict[str, Any]:
    """The one error of a refused request, with this code and status (and no `data`)."""
    found = errors(result)
    assert len(found) == 1, found
    error = found[0]
    assert error["extensions"]["code"] == code, error
    assert error["extensions"]["status"] == status, error
    return error


def codes(result: dict[str, Any]) -> set[str]:
    return {e["extensions"]["code"] for e in errors(result)}


class ServiceCalls:
    """Counts the content service's read and write calls made through `service.<name>`."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    @property
    def reads(self) -> list[str]:
        return [c for c in self.calls if c in SERVICE_READS]

    @property
    def writes(self) -> list[str]:
        return [c for c in self.calls if c in SERVICE_WRITES]


@contextmanager
def service_calls() -> Iterator[ServiceCalls]:
    """Spies on the service functions the resolvers call (the app runs in this process)."""
    spy = ServiceCalls()
    with pytest.MonkeyPatch.context() as patch:
        for name in (*SERVICE_READS, *SERVICE_WRITES, "require_type"):
            original = getattr(service, name)

            def wrapper(*args: Any, _name: str = name, _original: Any = original, **kw: Any) -> Any:
                spy.calls.append(_name)
                return _original(*args, **kw)

            patch.setattr(service, name, wrapper)
        yield spy


def clear_schema_cache() -> None:
    schemas.clear()
