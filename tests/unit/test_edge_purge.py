"""Choosing the edge to purge, a day's s-maxage once one is, and purge headers that fit."""

from __future__ import annotations

from content_service.edge import purgers
from content_service.edge.cloudfront import CloudFrontPurger
from content_service.edge.varnish import MAX_HEADER_BYTES, VarnishPurger, tag_groups
from content_service.settings import PURGED_CACHE_SECONDS, Settings


def test_varnish_is_purged_when_a_purge_url_is_set_and_nothing_otherwise() -> None:
    assert purgers.purger(Settings.from_env({})) is None
    chosen = purgers.purger(Settings.from_env({"EDGE_PURGE_URL": "http://127.0.0.1:6081/"}))
    assert isinstance(chosen, VarnishPurger)
    assert chosen.url == "http://127.0.0.1:6081/"


def test_with_a_purge_answers_are_cached_a_day_unless_the_cache_seconds_are_set() -> None:
    purged = {"EDGE_PURGE_URL": "http://127.0.0.1:6081/"}
    assert Settings.from_env({}).delivery.cache_seconds == 60
    assert Settings.from_env(purged).delivery.cache_seconds == PURGED_CACHE_SECONDS == 86400
    explicit = {**purged, "CONTENT_CACHE_SECONDS": "120"}
    assert Settings.from_env(explicit).delivery.cache_seconds == 120


def test_tags_are_split_into_headers_within_the_limit_each_tag_once() -> None:
    tags = [f"e:{n:016d}" for n in range(1000)]
    groups = list(tag_groups(tags))
    assert len(groups) > 1
    assert all(len(group) <= MAX_HEADER_BYTES for group in groups)
    assert [tag for group in groups for tag in group.split(" ")] == tags
    assert list(tag_groups([])) == []


def test_the_template_s_distribution_is_invalidated_when_its_id_is_set() -> None:
    settings = Settings.from_env({"EDGE_DISTRIBUTION_ID": "E2EXAMPLE", "AWS_REGION": "us-east-1"})
    chosen = purgers.purger(settings)
    assert isinstance(chosen, CloudFrontPurger)
    assert chosen.distribution_id == "E2EXAMPLE"
    assert settings.delivery.cache_seconds == PURGED_CACHE_SECONDS


def test_with_both_edges_named_both_are_purged() -> None:
    env = {
        "EDGE_DISTRIBUTION_ID": "E2EXAMPLE",
        "EDGE_PURGE_URL": "http://127.0.0.1:6081/",
        "AWS_REGION": "us-east-1",
    }
    chosen = purgers.purger(Settings.from_env(env))
    assert isinstance(chosen, purgers.EveryEdge)
    assert [type(edge) for edge in chosen.edges] == [CloudFrontPurger, VarnishPurger]
