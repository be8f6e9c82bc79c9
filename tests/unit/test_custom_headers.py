"""Custom header rules (docs/admin-ui.md, "Custom headers"; docs/webhooks.md)."""

from __future__ import annotations

import pytest

from content_service.webhooks.endpoints import (
    MAX_HEADERS,
    RESERVED_HEADER_NAMES,
    RESERVED_PREFIX,
    HeaderRuleError,
    rules_json,
    validate_custom_headers,
)


def test_rules_are_the_spec_rules() -> None:
    """The service's own header names, and the Standard Webhooks headers a `standard` endpoint
    carries."""
    assert RESERVED_PREFIX == "X-Service-"
    assert set(RESERVED_HEADER_NAMES) == {
        "Host",
        "Content-Type",
        "Content-Length",
        "Transfer-Encoding",
        "Connection",
        "User-Agent",
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
    }
    rules = rules_json()
    assert rules["reservedPrefix"] == "X-Service-"
    assert rules["maxHeaders"] == 20
    assert rules["maxValueLength"] == 1024


def test_ordinary_headers_pass_unchanged() -> None:
    headers = {
        "Authorization": "Bearer abc.def-ghi",
        "X-Api-Key": "k3y",
        "X-Tenant": "acme",
        "x-empty": "",
        "X-Tabbed": "a\tb",
        "X-Service": "no dash, so not the reserved prefix",
        "X-Services-Id": "7",
    }
    assert validate_custom_headers(headers) == headers


@pytest.mark.parametrize(
    "name",
    [
        *RESERVED_HEADER_NAMES,
        "host",
        "HOST",
        "content-type",
        "CONTENT-LENGTH",
        "transfer-encoding",
        "connection",
        "user-agent",
    ],
)
def test_reserved_names_are_refused(name: str) -> None:
    with pytest.raises(HeaderRuleError, match=name):
        validate_custom_headers({name: "x"})


@pytest.mark.parametrize(
    "name",
    ["X-Service-Signature", "x-service-event", "X-SERVICE-Delivery", "X-Service-", "x-SeRvIcE-x"],
)
def test_service_prefix_is_refused(name: str) -> None:
    with pytest.raises(HeaderRuleError, match="prefix"):
        validate_custom_headers({name: "forged"})


@pytest.mark.parametrize(
    "name",
    ["", "Bad Header", "Bad:Header", "(x)", "a\r\nb", "Ünicode", "semi;colon", "x" * 257, "a\x00"],
)
def test_names_must_be_http_tokens(name: str) -> None:
    with pytest.raises(HeaderRuleError, match="token"):
        validate_custom_headers({name: "v"})


@pytest.mark.parametrize(
    "value",
    ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\x00b", "a\x01b", "a\x7fb", "caf\u00e9", "\u2028"],
)
def test_values_without_control_or_non_ascii_characters(value: str) -> None:
    with pytest.raises(HeaderRuleError, match="X-Custom"):
        validate_custom_headers({"X-Custom": value})


def test_value_length_limit_is_1024() -> None:
    assert validate_custom_headers({"X-Long": "v" * 1024})
    with pytest.raises(HeaderRuleError, match="X-Long"):
        validate_custom_headers({"X-Long": "v" * 1025})


def test_at_most_twenty_headers() -> None:
    twenty = {f"X-H{i}": str(i) for i in range(MAX_HEADERS)}
    assert MAX_HEADERS == 20
    assert validate_custom_headers(twenty) == twenty
    with pytest.raises(HeaderRuleError, match="20"):
        validate_custom_headers({**twenty, "X-One-More": "x"})


def test_names_differing_only_in_case_are_refused() -> None:
    with pytest.raises(HeaderRuleError, match="case"):
        validate_custom_headers({"X-Token": "a", "x-token": "b"})


def test_value_must_be_a_string() -> None:
    with pytest.raises(HeaderRuleError, match="X-Number"):
        validate_custom_headers({"X-Number": 5})


def test_rule_errors_are_value_errors() -> None:
    assert issubclass(HeaderRuleError, ValueError)
