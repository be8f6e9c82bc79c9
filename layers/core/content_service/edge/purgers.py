"""Which edge the configuration asks to purge, if any.

Every edge the configuration names is purged: CloudFront's invalidations when
`EDGE_DISTRIBUTION_ID` is set (the template's distribution), and Varnish (or any xkey-speaking
cache) when `EDGE_PURGE_URL` is (a cache in front of CloudFront, or the local edge); without
either, nothing is purged and answers live out their `s-maxage`. Each edge's module (boto3's
CloudFront client and the content schema; `requests`) is imported only when the configuration
names that edge, so a deployment pays at cold start for the edge it has (D146).
"""

from __future__ import annotations

from collections.abc import Sequence

from content_service.edge.changes import EdgeChange, Purger
from content_service.settings import Settings


class EveryEdge:
    """Several edges purged as one: a batch fails (and is retried whole) unless each confirmed.
    Retrying is harmless: a tag purge is idempotent, and a retried CloudFront batch names the
    same invalidation."""

    def __init__(self, edges: Sequence[Purger]) -> None:
        self.edges = tuple(edges)

    def purge(self, changes: Sequence[EdgeChange]) -> None:
        for edge in self.edges:
            edge.purge(changes)


def purger(settings: Settings) -> Purger | None:
    edges: list[Purger] = []
    if settings.edge_distribution_id:
        edges.append(_cloudfront(settings))
    if settings.edge_purge_url:
        from content_service.edge.varnish import VarnishPurger

        edges.append(VarnishPurger(settings.edge_purge_url))
    if not edges:
        return None
    return edges[0] if len(edges) == 1 else EveryEdge(edges)


def _cloudfront(settings: Settings) -> Purger:
    from content_service.content.schema import types_relating_to
    from content_service.edge.cloudfront import CloudFrontPurger
    from content_service.storage import aws

    return CloudFrontPurger(
        settings.edge_distribution_id, aws.cloudfront(settings), types_relating_to
    )
