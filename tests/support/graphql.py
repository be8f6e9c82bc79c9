"""Helpers for the GraphQL tests: POST a document over real HTTP, read data and errors, and count
what the service did meanwhile."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from content_service.content import service
from content_service.graphql.cache import schemas
from harness.seeding import seed_published
from tests.support.clients import WorkspaceAccess
from tests.support.content import create, define, publish
from tests.support.field_types import every_field_type, relation

PATH = "/api/v1/graphql"
SERVICE_READS = ("list_entries", "get_entry", "list_related", "load_entries_by_ids")
SERVICE_WRITES = (
    "create_entry",
    "update_entry",
    "publish_entry",
    "unpublish_entry",
    "delete_entry",
)


def nested_parents(depth: int, root: str = "nodes") -> str:
    """A document of exactly `depth` levels: `root` > items > parent ... > name."""
    inner = "name"
    for _ in range(depth - 3):
        inner = f"parent {{ {inner} }}"
    return "{ " + root + "(pageSize: 1) { items { " + inner + " } } }"


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
    assert set(result) <= {"data", "errors", "extensions"}, result
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


# ---------------------------------------------------------------------------------------------
# A small blog shared by the read tests (built over REST, read over both protocols)


POST_FIELDS = every_field_type(
    float="score",
    boolean="hot",
    datetime="at",
    text=None,
    enum="color",
    enum_values=("red", "green", "blue"),
    relations=(
        relation("author", "author", "many-to-one"),
        relation("tags", "tag", "many-to-many"),
        relation("related", "post", "many-to-many"),
    ),
)
RICH = "<p>" + "rich text " * 200 + "</p>"


@dataclass
class Blog:
    """Authors, tags, posts (en and de) and a single type, made through REST."""

    access: WorkspaceAccess
    authors: dict[str, dict[str, Any]]
    tags: dict[str, dict[str, Any]]
    posts: dict[str, dict[str, Any]]
    settings: dict[str, dict[str, Any]]


def build_blog(access: WorkspaceAccess) -> Blog:
    client = access.full
    define(client, "author", [{"name": "name", "type": "string"}, {"name": "bio", "type": "text"}])
    define(client, "tag", [{"name": "name", "type": "string"}])
    define(client, "post", POST_FIELDS, localized=True)
    define(
        client,
        "site_settings",
        [{"name": "site_name", "type": "string"}, {"name": "footer", "type": "richtext"}],
        kind="single",
        localized=True,
    )
    authors = {
        "ann": publish(
            client, "author", create(client, "author", {"name": "Ann", "bio": "b"})["id"]
        ),
        "bob": publish(client, "author", create(client, "author", {"name": "Bob"})["id"]),
        "cyd": create(client, "author", {"name": "Cyd (draft)"}),
    }
    tags = {
        name: publish(client, "tag", create(client, "tag", {"name": name})["id"])
        for name in ("t1", "t2", "t3")
    }
    tags["t4"] = create(client, "tag", {"name": "t4 (draft)"})

    def post(values: dict[str, Any], published: bool = True, **links: list[str]) -> dict[str, Any]:
        body_links = {name: {"link": ids} for name, ids in links.items()}
        locale = values.pop("locale", None)
        group = values.pop("localeGroupId", None)
        extra: dict[str, Any] = {"relations": body_links}
        if locale:
            extra["locale"] = locale
        if group:
            extra["localeGroupId"] = group
        made = create(client, "post", values, **extra)
        return publish(client, "post", made["id"]) if published else made

    t = {name: tag["id"] for name, tag in tags.items()}
    a = {name: author["id"] for name, author in authors.items()}
    posts: dict[str, dict[str, Any]] = {}
    posts["alpha"] = post(
        {
            "title": "alpha",
            "body": RICH,
            "views": 3,
            "score": 1.5,
            "hot": True,
            "day": "2024-01-01",
            "at": "2024-01-01T10:00:00Z",
            "color": "red",
            "meta": {"k": [1, 2], "n": None},
        },
        author=[a["ann"]],
        tags=[t["t3"], t["t1"]],
    )
    posts["beta"] = post(
        {"title": "beta", "views": 1, "score": 2.5, "hot": False, "color": "green"},
        author=[a["bob"]],
        tags=[t["t2"]],
    )
    posts["gamma"] = post(
        {"title": "gamma", "views": 2, "body": RICH, "color": "blue"},
        author=[a["cyd"]],
        tags=[t["t4"], t["t1"], t["t2"], t["t3"]],
        related=[posts["alpha"]["id"], posts["beta"]["id"]],
    )
    posts["delta"] = post({"title": "delta"}, published=False, author=[a["ann"]])
    posts["epsilon"] = post({"title": "epsilon", "views": 2**40, "hot": True}, tags=[t["t4"]])
    posts["alpha_de"] = post(
        {"title": "alpha (de)", "locale": "de", "localeGroupId": posts["alpha"]["id"]},
        author=[a["bob"]],
    )
    settings = {
        "en": publish(
            client,
            "site_settings",
            create(client, "site_settings", {"site_name": "Site", "footer": RICH})["id"],
        ),
        "de": create(client, "site_settings", {"site_name": "Seite"}, locale="de"),
    }
    return Blog(access, authors, tags, posts, settings)


seed = seed_published
