"""The CloudFront purge against the emulator's CloudFront (moto): each kind of change becomes
one invalidation of the path patterns that cover the answers it may alter (docs/api.md, "Purge
on publish"), with the types relating to the changed one read from the workspace's schema."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from content_service import runtime
from content_service.content import service
from content_service.edge.changes import EdgeChange
from content_service.edge.cloudfront import CloudFrontPurger
from content_service.storage import aws
from infra.local_stack import LocalStack
from infra.provisioning import new_distribution
from tests.support.clients import WorkspaceAccess
from tests.support.content import define


@pytest.fixture(scope="module")
def distribution(stack: LocalStack) -> str:
    client = aws.cloudfront(runtime.settings())
    return new_distribution(client, f"edge purge tests {uuid.uuid4()}")


def invalidated(distribution_id: str) -> list[list[str]]:
    """Every invalidation's paths, oldest first."""
    client = aws.cloudfront(runtime.settings())
    listed = client.list_invalidations(DistributionId=distribution_id)["InvalidationList"]
    ids = [i["Id"] for i in listed.get("Items", [])]
    found = [
        client.get_invalidation(DistributionId=distribution_id, Id=i)["Invalidation"] for i in ids
    ]
    found.sort(key=lambda i: i["CreateTime"])
    return [sorted(i["InvalidationBatch"]["Paths"].get("Items", [])) for i in found]


@pytest.fixture
def blog(new_workspace: Any) -> WorkspaceAccess:
    workspace: WorkspaceAccess = new_workspace()
    define(workspace.full, "author", [{"name": "name", "type": "string"}])
    relation = {
        "name": "author",
        "type": "relation",
        "target": "author",
        "cardinality": "many-to-one",
    }
    hero = {"name": "hero", "type": "asset", "cardinality": "one"}
    define(workspace.full, "post", [{"name": "title", "type": "string"}, relation, hero])
    define(workspace.full, "page", [{"name": "title", "type": "string"}])
    return workspace


def purge(distribution_id: str, *changes: EdgeChange) -> list[str]:
    purger = CloudFrontPurger(
        distribution_id, aws.cloudfront(runtime.settings()), service.types_relating_to
    )
    before = len(invalidated(distribution_id))
    purger.purge(changes)
    after = invalidated(distribution_id)
    assert len(after) == before + 1
    return after[-1]


def test_an_entry_s_change_invalidates_its_type_the_types_relating_to_it_and_graphql(
    distribution: str, blog: WorkspaceAccess
) -> None:
    author = EdgeChange("entry", blog.id, content_type="author", entry_id="a1", event_id="e1")
    assert purge(distribution, author) == [
        "/api/v1/content/author*",
        "/api/v1/content/post*",
        "/api/v1/graphql*",
    ]
    page = EdgeChange("entry", blog.id, content_type="page", entry_id="p1", event_id="e2")
    assert purge(distribution, page) == ["/api/v1/content/page*", "/api/v1/graphql*"]


def test_an_asset_s_change_also_invalidates_its_files(
    distribution: str, blog: WorkspaceAccess
) -> None:
    asset = EdgeChange("entry", blog.id, content_type="asset", entry_id="x9", event_id="e3")
    assert purge(distribution, asset) == [
        "/api/v1/content/asset*",
        "/api/v1/content/post*",
        "/api/v1/graphql*",
        f"/files/{blog.id}/x9/*",
    ]


def test_a_batch_is_one_invalidation_and_a_token_change_covers_the_whole_api(
    distribution: str, blog: WorkspaceAccess
) -> None:
    changes = [
        EdgeChange("entry", blog.id, content_type="page", entry_id="p1", event_id="e4"),
        EdgeChange("workspace", blog.id, event_id="e5"),
    ]
    assert purge(distribution, *changes) == ["/api/v1/content/*", "/api/v1/graphql*"]
    token = EdgeChange("token", blog.id, token_id="t1", event_id="e6")
    assert purge(distribution, *changes, token) == ["/api/v1/*"]
