"""Asset changes reach webhook endpoints as entry events of the type `asset` (docs/webhooks.md,
"Assets"): an endpoint without content types takes them, one listing `asset` takes them, one
listing only its own types does not."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from content_service.webhooks.endpoints import Endpoint
from harness.receiver import Receiver
from harness.webhooks import store_endpoint
from infra.local_stack import LocalStack
from tests.support.assets import new_asset, png
from tests.support.clients import WorkspaceAccess
from tests.support.webhooks import drain, purge_endpoint, rows_for_endpoint

pytestmark = pytest.mark.usefixtures("stack", "local_receivers_allowed")


@pytest.fixture
def ws(new_workspace: Callable[..., WorkspaceAccess]) -> WorkspaceAccess:
    return new_workspace()


@pytest.fixture
def endpoints(
    stack: LocalStack, receiver: Receiver, ws: WorkspaceAccess
) -> Iterator[dict[str, Endpoint]]:
    drain(stack)
    made = {
        "every type": store_endpoint(receiver.url(), workspaces=(ws.id,)),
        "assets": store_endpoint(receiver.url(), workspaces=(ws.id,), content_types=("asset",)),
        "posts": store_endpoint(receiver.url(), workspaces=(ws.id,), content_types=("post",)),
    }
    yield made
    for endpoint in made.values():
        purge_endpoint(endpoint.id)


def test_an_endpoint_takes_asset_events_unless_it_lists_only_other_types(
    stack: LocalStack, ws: WorkspaceAccess, endpoints: dict[str, Endpoint], receiver: Receiver
) -> None:
    asset = new_asset(ws.full, png(), "a.png", "image/png", title="A")
    published = ws.full.post(f"/api/v1/assets/{asset['id']}/publish")
    assert published.status_code == 200, published.text
    drain(stack)
    kinds = {name: len(rows_for_endpoint(e.id)) for name, e in endpoints.items()}
    assert kinds == {"every type": 2, "assets": 2, "posts": 0}
    bodies = [r.body for r in receiver.requests if asset["id"].encode() in r.body]
    assert len(bodies) == 4
    assert all(b'"contentType":"asset"' in b.replace(b" ", b"") for b in bodies)
