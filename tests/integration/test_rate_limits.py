"""Per-token request rates: over its rate a token gets 429 with Retry-After and RateLimit-* over
REST, and HTTP 200 with one error whose `extensions.status` is 429 (and the same headers) over
GraphQL, while another token in the same second is answered; 304s count; the rate is set per
token at creation and by PATCH, with CONTENT_RATE_LIMIT as the default; and the count is
shared by API processes, since it lives in DynamoDB.

The limiter's clock is pinned (a fresh second per test), so a burst never straddles two
windows on a slow machine.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import httpx
import pytest

from content_service.identity.rate_limits import limiter
from infra.local_stack import LocalStack
from tests.support.api_process import api_process
from tests.support.clients import ClientFactory, WorkspaceAccess, new_read_token
from tests.support.content import capture
from tests.support.graphql import PATH, only_error
from tests.support.settings import delivery_options

_seconds = itertools.count(int(time.time()) + 10_000)


@pytest.fixture
def pinned_clock() -> Iterator[float]:
    """A second no other test uses, as the limiter's clock."""
    second = next(_seconds) + 0.25
    before = limiter.clock
    limiter.clock = lambda: second
    yield second
    limiter.clock = before


def rate_headers(response: httpx.Response) -> dict[str, str]:
    return {
        name: response.headers[name]
        for name in ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after")
        if name in response.headers
    }


@pytest.mark.usefixtures("pinned_clock")
def test_over_its_rate_a_token_gets_429_over_rest_while_another_token_is_answered(
    post_site: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory
) -> None:
    made, limited = new_read_token(admin, make_client, post_site, rateLimit=3)
    assert made["rateLimit"] == 3
    _, other = new_read_token(admin, make_client, post_site, rateLimit=3)
    answers = [limited.get("/api/v1/content/post") for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [rate_headers(a) for a in answers] == [
        {"ratelimit-limit": "3", "ratelimit-remaining": str(n), "ratelimit-reset": "1"}
        for n in (2, 1, 0)
    ]
    refused = limited.get("/api/v1/content/post")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert refused.headers["cache-control"] == "no-store"
    assert rate_headers(refused) == {
        "ratelimit-limit": "3",
        "ratelimit-remaining": "0",
        "ratelimit-reset": "1",
        "retry-after": "1",
    }
    assert limited.get("/api/v1/me").status_code == 429  # every route a token calls counts
    assert other.get("/api/v1/content/post").status_code == 200
    assert post_site.read.get("/api/v1/content/post").status_code == 200  # no default in the tests


@pytest.mark.usefixtures("pinned_clock")
def test_over_its_rate_graphql_answers_200_with_one_429_error_and_the_same_headers(
    post_site: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory
) -> None:
    _, limited = new_read_token(admin, make_client, post_site, rateLimit=2)
    _, other = new_read_token(admin, make_client, post_site, rateLimit=2)
    query = "{ posts { total } }"
    assert "data" in limited.post(PATH, json={"query": query}).json()
    assert "data" in limited.get(PATH, params={"query": query}).json()
    for refused in (
        limited.post(PATH, json={"query": query}),
        limited.get(PATH, params={"query": query}),
    ):
        assert refused.status_code == 200
        only_error(refused.json(), "RATE_LIMITED", 429)
        assert refused.headers["cache-control"] == "no-store"
        assert rate_headers(refused) == {
            "ratelimit-limit": "2",
            "ratelimit-remaining": "0",
            "ratelimit-reset": "1",
            "retry-after": "1",
        }
    assert "data" in other.post(PATH, json={"query": query}).json()


@pytest.mark.usefixtures("pinned_clock")
def test_a_304_counts(
    post_site: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory
) -> None:
    _, limited = new_read_token(admin, make_client, post_site, rateLimit=2)
    tag = limited.get("/api/v1/content/post").headers["etag"]
    again = limited.get("/api/v1/content/post", headers={"If-None-Match": tag})
    assert again.status_code == 304
    assert again.headers["ratelimit-remaining"] == "0"
    assert limited.get("/api/v1/content/post", headers={"If-None-Match": tag}).status_code == 429


def test_the_default_rate_and_a_token_s_own_set_by_patch(
    post_site: WorkspaceAccess,
    admin: httpx.Client,
    make_client: ClientFactory,
    pinned_clock: float,
) -> None:
    made, client = new_read_token(admin, make_client, post_site)
    assert made["rateLimit"] is None
    with delivery_options(rate_limit=2):
        assert [client.get("/api/v1/me").status_code for _ in range(3)] == [200, 200, 429]
        # Its own rate wins over the default: 0 is no limit at all.
        patched = admin.patch(f"/api/v1/tokens/{made['id']}", json={"rateLimit": 0})
        assert patched.status_code == 200
        assert patched.json()["rateLimit"] == 0
        unlimited = client.get("/api/v1/me")
        assert unlimited.status_code == 200
        assert "ratelimit-limit" not in unlimited.headers
        patched = admin.patch(f"/api/v1/tokens/{made['id']}", json={"rateLimit": 5})
        assert patched.json()["rateLimit"] == 5
        assert client.get("/api/v1/me").headers["ratelimit-limit"] == "5"
        # null returns it to the default; other fields are kept.
        back = admin.patch(f"/api/v1/tokens/{made['id']}", json={"audiences": ["x"]})
        assert back.json()["rateLimit"] == 5
        assert back.json()["audiences"] == ["x"]
        back = admin.patch(f"/api/v1/tokens/{made['id']}", json={"rateLimit": None})
        assert back.json()["rateLimit"] is None
        assert client.get("/api/v1/me").status_code == 429  # the default's 2 are spent
    for bad in (-1, 1001, "fast"):
        refused = admin.patch(f"/api/v1/tokens/{made['id']}", json={"rateLimit": bad})
        assert refused.status_code == 422, refused.text
    created = admin.post(
        "/api/v1/tokens",
        json={"name": "t", "workspaceId": post_site.id, "access": "read", "rateLimit": 5000},
    )
    assert created.status_code == 422


@pytest.mark.usefixtures("pinned_clock")
def test_the_limiter_costs_one_conditional_update_per_request(
    post_site: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory, stack: LocalStack
) -> None:
    _, limited = new_read_token(admin, make_client, post_site, rateLimit=1)
    assert stack.settings is not None
    table = stack.settings.tables.rate_limits
    with capture(stack) as calls:
        limited.get("/api/v1/me")
        limited.get("/api/v1/me")
    on_table = calls.on(table)
    assert [c.operation for c in on_table] == ["UpdateItem", "UpdateItem"]
    assert [c.status for c in on_table] == [200, 400]  # the second fails its condition
    assert on_table[0].body["ConditionExpression"] == "attribute_not_exists(#n) OR #n < :limit"


def test_the_limit_is_shared_by_two_api_processes(
    post_site: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory, stack: LocalStack
) -> None:
    made, _ = new_read_token(admin, make_client, post_site, rateLimit=5)
    second = float(next(_seconds)) + 0.5
    headers = {"Authorization": f"Bearer {made['token']}"}
    with (
        api_process(stack, frozen_time=second) as first,
        api_process(stack, frozen_time=second) as other,
    ):
        answers = [
            httpx.get(f"{url}/api/v1/me", headers=headers, timeout=30) for url in [first, other] * 6
        ]
    admitted = [a for a in answers if a.status_code == 200]
    assert [a.status_code for a in answers].count(429) == 7
    assert sorted(int(a.headers["ratelimit-remaining"]) for a in admitted) == [0, 1, 2, 3, 4]
    # Both processes admitted some of the five: the count crossed between them.
    assert answers[0].status_code == answers[1].status_code == 200
