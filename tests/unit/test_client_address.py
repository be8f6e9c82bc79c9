"""Reading the viewer's address from `CloudFront-Viewer-Address` (`ip:port`)."""

from __future__ import annotations

import pytest

from content_service.api.client_address import viewer_ip


@pytest.mark.parametrize(
    ("header", "address"),
    [
        ("198.51.100.10:46532", "198.51.100.10"),
        ("2001:db8:0:0:0:0:0:1:46532", "2001:db8::1"),
        ("2001:db8::1:46532", "2001:db8::1"),
        ("[2001:db8::1]:46532", "2001:db8::1"),
        (" 198.51.100.10:46532 ", "198.51.100.10"),
    ],
)
def test_the_address_before_the_port(header: str, address: str) -> None:
    assert viewer_ip(header) == address


@pytest.mark.parametrize("header", ["", "198.51.100.10", "unknown:1", "[unknown]:1", ":46532"])
def test_anything_else_is_no_address(header: str) -> None:
    assert viewer_ip(header) is None
