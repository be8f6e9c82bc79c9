"""Which edge the configuration asks to purge, if any.

One purger per deployment: CloudFront's invalidations when `EDGE_DISTRIBUTION_ID` is set (the
template's distribution), else Varnish (or any xkey-speaking cache) when `EDGE_PURGE_URL` is;
without either, nothing is purged and answers live out their `s-maxage`.
"""

from __future__ import annotations

from content_service.content.schema import types_relating_to
from content_service.edge.changes import Purger
from content_service.edge.cloudfront import CloudFrontPurger
from content_service.edge.varnish import VarnishPurger
from content_service.settings import Settings
from content_service.storage import aws


def purger(settings: Settings) -> Purger | None:
    if settings.edge_distribution_id:
        return CloudFrontPurger(
            settings.edge_distribution_id, aws.cloudfront(settings), types_relating_to
        )
    if settings.edge_purge_url:
        return VarnishPurger(settings.edge_purge_url)
    return None
