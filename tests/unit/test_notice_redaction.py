"""What a notice says about an endpoint's destination: its host, and a reason naming no more
(docs/webhooks.md, "A notice names the host, never the URL")."""

from __future__ import annotations

import pytest

from content_service.webhooks.endpoints import Endpoint
from content_service.webhooks.operations import notice_host, notice_reason
from content_service.webhooks.sending import ERROR_BYTES

SLACK = "https://hooks.slack.com/services/T000/B000/XXXXSECRET"
BUS = "arn:aws:events:eu-west-1:123456789012:event-bus/orders"


def http_endpoint(url: str) -> Endpoint:
    return Endpoint(id="e1", url=url, secret="s", workspaces=(), created_at="", updated_at="")


def bus_endpoint(arn: str = BUS) -> Endpoint:
    return Endpoint(
        id="e2",
        url="",
        secret="s",
        workspaces=(),
        created_at="",
        updated_at="",
        type="eventbridge",
        event_bus_arn=arn,
    )


@pytest.mark.parametrize(
    ("url", "host"),
    [
        (SLACK, "hooks.slack.com"),
        ("https://user:pw@Hooks.Example.COM:8443/a?b=c#d", "hooks.example.com"),
        ("http://[2606:4700::1111]:8080/hook", "2606:4700::1111"),
        ("http://127.0.0.1:9000/hook", "127.0.0.1"),
        ("http://[::1/hook", ""),
    ],
)
def test_the_host_is_the_urls_host_name_alone(url: str, host: str) -> None:
    assert notice_host(http_endpoint(url)) == host


def test_an_event_bus_endpoints_host_is_the_buss_name() -> None:
    assert notice_host(bus_endpoint()) == "orders"


def test_a_url_in_the_reason_is_cut_to_its_host_and_a_resolved_address_is_not_named() -> None:
    told = notice_reason(f"refused: {SLACK} resolves to 10.0.0.1", http_endpoint(SLACK))
    assert told == "refused: hooks.slack.com resolves to an address"


@pytest.mark.parametrize(
    "address", ["10.0.0.1", "fd12:3456::1", "::ffff:127.0.0.1", "[fe80::1%eth0]", "2001:db8::1"]
)
def test_an_address_other_than_the_host_is_not_named(address: str) -> None:
    told = notice_reason(f"hooks.slack.com resolves to {address}.", http_endpoint(SLACK))
    assert told == "hooks.slack.com resolves to an address."


def test_the_host_itself_may_be_an_address_and_is_named() -> None:
    endpoint = http_endpoint("http://[::1]:9000/hook")
    assert notice_reason("[::1] is refused (loopback address)", endpoint) == (
        "[::1] is refused (loopback address)"
    )


def test_times_and_ids_are_not_taken_for_addresses() -> None:
    reason = "lease ended 2026-01-15T09:30:00.000Z (last: 5f0c6a53-2a56-4b0e-9c1e-6a7d2c9e0b11)"
    assert notice_reason(reason, http_endpoint(SLACK)) == reason


def test_the_endpoints_path_query_and_credentials_are_taken_out_wherever_they_appear() -> None:
    endpoint = http_endpoint(
        "https://hook-user:PASSWORDSECRET@hooks.example.com/services/T000/B000/XXXXSECRET"
        "?token=QUERYSECRET&v=2"
    )
    reason = (
        "POST /services/T000/B000/XXXXSECRET?token=QUERYSECRET&v=2 failed; the receiver said "
        "XXXXSECRET is revoked, QUERYSECRET too, for hook-user (PASSWORDSECRET)"
    )
    told = notice_reason(reason, endpoint)
    for secret in ("/services", "T000", "XXXXSECRET", "QUERYSECRET", "hook-user", "PASSWORD"):
        assert secret not in told
    assert told.startswith("POST … failed; the receiver said … is revoked, … too, for …")


def test_plain_words_of_the_path_are_not_taken_out_of_the_reason() -> None:
    endpoint = http_endpoint("https://hooks.example.com/disabled/after")
    reason = "disabled after 2 consecutive dead deliveries (last: d1, HTTP 410 is final)"
    assert notice_reason(reason, endpoint) == reason


def test_an_arn_is_cut_to_its_resource_name() -> None:
    reason = (
        f"event bus {BUS} is not on WEBHOOKS_EVENTBRIDGE_BUSES; PutEvents refused: "
        "AccessDeniedException: User: arn:aws:sts::123456789012:assumed-role/delivery/run"
    )
    told = notice_reason(reason, bus_endpoint())
    assert "123456789012" not in told
    assert told == (
        "event bus orders is not on WEBHOOKS_EVENTBRIDGE_BUSES; PutEvents refused: "
        "AccessDeniedException: User: delivery/run"
    )


def test_the_reason_is_cut_after_the_secrets_are_taken_out() -> None:
    """Cut first, the path at the end would stay in part (`.../XXXX…`), not found whole."""
    endpoint = http_endpoint(SLACK)
    padding = "x" * (ERROR_BYTES - len(" /services/T000/B000/XXXX…".encode()))
    told = notice_reason(f"{padding} /services/T000/B000/XXXXSECRET", endpoint)
    assert told == f"{padding} …"


def test_telling_a_told_reason_again_changes_nothing() -> None:
    endpoint = http_endpoint(SLACK)
    once = notice_reason(f"{SLACK} resolves to 10.0.0.1 and XXXXSECRET", endpoint)
    assert notice_reason(once, endpoint) == once
