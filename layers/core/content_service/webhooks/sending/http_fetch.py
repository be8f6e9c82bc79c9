"""A GET under the same guard as a delivery, for what the service fetches itself (an asset
imported from a URL): the URL policy checked against this request's DNS answers, the
connection pinned to a checked address (`http_sender.connect_pinned`), no redirect followed,
and connect, request and every read of the body bounded by one deadline."""

from __future__ import annotations

import http.client
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..endpoints import Resolver, UrlPolicy, check_url
from .http_sender import (
    DEFAULT_TIMEOUT_MS,
    _PinnedHTTPConnection,
    _remaining,
    connect_pinned,
    exchange_deadline,
)


@contextmanager
def fetch(
    url: str,
    policy: UrlPolicy,
    *,
    resolver: Resolver | None = None,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    ca_bundle: str | None = None,
) -> Iterator[http.client.HTTPResponse]:
    """The response to a GET of `url`. Raises `UrlRefused` or `UnresolvableHost` before any
    socket opens, `OSError` or `http.client.HTTPException` after."""
    checked = check_url(url, policy, resolver)
    deadline = time.monotonic() + timeout_ms / 1000
    conn: _PinnedHTTPConnection | None = None
    with exchange_deadline(deadline):
        try:
            _, conn = connect_pinned(checked, deadline, ca_bundle)
            assert conn.sock is not None
            conn.sock.settimeout(_remaining(deadline))
            conn.putrequest("GET", checked.target.target, skip_accept_encoding=True)
            conn.putheader("Accept", "*/*")
            conn.endheaders()
            yield conn.getresponse()
        finally:
            if conn is not None:
                conn.close()
