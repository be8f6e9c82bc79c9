"""Properties of signing and of the header parser (docs/webhooks.md, "Receiver guide"), over
generated input."""

from __future__ import annotations

import contextlib

from hypothesis import assume, given
from hypothesis import strategies as st

from content_service.webhooks.sending import (
    SignatureVerificationError,
    parse_signature_header,
    sign,
    signature_header,
    verify_signature,
)

SECRET = "whsec_BwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSY"
T = 1_795_000_000

timestamps = st.integers(min_value=0, max_value=10**11)
secrets = st.text(min_size=1, max_size=80)
hex64 = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)

# Header-like text: pieces that look like the real thing mixed with noise, so the generator
# reaches the interesting branches (t present, v1 well-formed, duplicates, odd separators).
pieces = st.one_of(
    st.builds(lambda t: f"t={t}", st.integers(min_value=-(10**13), max_value=10**13)),
    st.builds(lambda h: f"v1={h}", hex64),
    st.builds(lambda s: f"v1={s}", st.text(max_size=70)),
    st.builds(lambda k, v: f"{k}={v}", st.text(max_size=5), st.text(max_size=20)),
    st.text(max_size=20),
)
header_like = st.lists(pieces, max_size=6).map(",".join)


@given(header=st.one_of(st.text(), header_like), body=st.binary(max_size=64))
def test_verify_raises_only_signature_errors(header: str, body: bytes) -> None:
    with contextlib.suppress(SignatureVerificationError):
        verify_signature(body, header, SECRET, now=T)


@given(header=st.one_of(st.text(), header_like))
def test_parser_returns_well_formed_values_or_refuses(header: str) -> None:
    try:
        timestamp, signatures = parse_signature_header(header)
    except SignatureVerificationError:
        return
    assert timestamp >= 0
    assert signatures
    assert all(len(s) == 64 and set(s) <= set("0123456789abcdef") for s in signatures)


@given(
    secret=secrets,
    timestamp=timestamps,
    body=st.binary(max_size=512),
    skew=st.integers(min_value=-300, max_value=300),
)
def test_a_header_we_sign_always_verifies(
    secret: str, timestamp: int, body: bytes, skew: int
) -> None:
    verify_signature(body, signature_header(secret, timestamp, body), secret, now=timestamp + skew)


@given(
    body=st.binary(min_size=1, max_size=256),
    data=st.data(),
)
def test_any_single_byte_change_of_the_body_fails(body: bytes, data: st.DataObject) -> None:
    header = signature_header(SECRET, T, body)
    index = data.draw(st.integers(min_value=0, max_value=len(body) - 1))
    replacement = data.draw(
        st.integers(min_value=0, max_value=255).filter(lambda b: b != body[index])
    )
    changed = body[:index] + bytes([replacement]) + body[index + 1 :]
    try:
        verify_signature(changed, header, SECRET, now=T)
    except SignatureVerificationError:
        return
    raise AssertionError("a changed body verified")


@given(body=st.binary(max_size=64), extra=st.binary(min_size=1, max_size=8))
def test_appended_or_truncated_bodies_fail(body: bytes, extra: bytes) -> None:
    header = signature_header(SECRET, T, body + extra)
    try:
        verify_signature(body, header, SECRET, now=T)
    except SignatureVerificationError:
        return
    raise AssertionError("a truncated body verified")


@given(timestamp=timestamps, other=timestamps, body=st.binary(max_size=64))
def test_signature_is_bound_to_its_timestamp(timestamp: int, other: int, body: bytes) -> None:
    assume(timestamp != other)
    header = f"t={other},v1={sign(SECRET, timestamp, body)}"
    try:
        verify_signature(body, header, SECRET, now=other)
    except SignatureVerificationError:
        return
    raise AssertionError("a signature verified under another timestamp")


@given(skew=st.integers(min_value=301, max_value=10**9), future=st.booleans())
def test_skew_beyond_tolerance_fails_in_both_directions(skew: int, future: bool) -> None:
    now = T - skew if future else T + skew
    try:
        verify_signature(b"{}", signature_header(SECRET, T, b"{}"), SECRET, now=now)
    except SignatureVerificationError:
        return
    raise AssertionError("a stale or future timestamp verified")
