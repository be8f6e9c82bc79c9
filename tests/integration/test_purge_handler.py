"""The purge function fed the sample under events/ (a stream batch of three outbox events: a
draft's update, a publish, an asset's unpublish), with a real Varnish edge in front of the
local stack (`harness.varnish_edge`) as its `EDGE_PURGE_URL`.

The batch is purged in one request naming the tags of the two visible changes and nothing of
the draft's; a cached answer those tags cover is fetched anew afterwards. An edge that does not
answer fails the batch from its first change, so the stream retries it; without a purge URL
nothing is sent.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from content_service.content.cache_tags import change_tags, token_tag
from harness.ports import free_port
from harness.varnish_edge import VarnishEdge
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.content import create, define, publish
from tests.support.settings import settings_changed
from tests.support.webhooks import function_runtime

EVENTS = Path(__file__).resolve().parents[2] / "events"
SAMPLE = "purge-stream-batch.json"


def sample() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((EVENTS / SAMPLE).read_text(encoding="utf-8"))
    return loaded


def purging_to(url: str) -> Any:
    return settings_changed(lambda s: dataclasses.replace(s, edge_purge_url=url))


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory, base_url: str) -> Iterator[VarnishEdge]:
    with VarnishEdge(tmp_path_factory.mktemp("varnish"), base_url) as running:
        yield running


def _images(event: dict[str, Any]) -> list[dict[str, Any]]:
    return [record["dynamodb"]["NewImage"] for record in event["Records"]]


def test_the_sample_batch_is_purged_in_one_request_of_its_visible_changes_tags(
    stack: LocalStack, edge: VarnishEdge, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    define(workspace.full, "blog_post", [{"name": "title", "type": "string"}])
    post = create(workspace.full, "blog_post", {"title": "Hello, edge"})
    publish(workspace.full, "blog_post", post["id"])
    event = sample()
    for image in _images(event):
        image["workspaceId"]["S"] = workspace.id
    _images(event)[0]["data"]["M"]["id"]["S"] = post["id"]
    _images(event)[1]["data"]["M"]["id"]["S"] = post["id"]
    asset_id = _images(event)[2]["data"]["M"]["id"]["S"]
    url = f"/api/v1/content/blog_post/{post['id']}"
    reader = httpx.Client(
        base_url=edge.url, headers={"Authorization": f"Bearer {workspace.read_token}"}, timeout=30
    )
    with reader:
        assert reader.get(url).headers["x-cache"] == "MISS"
        assert reader.get(url).headers["x-cache"] == "HIT"
        before = len(edge.purges())
        with purging_to(edge.purge_url):
            response = function_runtime(stack, "PurgeFunction").invoke(copy.deepcopy(event))
        assert response == {"batchItemFailures": []}
        (purge,) = edge.purges()[before:]
        expected = change_tags(workspace.id, "blog_post", post["id"])
        expected += change_tags(workspace.id, "asset", asset_id)
        expected.append(token_tag(_images(event)[3]["data"]["M"]["id"]["S"]))
        assert sorted(purge.tags) == sorted(expected)
        assert purge.purged >= 1
        assert reader.get(url).headers["x-cache"] == "MISS"


def test_an_edge_that_does_not_answer_fails_the_batch_from_its_first_change(
    stack: LocalStack,
) -> None:
    event = sample()
    with purging_to(f"http://127.0.0.1:{free_port()}/"):
        response = function_runtime(stack, "PurgeFunction").invoke(event)
    first_change = event["Records"][1]["dynamodb"]["SequenceNumber"]
    assert response == {"batchItemFailures": [{"itemIdentifier": first_change}]}


def test_without_a_purge_url_the_batch_is_read_and_nothing_is_sent(
    stack: LocalStack, edge: VarnishEdge
) -> None:
    before = len(edge.purges())
    with purging_to(""):
        response = function_runtime(stack, "PurgeFunction").invoke(sample())
    assert response == {"batchItemFailures": []}
    assert edge.purges()[before:] == []
