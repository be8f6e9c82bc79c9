"""The rules of delivery at scale that need no stack: GraphQL over GET's parameters and media
type, the caching headers by caller, `If-None-Match`, the rate decision's headers, and the
settings that drive them."""

from __future__ import annotations

import hashlib
import json

import pytest

from content_service.api.http_cache import cache_control, entity_tag, not_modified
from content_service.graphql.errors import RequestError
from content_service.graphql.transport import (
    GRAPHQL_RESPONSE,
    JSON,
    is_graphql_request,
    parse_body,
    parse_params,
    response_media_type,
)
from content_service.identity.principal import TokenCaller, UserCaller
from content_service.identity.rate_limits import RateDecision, limit_for
from content_service.settings import Delivery, Settings, SettingsError

HASH = hashlib.sha256(b"{ a }").hexdigest()
APQ = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": HASH}})


def token(access: str = "read", rate_limit: int | None = None) -> TokenCaller:
    return TokenCaller(
        token_id="t",
        name="t",
        workspace_id="ws",
        access="full" if access == "full" else "read",
        content_types=frozenset({"*"}),
        scopes=frozenset({"content:read"}),
        audiences=frozenset(),
        rate_limit=rate_limit,
    )


def test_get_parameters_are_the_post_body_with_json_encoded_variables_and_extensions() -> None:
    incoming = parse_params(
        [
            ("query", "query Q($n: Int) { a(n: $n) }"),
            ("variables", '{"n": 3}'),
            ("operationName", "Q"),
            ("version", "published"),  # not a GraphQL parameter: left to the URL
        ]
    )
    assert (incoming.query, incoming.variables, incoming.operation_name) == (
        "query Q($n: Int) { a(n: $n) }",
        {"n": 3},
        "Q",
    )
    assert parse_params([("extensions", APQ)]).persisted_hash == HASH
    assert parse_body(json.dumps({"extensions": json.loads(APQ)}).encode()).query is None
    assert is_graphql_request([("query", "{ a }")])
    assert not is_graphql_request([("version", "published")])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ([("query", "{ a }"), ("query", "{ b }")], "more than once"),
        ([("query", "{ a }"), ("variables", "{not json")], "not JSON"),
        ([("query", "{ a }"), ("variables", "[1]")], "JSON object"),
        ([("query", "{ a }"), ("variables", '{"a": 1, "a": 2}')], "twice"),
        ([("operationName", "Q")], "needs `query`"),
        ([("extensions", "[]")], "`extensions` must be a JSON object"),
        ([("extensions", '{"persistedQuery": {"version": 2, "sha256Hash": "x"}}')], "version"),
        ([("extensions", '{"persistedQuery": {"version": 1, "sha256Hash": "AB"}}')], "64"),
    ],
)
def test_bad_get_parameters_are_bad_requests(params: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(RequestError) as refused:
        parse_params(params)
    assert (refused.value.code, refused.value.status) == ("BAD_REQUEST", 400)
    assert message in refused.value.message


@pytest.mark.parametrize(
    ("accept", "media_type"),
    [
        (None, JSON),
        ("*/*", JSON),
        ("application/json", JSON),
        ("application/graphql-response+json", GRAPHQL_RESPONSE),
        ("application/graphql-response+json, application/json;q=0.9", GRAPHQL_RESPONSE),
        ("application/graphql-response+json;q=0.5, application/json", JSON),
        ("application/graphql-response+json;q=0", JSON),
        ("application/graphql-response+json;q=nonsense", JSON),
    ],
)
def test_the_answer_s_media_type_follows_accept(accept: str | None, media_type: str) -> None:
    assert response_media_type(accept) == media_type


def test_who_may_cache_is_whether_a_read_token_asked() -> None:
    delivery = Delivery(cache_seconds=60, stale_seconds=2)
    assert cache_control(token("read"), delivery) == (
        "public, max-age=0, s-maxage=60, stale-while-revalidate=2"
    )
    assert cache_control(token("full"), delivery) == "private, no-store"
    assert cache_control(UserCaller("u", "a@b.c", "editor"), delivery) == "private, no-store"
    off = Delivery(cache_seconds=0)
    assert cache_control(token("read"), off) == "private, no-cache"


def test_if_none_match_compares_weakly_and_takes_a_list_or_a_star() -> None:
    tag = entity_tag(b'{"a":1}')
    assert tag.startswith('"')
    assert tag.endswith('"')
    assert not tag.startswith("W/")
    assert tag == entity_tag(b'{"a":1}') != entity_tag(b'{"a":2}')
    assert not_modified(tag, tag)
    assert not_modified(f'"other", W/{tag}', tag)
    assert not_modified("*", tag)
    assert not not_modified(None, tag)
    assert not not_modified('"other"', tag)


def test_the_rate_decision_s_headers() -> None:
    assert RateDecision(True, 50, 49, 1).headers() == {
        "RateLimit-Limit": "50",
        "RateLimit-Remaining": "49",
        "RateLimit-Reset": "1",
    }
    assert RateDecision(False, 50, 0, 1).headers()["Retry-After"] == "1"


def test_a_token_s_own_rate_wins_over_the_default_and_zero_means_none() -> None:
    settings = Settings(delivery=Delivery(rate_limit=50))
    assert limit_for(token(), settings) == 50
    assert limit_for(token(rate_limit=5), settings) == 5
    assert limit_for(token(rate_limit=0), settings) is None
    off = Settings(delivery=Delivery(rate_limit=0))
    assert limit_for(token(), off) is None
    assert limit_for(token(rate_limit=5), off) == 5


def test_delivery_settings_from_the_environment() -> None:
    assert Settings.from_env({}).delivery == Delivery(60, 2, 50)
    read = Settings.from_env(
        {
            "CONTENT_CACHE_SECONDS": "0",
            "CONTENT_CACHE_STALE_SECONDS": "5",
            "CONTENT_RATE_LIMIT": "10",
        }
    ).delivery
    assert read == Delivery(0, 5, 10)
    with pytest.raises(SettingsError, match="CONTENT_RATE_LIMIT"):
        Settings.from_env({"CONTENT_RATE_LIMIT": "1001"})
    with pytest.raises(SettingsError, match="CONTENT_CACHE_SECONDS"):
        Settings.from_env({"CONTENT_CACHE_SECONDS": "-1"})
    assert Settings.from_env({"SYNC_SETTLE_MS": "250"}).delivery.sync_settle_ms == 250
    with pytest.raises(SettingsError, match="SYNC_SETTLE_MS"):
        Settings.from_env({"SYNC_SETTLE_MS": "-1"})
