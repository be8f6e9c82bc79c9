"""Signatures (docs/webhooks.md, "Receiver guide") against the shared vectors and Stripe's
independent verifier."""

from __future__ import annotations

import base64
import re
import time
from datetime import UTC, datetime
from typing import Any

import pytest
import stripe
from standardwebhooks import Webhook

from content_service.clock import iso_utc
from content_service.webhooks.endpoints import (
    MAX_OLDER_SECRETS,
    OlderSecret,
    SecretRing,
    mint_secret,
    secret_hint,
    standard_key,
)
from content_service.webhooks.sending import (
    SignatureVerificationError,
    parse_signature_header,
    sign,
    signature_header,
    standard_signature,
    verify_signature,
)
from tests.support.vectors import vectors

VECTORS: list[dict[str, Any]] = vectors("signatures.json")["vectors"]

SECRET = VECTORS[0]["secret"]
BODY = b'{"id":"d1","event":"ping"}'
T = 1_795_000_000


def _vector_id(vector: dict[str, Any]) -> str:
    return str(vector.get("why", f"valid t={vector['timestamp']}"))


@pytest.mark.parametrize("vector", VECTORS, ids=_vector_id)
def test_vector(vector: dict[str, Any]) -> None:
    raw = vector["rawBody"].encode("utf-8")
    if vector["valid"]:
        verify_signature(raw, vector["header"], vector["secret"], now=vector["now"])
    else:
        with pytest.raises(SignatureVerificationError):
            verify_signature(raw, vector["header"], vector["secret"], now=vector["now"])


@pytest.mark.parametrize("vector", [v for v in VECTORS if v["valid"]], ids=_vector_id)
def test_signing_reproduces_the_vector_header(vector: dict[str, Any]) -> None:
    raw = vector["rawBody"].encode("utf-8")
    assert signature_header(vector["secret"], vector["timestamp"], raw) == vector["header"]


def test_signature_is_lower_case_hex_sha256() -> None:
    assert re.fullmatch(r"[0-9a-f]{64}", sign(SECRET, T, BODY))


def test_key_is_the_whole_secret_including_prefix() -> None:
    # docs/api.md: the `whsec_` prefix is part of the key, so dropping it changes the signature.
    assert sign(SECRET, T, BODY) != sign(SECRET.removeprefix("whsec_"), T, BODY)


@pytest.mark.parametrize("body", [BODY, '{"a":"ünïcødé ✓"}'.encode(), b""])
def test_stripe_verifier_accepts_our_header(body: bytes) -> None:
    secret = mint_secret()
    header = signature_header(secret, int(time.time()), body)
    stripe.WebhookSignature.verify_header(body.decode("utf-8"), header, secret, 300)


def test_stripe_verifier_refuses_a_tampered_body() -> None:
    secret = mint_secret()
    header = signature_header(secret, int(time.time()), BODY)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.WebhookSignature.verify_header(BODY.decode() + " ", header, secret, 300)


@pytest.mark.parametrize("offset", [301, 3600, -301, -3600])
def test_timestamps_off_by_more_than_300_s_either_way_are_refused(offset: int) -> None:
    header = signature_header(SECRET, T, BODY)
    with pytest.raises(SignatureVerificationError, match="tolerance"):
        verify_signature(BODY, header, SECRET, now=T - offset)


@pytest.mark.parametrize("offset", [0, 300, -300])
def test_timestamps_within_300_s_either_way_are_accepted(offset: int) -> None:
    verify_signature(BODY, signature_header(SECRET, T, BODY), SECRET, now=T - offset)


def test_future_dated_header_is_refused_at_the_default_clock() -> None:
    future = int(time.time()) + 3600
    with pytest.raises(SignatureVerificationError):
        verify_signature(BODY, signature_header(SECRET, future, BODY), SECRET)


def test_any_of_several_v1_may_match_during_rotation() -> None:
    old, new = mint_secret(), mint_secret()
    header = f"t={T},v1={sign(old, T, BODY)},v1={sign(new, T, BODY)}"
    verify_signature(BODY, header, new, now=T)
    verify_signature(BODY, header, old, now=T)
    with pytest.raises(SignatureVerificationError, match="matches"):
        verify_signature(BODY, header, mint_secret(), now=T)


def test_unknown_schemes_are_ignored_but_do_not_count() -> None:
    good = sign(SECRET, T, BODY)
    verify_signature(BODY, f"t={T},v0=abc,v2={'0' * 64},v1={good},junk", SECRET, now=T)
    with pytest.raises(SignatureVerificationError, match="no v1"):
        verify_signature(BODY, f"t={T},v2={good}", SECRET, now=T)


def test_a_malformed_v1_is_skipped_when_a_good_one_follows() -> None:
    good = sign(SECRET, T, BODY)
    verify_signature(BODY, f"t={T},v1={good.upper()},v1={good}", SECRET, now=T)


@pytest.mark.parametrize(
    "t_value",
    [
        "+1795000000",
        "-1795000000",
        " 1795000000",
        "1795000000 ",
        "1.795e9",
        "0x6afc8a80",
        "",
        "\uff11\uff17\uff19\uff15" + "\uff10" * 6,
        "1795000000\n",
        "9" * 13,
    ],
)
def test_t_must_be_plain_ascii_digits(t_value: str) -> None:
    header = f"t={t_value},v1={sign(SECRET, T, BODY)}"
    with pytest.raises(SignatureVerificationError, match="t is not an integer"):
        verify_signature(BODY, header, SECRET, now=T)


def test_t_given_twice_is_refused() -> None:
    header = f"t={T},t={T},v1={sign(SECRET, T, BODY)}"
    with pytest.raises(SignatureVerificationError, match="more than one t"):
        parse_signature_header(header)


def test_whitespace_around_parts_is_not_trimmed() -> None:
    header = f"t={T}, v1={sign(SECRET, T, BODY)}"
    with pytest.raises(SignatureVerificationError, match="no v1"):
        verify_signature(BODY, header, SECRET, now=T)


def test_parse_returns_timestamp_and_signatures() -> None:
    a, b = sign(SECRET, T, BODY), sign(SECRET, T, b"other")
    assert parse_signature_header(f"v1={a},t={T},v1={b}") == (T, [a, b])


def test_signature_verification_error_is_a_value_error() -> None:
    assert issubclass(SignatureVerificationError, ValueError)


def test_minted_secret_format() -> None:
    secret = mint_secret()
    assert secret.startswith("whsec_")
    encoded = secret.removeprefix("whsec_")
    assert len(encoded) == 43
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", encoded)
    assert len(base64.urlsafe_b64decode(encoded + "=")) == 32


def test_minted_secrets_differ() -> None:
    assert len({mint_secret() for _ in range(50)}) == 50


def test_hint_is_last_four_characters() -> None:
    assert secret_hint("whsec_abcdefWXYZ") == "WXYZ"
    secret = mint_secret()
    assert secret_hint(secret) == secret[-4:]


def test_several_secrets_give_one_v1_each_newest_first() -> None:
    new, old = mint_secret(), mint_secret()
    header = signature_header([new, old], T, BODY)
    assert header == f"t={T},v1={sign(new, T, BODY)},v1={sign(old, T, BODY)}"
    verify_signature(BODY, header, new, now=T)
    verify_signature(BODY, header, old, now=T)
    with pytest.raises(SignatureVerificationError):
        verify_signature(BODY, header, mint_secret(), now=T)
    with pytest.raises(ValueError, match="at least one"):
        signature_header([], T, BODY)


def test_a_standard_secret_is_what_standardwebhooks_takes() -> None:
    secret = mint_secret("standard")
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]{43}=", secret)
    key = standard_key(secret)
    assert len(key) == 32
    # The official library signs exactly as we do, with the key it derives from the secret.
    now = int(time.time())
    ours = standard_signature(key, "msg_1", now, BODY)
    moment = datetime.fromtimestamp(now, tz=UTC)
    assert ours == Webhook(secret).sign("msg_1", moment, BODY.decode())


def test_standard_key_refuses_a_base64url_secret() -> None:
    with pytest.raises(ValueError, match="standard base64"):
        standard_key("whsec_ab-cd_ef")


def test_rotation_keeps_the_replaced_secret_for_its_grace_only() -> None:
    ring = SecretRing("whsec_a").rotated("whsec_b", 3600, T)
    assert ring.current == "whsec_b"
    assert ring.older == (OlderSecret("whsec_a", iso_utc(T + 3600)),)
    assert ring.signing(T) == ("whsec_b", "whsec_a")
    assert ring.signing(T + 3599) == ("whsec_b", "whsec_a")
    assert ring.signing(T + 3600) == ("whsec_b",)
    immediate = ring.rotated("whsec_c", 0, T + 10)
    assert immediate.signing(T + 10) == ("whsec_c", "whsec_a")  # a keeps its own expiry
    assert immediate.rotated("whsec_d", 60, T + 4000).older == (
        OlderSecret("whsec_c", iso_utc(T + 4060)),
    )  # the expired one is dropped


def test_at_most_ten_older_secrets_the_oldest_go_first() -> None:
    ring = SecretRing("whsec_0")
    for n in range(1, 14):
        ring = ring.rotated(f"whsec_{n}", 600, T + n)
    assert len(ring.older) == MAX_OLDER_SECRETS
    assert [o.secret for o in ring.older] == [f"whsec_{n}" for n in range(12, 2, -1)]


@pytest.mark.parametrize("grace", [-1, 604_801])
def test_a_grace_outside_its_bounds_is_refused(grace: int) -> None:
    with pytest.raises(ValueError, match="graceSeconds"):
        SecretRing("whsec_a").rotated("whsec_b", grace, T)


def test_older_secrets_round_trip_through_their_stored_form() -> None:
    ring = SecretRing("whsec_a").rotated("whsec_b", 60, T).rotated("whsec_c", 60, T)
    assert SecretRing.older_from_values(ring.older_values()) == ring.older
