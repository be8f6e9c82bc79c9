"""Webhook endpoints: the registry the admin API calls, the endpoints table, the checks of
an endpoint's settings, its secrets, health and custom headers, the URL policy, the event
catalogue it subscribes from, the send test and the receivers' verification snippets.

Other packages import only the names below; each loads its module on first use (D146).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .catalogue import (
        CATALOGUE,
        ENDPOINT_SUBJECT,
        ENTRY_EVENT_KINDS,
        OPERATIONAL_KINDS,
        PING,
        SUBSCRIBABLE_KINDS,
        catalogue_json,
        example_envelope,
        is_known_kind,
    )
    from .custom_headers import (
        MAX_HEADERS,
        RESERVED_HEADER_NAMES,
        RESERVED_PREFIX,
        HeaderRuleError,
        check_header_value,
        is_valid_header_name,
        rules_json,
        validate_custom_headers,
    )
    from .endpoint_health import STATS_WINDOWS, Health, StatsSeries
    from .endpoint_registry import (
        DEFAULT_PAGE_SIZE,
        MAX_PAGE_SIZE,
        MAX_PULL_WAIT_SECONDS,
        EndpointInput,
        EndpointPatch,
        EndpointRegistry,
    )
    from .endpoint_secrets import (
        MAX_OLDER_SECRETS,
        OlderSecret,
        SecretRing,
        SignatureScheme,
        mint_secret,
        secret_hint,
        standard_key,
    )
    from .endpoint_store import AlertState, Endpoint, EndpointStore, sealing_context
    from .ping import send_test_envelope
    from .times import parse_instant
    from .url_policy import (
        CheckedTarget,
        Resolver,
        SystemResolver,
        UnresolvableHost,
        UrlPolicy,
        UrlPolicyError,
        UrlRefused,
        check_url,
        check_url_syntax,
        classify_address,
        parse_ipv4_spelling,
    )
    from .verification_snippets import NODE, PYTHON, SNIPPETS, STANDARD_PYTHON, STANDARD_SNIPPETS

__all__ = [
    "CATALOGUE",
    "DEFAULT_PAGE_SIZE",
    "ENDPOINT_SUBJECT",
    "ENTRY_EVENT_KINDS",
    "MAX_HEADERS",
    "MAX_OLDER_SECRETS",
    "MAX_PAGE_SIZE",
    "MAX_PULL_WAIT_SECONDS",
    "NODE",
    "OPERATIONAL_KINDS",
    "PING",
    "PYTHON",
    "RESERVED_HEADER_NAMES",
    "RESERVED_PREFIX",
    "SNIPPETS",
    "STANDARD_PYTHON",
    "STANDARD_SNIPPETS",
    "STATS_WINDOWS",
    "SUBSCRIBABLE_KINDS",
    "AlertState",
    "CheckedTarget",
    "Endpoint",
    "EndpointInput",
    "EndpointPatch",
    "EndpointRegistry",
    "EndpointStore",
    "HeaderRuleError",
    "Health",
    "OlderSecret",
    "Resolver",
    "SecretRing",
    "SignatureScheme",
    "StatsSeries",
    "SystemResolver",
    "UnresolvableHost",
    "UrlPolicy",
    "UrlPolicyError",
    "UrlRefused",
    "catalogue_json",
    "check_header_value",
    "check_url",
    "check_url_syntax",
    "classify_address",
    "example_envelope",
    "is_known_kind",
    "is_valid_header_name",
    "mint_secret",
    "parse_instant",
    "parse_ipv4_spelling",
    "rules_json",
    "sealing_context",
    "secret_hint",
    "send_test_envelope",
    "standard_key",
    "validate_custom_headers",
]

_MODULES = {
    "AlertState": "endpoint_store",
    "CATALOGUE": "catalogue",
    "CheckedTarget": "url_policy",
    "DEFAULT_PAGE_SIZE": "endpoint_registry",
    "ENDPOINT_SUBJECT": "catalogue",
    "ENTRY_EVENT_KINDS": "catalogue",
    "Endpoint": "endpoint_store",
    "EndpointInput": "endpoint_registry",
    "EndpointPatch": "endpoint_registry",
    "EndpointRegistry": "endpoint_registry",
    "EndpointStore": "endpoint_store",
    "HeaderRuleError": "custom_headers",
    "Health": "endpoint_health",
    "MAX_HEADERS": "custom_headers",
    "MAX_OLDER_SECRETS": "endpoint_secrets",
    "MAX_PAGE_SIZE": "endpoint_registry",
    "MAX_PULL_WAIT_SECONDS": "endpoint_registry",
    "NODE": "verification_snippets",
    "OPERATIONAL_KINDS": "catalogue",
    "OlderSecret": "endpoint_secrets",
    "PING": "catalogue",
    "PYTHON": "verification_snippets",
    "RESERVED_HEADER_NAMES": "custom_headers",
    "RESERVED_PREFIX": "custom_headers",
    "Resolver": "url_policy",
    "SNIPPETS": "verification_snippets",
    "STANDARD_PYTHON": "verification_snippets",
    "STANDARD_SNIPPETS": "verification_snippets",
    "STATS_WINDOWS": "endpoint_health",
    "SUBSCRIBABLE_KINDS": "catalogue",
    "SecretRing": "endpoint_secrets",
    "SignatureScheme": "endpoint_secrets",
    "StatsSeries": "endpoint_health",
    "SystemResolver": "url_policy",
    "UnresolvableHost": "url_policy",
    "UrlPolicy": "url_policy",
    "UrlPolicyError": "url_policy",
    "UrlRefused": "url_policy",
    "catalogue_json": "catalogue",
    "check_header_value": "custom_headers",
    "check_url": "url_policy",
    "check_url_syntax": "url_policy",
    "classify_address": "url_policy",
    "example_envelope": "catalogue",
    "is_known_kind": "catalogue",
    "is_valid_header_name": "custom_headers",
    "mint_secret": "endpoint_secrets",
    "parse_instant": "times",
    "parse_ipv4_spelling": "url_policy",
    "rules_json": "custom_headers",
    "sealing_context": "endpoint_store",
    "secret_hint": "endpoint_secrets",
    "send_test_envelope": "ping",
    "standard_key": "endpoint_secrets",
    "validate_custom_headers": "custom_headers",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, _MODULES)
