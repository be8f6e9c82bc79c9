"""Which edge the configuration asks to purge, if any.

One purger per deployment: Varnish (or any xkey-speaking cache) when `EDGE_PURGE_URL` is set.
Another edge (CloudFront's invalidations, say) is one more branch here, choosing on its own
setting; without one, nothing is purged and answers live out their `s-maxage`.
"""

from __future__ import annotations

from content_service.edge.changes import Purger
from content_service.edge.varnish import VarnishPurger
from content_service.settings import Settings


def purger(settings: Settings) -> Purger | None:
    if settings.edge_purge_url:
        return VarnishPurger(settings.edge_purge_url)
    return None
