"""The sign-in caller's address: the viewer's behind our CloudFront, the peer's otherwise.

Behind the edge, API Gateway's `sourceIp` is one of CloudFront's addresses, shared by every
viewer of that edge location. The template's sign-in behaviour sends the viewer's address as
CloudFront writes it (`CloudFront-Viewer-Address`, `ip:port`) to an origin that adds a secret
header (`X-Origin-Verify`, `EDGE_ORIGIN_SECRET`). A client can call the API Gateway URL
directly and write both headers itself, so the viewer address is read only when the secret
matches (compared in constant time); otherwise, and whenever the header cannot be read, the
peer's address counts. `X-Forwarded-For` is never read: a client writes what it likes there.
"""

from __future__ import annotations

import hmac
import ipaddress

from fastapi import Request

ORIGIN_VERIFY_HEADER = "x-origin-verify"
VIEWER_ADDRESS_HEADER = "cloudfront-viewer-address"


def peer_address(request: Request) -> str:
    """The socket's peer locally, API Gateway's `sourceIp` on AWS (Mangum puts it in the scope)."""
    return request.client.host if request.client is not None else "unknown"


def through_our_edge(request: Request, origin_secret: str) -> bool:
    """Whether the request carries our distribution's origin secret (none configured: never)."""
    sent = request.headers.get(ORIGIN_VERIFY_HEADER)
    if not origin_secret or sent is None:
        return False
    return hmac.compare_digest(sent.encode("utf-8"), origin_secret.encode("utf-8"))


def viewer_ip(header: str) -> str | None:
    """The address in `CloudFront-Viewer-Address`: `198.51.100.10:46532`, an IPv6 address and
    its port after the last colon, or `[2001:db8::1]:46532`; None when it is not one."""
    value = header.strip()
    host = value[1:].partition("]")[0] if value.startswith("[") else value.rpartition(":")[0]
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return None


def client_address(request: Request, origin_secret: str) -> str:
    """The address a sign-in attempt is counted against."""
    if through_our_edge(request, origin_secret):
        viewer = viewer_ip(request.headers.get(VIEWER_ADDRESS_HEADER, ""))
        if viewer is not None:
            return viewer
    return peer_address(request)
