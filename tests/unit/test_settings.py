"""Invalid webhook options (docs/webhooks.md, "Options and environment variables") refuse
construction with a clear message."""

from __future__ import annotations

import pytest

from content_service.settings import GraphQLLimits, Settings, SettingsError, WebhookOptions


def test_defaults_are_the_spec_defaults() -> None:
    options = WebhookOptions()
    assert (
        options.delivery_interval_ms,
        options.batch_size,
        options.timeout_ms,
        options.max_attempts,
        options.retention_days,
        options.auto_disable_after,
        options.allow_insecure_urls,
        options.allow_private_networks,
        options.claim_timeout_ms,
        options.response_snippet_bytes,
    ) == (2000, 20, 10000, 6, 30, 20, False, False, 30000, 2048)
    limits = GraphQLLimits()
    assert (
        limits.max_query_length,
        limits.max_depth,
        limits.max_fields,
        limits.max_complexity,
    ) == (16384, 8, 500, 1000)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"batch_size": 0}, "batchSize must be greater than 0"),
        ({"claim_timeout_ms": 10000}, "claimTimeoutMs (10000) must exceed timeoutMs"),
        ({"claim_timeout_ms": 9000}, "claimTimeoutMs (9000) must exceed timeoutMs"),
        ({"timeout_ms": 40000}, "claimTimeoutMs (30000) must exceed timeoutMs (40000)"),
        ({"retention_days": -1}, "retentionDays must not be negative"),
        ({"delivery_interval_ms": -5}, "deliveryIntervalMs must not be negative"),
        ({"response_snippet_bytes": -1}, "responseSnippetBytes must not be negative"),
        ({"auto_disable_after": -20}, "autoDisableAfter must not be negative"),
        ({"max_attempts": 0}, "maxAttempts must be at least 1"),
    ],
)
def test_invalid_options_are_refused(options: dict[str, int], message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        WebhookOptions(**options)  # type: ignore[arg-type]


def test_zero_interval_and_zero_retention_are_valid() -> None:
    options = WebhookOptions(delivery_interval_ms=0, retention_days=0)
    assert options.delivery_interval_ms == 0
    assert options.retention_days == 0


def test_the_five_environment_variables_set_their_options() -> None:
    settings = Settings.from_env(
        {
            "WEBHOOKS_DELIVERY_INTERVAL": "0",
            "WEBHOOKS_TIMEOUT": "5000",
            "WEBHOOKS_RETENTION_DAYS": "7",
            "WEBHOOKS_ALLOW_INSECURE_URLS": "true",
            "WEBHOOKS_ALLOW_PRIVATE_NETWORKS": "TRUE",
        }
    )
    options = settings.webhooks
    assert options.delivery_interval_ms == 0
    assert options.timeout_ms == 5000
    assert options.retention_days == 7
    assert options.allow_insecure_urls is True
    assert options.allow_private_networks is True
    assert options.batch_size == 20


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"WEBHOOKS_TIMEOUT": "ten"}, "WEBHOOKS_TIMEOUT must be an integer"),
        ({"WEBHOOKS_RETENTION_DAYS": "-1"}, "retentionDays must not be negative"),
        ({"WEBHOOKS_ALLOW_INSECURE_URLS": "maybe"}, "WEBHOOKS_ALLOW_INSECURE_URLS must be true"),
        ({"WEBHOOKS_TIMEOUT": "30000"}, "claimTimeoutMs (30000) must exceed timeoutMs"),
        ({"PUBLIC_BASE_URL": "example.com"}, "must start with http:// or https://"),
        ({"GRAPHQL_MAX_DEPTH": "0"}, "maxDepth must be positive"),
    ],
)
def test_invalid_environment_is_refused_at_construction(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Settings.from_env(env)


def test_the_password_cost_is_owasp_s_unless_lowered_within_bounds() -> None:
    assert Settings.from_env({}).password_cost == 17
    assert Settings.from_env({"PASSWORD_HASH_COST": "10"}).password_cost == 10
    for outside in ("9", "21"):
        with pytest.raises(SettingsError, match="PASSWORD_HASH_COST must be from 10 to 20"):
            Settings.from_env({"PASSWORD_HASH_COST": outside})


def test_assets_take_their_bucket_and_a_size_cap_from_1_byte_to_5_gib() -> None:
    default = Settings.from_env({})
    assert (default.assets_bucket, default.assets_max_bytes) == ("", 104_857_600)
    settings = Settings.from_env({"ASSETS_BUCKET": "assets", "ASSETS_MAX_BYTES": "1"})
    assert (settings.assets_bucket, settings.assets_max_bytes) == ("assets", 1)
    assert Settings.from_env({"ASSETS_MAX_BYTES": "5368709120"}).assets_max_bytes == 5 * 1024**3
    for outside in ("0", "-1", "5368709121"):
        with pytest.raises(SettingsError, match="ASSETS_MAX_BYTES must be from 1 to 5368709120"):
            Settings.from_env({"ASSETS_MAX_BYTES": outside})
    with pytest.raises(SettingsError, match="ASSETS_MAX_BYTES must be an integer"):
        Settings.from_env({"ASSETS_MAX_BYTES": "100MB"})
