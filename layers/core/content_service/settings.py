"""One settings object, read from the environment once and validated at construction.

An invalid combination (D2; docs/webhooks.md, "Options and environment variables": `batchSize` 0,
`claimTimeoutMs` at or below `timeoutMs`, any negative option) refuses to construct, so a
misconfigured function fails at cold start with a clear message instead of misbehaving later.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from content_service.camel import camel

_EVENT_BUS_ARN = re.compile(
    r"arn:aws[a-z-]*:events:[a-z0-9-]+:[0-9]{12}:event-bus/[A-Za-z0-9._/-]+"
)


class SettingsError(ValueError):
    """A setting or option is invalid; the message names it and says why."""


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _parse_bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SettingsError(f"{name} must be true or false, not {raw!r}")


def _parse_int(name: str, raw: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        raise SettingsError(f"{name} must be an integer, not {raw!r}") from None


@dataclass(frozen=True)
class WebhookOptions:
    """The webhook options (docs/webhooks.md), with their defaults and bounds."""

    delivery_interval_ms: int = 2000
    batch_size: int = 20
    timeout_ms: int = 10000
    max_attempts: int = 6
    retention_days: int = 30
    auto_disable_after: int = 20
    allow_insecure_urls: bool = False
    allow_private_networks: bool = False
    claim_timeout_ms: int = 30000
    response_snippet_bytes: int = 2048
    # The EventBridge buses an endpoint may deliver to (their ARNs); none: every bus refused.
    eventbridge_buses: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for arn in self.eventbridge_buses:
            if not _EVENT_BUS_ARN.fullmatch(arn):
                raise SettingsError(
                    f"WEBHOOKS_EVENTBRIDGE_BUSES: {arn[:200]!r} is not an event bus ARN "
                    "(arn:aws:events:<region>:<account>:event-bus/<name>)"
                )
        for option in fields(self):
            value = getattr(self, option.name)
            if isinstance(value, int) and not isinstance(value, bool) and value < 0:
                raise SettingsError(f"{camel(option.name)} must not be negative (got {value})")
        if self.batch_size == 0:
            raise SettingsError("batchSize must be greater than 0")
        if self.timeout_ms == 0:
            raise SettingsError("timeoutMs must be greater than 0")
        if self.max_attempts == 0:
            raise SettingsError("maxAttempts must be at least 1")
        if self.auto_disable_after == 0:
            raise SettingsError("autoDisableAfter must be at least 1")
        if self.claim_timeout_ms <= self.timeout_ms:
            raise SettingsError(
                f"claimTimeoutMs ({self.claim_timeout_ms}) must exceed timeoutMs "
                f"({self.timeout_ms}), or a slow attempt would be reclaimed while still running"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> WebhookOptions:
        """Reads the five `WEBHOOKS_*` variables (docs/development.md); the others keep defaults."""
        kwargs: dict[str, int | bool] = {}
        ints = {
            "WEBHOOKS_DELIVERY_INTERVAL": "delivery_interval_ms",
            "WEBHOOKS_TIMEOUT": "timeout_ms",
            "WEBHOOKS_RETENTION_DAYS": "retention_days",
        }
        bools = {
            "WEBHOOKS_ALLOW_INSECURE_URLS": "allow_insecure_urls",
            "WEBHOOKS_ALLOW_PRIVATE_NETWORKS": "allow_private_networks",
        }
        for variable, name in ints.items():
            if env.get(variable, "").strip():
                kwargs[name] = _parse_int(variable, env[variable])
        for variable, name in bools.items():
            if variable in env:
                kwargs[name] = _parse_bool(variable, env[variable])
        buses = tuple(
            arn.strip()
            for arn in env.get("WEBHOOKS_EVENTBRIDGE_BUSES", "").split(",")
            if arn.strip()
        )
        return cls(**kwargs, eventbridge_buses=buses)  # type: ignore[arg-type]


@dataclass(frozen=True)
class GraphQLLimits:
    """The GraphQL cost limits (docs/graphql.md, "Cost limits")."""

    max_query_length: int = 16384
    max_depth: int = 8
    max_fields: int = 500
    max_complexity: int = 1000
    schema_cache_ttl_seconds: int = 60

    def __post_init__(self) -> None:
        for option in fields(self):
            if getattr(self, option.name) <= 0:
                raise SettingsError(f"GraphQL limit {camel(option.name)} must be positive")


PASSWORD_COST = 17
"""scrypt N = 2^17, r = 8, p = 1: OWASP's password storage guidance."""
MIN_PASSWORD_COST, MAX_PASSWORD_COST = 10, 20

ASSETS_MAX_BYTES = 100 * 1024 * 1024
"""The default cap of one asset upload, signed into its presigned POST (`ASSETS_MAX_BYTES`)."""
ASSETS_MAX_BYTES_LIMIT = 5 * 1024**3
"""The most S3 takes in one POST or PUT: 5 GiB."""
ASSETS_ALLOWED_TYPES = (
    "image/jpeg",
    "image/png",
    "image/gif",
    "image/webp",
    "image/avif",
    "image/svg+xml",
    "application/pdf",
    "video/mp4",
    "video/webm",
    "audio/mpeg",
    "text/plain",
    "text/csv",
    "application/json",
    "application/zip",
)
"""The file types an asset may hold (`ASSETS_ALLOWED_TYPES`), as read from its bytes."""
ASSETS_MAX_PIXELS = 50_000_000
"""The largest image an asset may hold, width times height (`ASSETS_MAX_PIXELS`)."""

PURGED_CACHE_SECONDS = 86400
"""`CONTENT_CACHE_SECONDS` when an edge purge is configured (`EDGE_PURGE_URL` or
`EDGE_DISTRIBUTION_ID`) and the variable is not set: a day, since a change purges what it
alters instead of waiting for expiry."""

MAX_RATE_LIMIT = 1000
"""Requests per second one token may be given: its counter is one DynamoDB item a second."""

AUDIT_RETENTION_DAYS = 400
"""Days an audit record is kept (`AUDIT_RETENTION_DAYS`): a year and a bit, for yearly reviews."""
"""Requests per second one token may be given: its counter is one DynamoDB item a second."""


@dataclass(frozen=True)
class Delivery:
    """How content answers are cached and paced (docs/api.md, "Caching" and "Rate limits").

    `cache_seconds` is the `s-maxage` of a read token's answer (0: shared caches keep none);
    `stale_seconds` the `stale-while-revalidate` beside it, the time an edge may hand the old
    answer to the requests that arrive while it fetches the new one. `rate_limit` is the
    requests per second of a token without a `rateLimit` of its own (0: no default limit).
    `sync_settle_ms` is how old a change must be before a sync delta answers it: a write's
    change carries the time taken before its transaction commits, so a delta reading up to
    "now" could pass a change that commits a moment later with an earlier time.
    """

    cache_seconds: int = 60
    stale_seconds: int = 2
    rate_limit: int = 50
    sync_settle_ms: int = 5000

    def __post_init__(self) -> None:
        for option, variable in (
            ("cache_seconds", "CONTENT_CACHE_SECONDS"),
            ("stale_seconds", "CONTENT_CACHE_STALE_SECONDS"),
            ("rate_limit", "CONTENT_RATE_LIMIT"),
            ("sync_settle_ms", "SYNC_SETTLE_MS"),
        ):
            if getattr(self, option) < 0:
                raise SettingsError(f"{variable} must not be negative")
        if self.rate_limit > MAX_RATE_LIMIT:
            raise SettingsError(
                f"CONTENT_RATE_LIMIT must be at most {MAX_RATE_LIMIT} requests per second "
                "(one counter item takes about 1,000 writes a second)"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Delivery:
        kwargs = {
            name: _parse_int(variable, env[variable])
            for variable, name in {
                "CONTENT_CACHE_SECONDS": "cache_seconds",
                "CONTENT_CACHE_STALE_SECONDS": "stale_seconds",
                "CONTENT_RATE_LIMIT": "rate_limit",
                "SYNC_SETTLE_MS": "sync_settle_ms",
            }.items()
            if env.get(variable, "").strip()
        }
        purged = any(env.get(v, "").strip() for v in ("EDGE_PURGE_URL", "EDGE_DISTRIBUTION_ID"))
        if "cache_seconds" not in kwargs and purged:
            kwargs["cache_seconds"] = PURGED_CACHE_SECONDS
        return cls(**kwargs)


@dataclass(frozen=True)
class Tables:
    """Physical names of the tables and the queues, as the template's Refs give them."""

    content: str = "ContentTable"
    schema: str = "SchemaTable"
    events: str = "EventsTable"
    endpoints: str = "EndpointsTable"
    deliveries: str = "DeliveriesTable"
    persisted_queries: str = "PersistedQueriesTable"
    rate_limits: str = "RateLimitsTable"
    audit: str = "AuditTable"
    delivery_queue_url: str = ""
    fanout_failure_queue_url: str = ""
    purge_failure_queue_url: str = ""
    delivery_dlq_url: str = ""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Tables:
        return cls(
            content=env.get("CONTENT_TABLE", Tables.content),
            schema=env.get("SCHEMA_TABLE", Tables.schema),
            events=env.get("EVENTS_TABLE", Tables.events),
            endpoints=env.get("ENDPOINTS_TABLE", Tables.endpoints),
            deliveries=env.get("DELIVERIES_TABLE", Tables.deliveries),
            persisted_queries=env.get("PERSISTED_QUERIES_TABLE", Tables.persisted_queries),
            rate_limits=env.get("RATE_LIMITS_TABLE", Tables.rate_limits),
            audit=env.get("AUDIT_TABLE", Tables.audit),
            delivery_queue_url=env.get("DELIVERY_QUEUE_URL", ""),
            fanout_failure_queue_url=env.get("FANOUT_FAILURE_QUEUE_URL", ""),
            purge_failure_queue_url=env.get("PURGE_FAILURE_QUEUE_URL", ""),
            delivery_dlq_url=env.get("DELIVERY_DLQ_URL", ""),
        )


@dataclass(frozen=True)
class Settings:
    """Everything a handler needs to know about its environment."""

    region: str = "us-east-1"
    aws_endpoint_url: str | None = None
    tables: Tables = field(default_factory=Tables)
    webhooks: WebhookOptions = field(default_factory=WebhookOptions)
    graphql: GraphQLLimits = field(default_factory=GraphQLLimits)
    delivery: Delivery = field(default_factory=Delivery)
    public_base_url: str = ""
    allowed_origins: tuple[str, ...] = ()
    api_reference_enabled: bool = False
    session_key_parameter: str = ""
    session_key_file: Path | None = None
    session_max_age_seconds: int = 8 * 3600
    log_level: str = "INFO"
    alarm_topic_arn: str = ""
    secrets_key_arn: str = ""
    edge_origin_secret: str = field(default="", repr=False)
    """The value our CloudFront distribution sends in `X-Origin-Verify` (`EDGE_ORIGIN_SECRET`);
    only a request carrying it has its `CloudFront-Viewer-Address` believed. Empty: none is."""
    edge_purge_url: str = ""
    """Where the purge function sends an edge its purges (`EDGE_PURGE_URL`: a Varnish with xkey,
    say); empty: no edge is purged (`edge.purgers`)."""
    edge_distribution_id: str = ""
    """The CloudFront distribution the purge function invalidates (`EDGE_DISTRIBUTION_ID`, the
    template's `EdgeDistribution`); empty: none (`edge.purgers`)."""
    assets_bucket: str = ""
    """The bucket asset uploads go to (`ASSETS_BUCKET`, the template's `AssetsBucket`)."""
    assets_max_bytes: int = ASSETS_MAX_BYTES
    """The largest upload a presigned POST allows, in bytes (`ASSETS_MAX_BYTES`)."""
    assets_allowed_types: tuple[str, ...] = ASSETS_ALLOWED_TYPES
    """The types processing accepts; any other fails the asset (`ASSETS_ALLOWED_TYPES`)."""
    assets_max_pixels: int = ASSETS_MAX_PIXELS
    """An image with more pixels fails its asset (`ASSETS_MAX_PIXELS`)."""
    media_function_name: str = ""
    """The media function that inspects uploads (`MEDIA_FUNCTION_NAME`); empty: this process
    does (docs/assets.md, "On AWS")."""
    password_cost: int = PASSWORD_COST
    """log2 of scrypt's N for new password hashes (`identity.passwords`). Only tests lower it,
    as Django's tests use a fast hasher: a sign-in then costs milliseconds, not most of a
    second, and the hashing itself is tested at the default."""
    audit_retention_days: int = AUDIT_RETENTION_DAYS
    """How long an audit record is kept before DynamoDB's TTL removes it
    (`AUDIT_RETENTION_DAYS`)."""

    def __post_init__(self) -> None:
        if self.edge_purge_url and not self.edge_purge_url.startswith(("http://", "https://")):
            raise SettingsError(f"EDGE_PURGE_URL {self.edge_purge_url!r} must be an http(s) URL")
        for origin in (self.public_base_url, *self.allowed_origins):
            if origin and not origin.startswith(("http://", "https://")):
                raise SettingsError(f"origin {origin!r} must start with http:// or https://")
        if self.session_max_age_seconds <= 0:
            raise SettingsError("session max age must be positive")
        if not 1 <= self.assets_max_bytes <= ASSETS_MAX_BYTES_LIMIT:
            raise SettingsError(
                f"ASSETS_MAX_BYTES must be from 1 to {ASSETS_MAX_BYTES_LIMIT} bytes (5 GiB, the "
                f"most S3 takes in one upload), not {self.assets_max_bytes}"
            )
        if self.assets_max_pixels <= 0 or not self.assets_allowed_types:
            raise SettingsError(
                "ASSETS_MAX_PIXELS must be positive and ASSETS_ALLOWED_TYPES name a type"
            )
        if self.audit_retention_days <= 0:
            raise SettingsError("AUDIT_RETENTION_DAYS must be a positive number of days")
        if not MIN_PASSWORD_COST <= self.password_cost <= MAX_PASSWORD_COST:
            raise SettingsError(
                f"PASSWORD_HASH_COST must be from {MIN_PASSWORD_COST} to {MAX_PASSWORD_COST}"
                f" (log2 of scrypt's N), not {self.password_cost}"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        graphql_kwargs = {
            name: _parse_int(variable, env[variable])
            for variable, name in {
                "GRAPHQL_MAX_QUERY_LENGTH": "max_query_length",
                "GRAPHQL_MAX_DEPTH": "max_depth",
                "GRAPHQL_MAX_FIELDS": "max_fields",
                "GRAPHQL_MAX_COMPLEXITY": "max_complexity",
                "GRAPHQL_SCHEMA_CACHE_TTL": "schema_cache_ttl_seconds",
            }.items()
            if env.get(variable, "").strip()
        }
        key_file = env.get("SESSION_KEY_FILE", "").strip()
        cost = env.get("PASSWORD_HASH_COST", "").strip()
        max_bytes = env.get("ASSETS_MAX_BYTES", "").strip()
        return cls(
            region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
            aws_endpoint_url=env.get("AWS_ENDPOINT_URL") or None,
            tables=Tables.from_env(env),
            webhooks=WebhookOptions.from_env(env),
            graphql=GraphQLLimits(**graphql_kwargs),
            delivery=Delivery.from_env(env),
            public_base_url=env.get("PUBLIC_BASE_URL", "").strip().rstrip("/"),
            allowed_origins=tuple(
                o.strip().rstrip("/")
                for o in env.get("ALLOWED_ORIGINS", "").split(",")
                if o.strip()
            ),
            api_reference_enabled=_parse_bool(
                "API_REFERENCE_ENABLED", env.get("API_REFERENCE_ENABLED", "false")
            ),
            session_key_parameter=env.get("SESSION_KEY_PARAMETER", "").strip(),
            session_key_file=Path(key_file) if key_file else None,
            log_level=env.get("LOG_LEVEL", "INFO"),
            alarm_topic_arn=env.get("ALARM_TOPIC_ARN", "").strip(),
            secrets_key_arn=env.get("SECRETS_KEY_ARN", "").strip(),
            edge_origin_secret=env.get("EDGE_ORIGIN_SECRET", "").strip(),
            edge_purge_url=env.get("EDGE_PURGE_URL", "").strip(),
            edge_distribution_id=env.get("EDGE_DISTRIBUTION_ID", "").strip(),
            assets_bucket=env.get("ASSETS_BUCKET", "").strip(),
            assets_max_bytes=(
                _parse_int("ASSETS_MAX_BYTES", max_bytes) if max_bytes else ASSETS_MAX_BYTES
            ),
            media_function_name=env.get("MEDIA_FUNCTION_NAME", "").strip(),
            password_cost=_parse_int("PASSWORD_HASH_COST", cost) if cost else PASSWORD_COST,
            audit_retention_days=_int_or(env, "AUDIT_RETENTION_DAYS", AUDIT_RETENTION_DAYS),
            **_assets_processing(env),
        )


def _int_or(env: Mapping[str, str], variable: str, default: int) -> int:
    """The variable as an integer, or `default` when it is unset or empty."""
    raw = env.get(variable, "").strip()
    return _parse_int(variable, raw) if raw else default


def _assets_processing(env: Mapping[str, str]) -> dict[str, Any]:
    """`ASSETS_ALLOWED_TYPES` (a comma list of media types) and `ASSETS_MAX_PIXELS`."""
    chosen: dict[str, Any] = {}
    allowed = env.get("ASSETS_ALLOWED_TYPES", "").strip()
    if allowed:
        chosen["assets_allowed_types"] = tuple(
            dict.fromkeys(t.strip().lower() for t in allowed.split(",") if t.strip())
        )
    pixels = env.get("ASSETS_MAX_PIXELS", "").strip()
    if pixels:
        chosen["assets_max_pixels"] = _parse_int("ASSETS_MAX_PIXELS", pixels)
    return chosen
