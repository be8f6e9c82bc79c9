"""The checks of an endpoint's subscription settings (events, content types, workspaces, rate
limit, custom headers): each answers the cleaned value or a 422 naming the field."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from content_service.errors import NotFound, ValidationFailed
from content_service.identity.workspaces import resolve_workspace

from ..sending import MAX_RATE_LIMIT
from .catalogue import SUBSCRIBABLE_KINDS
from .custom_headers import HeaderRuleError, validate_custom_headers
from .url_policy import UrlPolicy, UrlRefused, check_url_syntax

MAX_WORKSPACES = 100
MAX_CONTENT_TYPES = 200
_CONTENT_TYPE_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


def unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def check_events(events: Iterable[str]) -> tuple[str, ...]:
    checked = unique(events)
    unknown = [kind for kind in checked if kind not in SUBSCRIBABLE_KINDS]
    if unknown:
        raise ValidationFailed(
            f"unknown or unsubscribable event kind(s): {', '.join(unknown[:10])}",
            details={"field": "events", "allowed": sorted(SUBSCRIBABLE_KINDS)},
        )
    return checked


def check_content_types(names: Iterable[str]) -> tuple[str, ...]:
    checked = unique(names)
    if len(checked) > MAX_CONTENT_TYPES:
        raise ValidationFailed(f"at most {MAX_CONTENT_TYPES} content types")
    bad = [n for n in checked if not _CONTENT_TYPE_NAME.fullmatch(n)]
    if bad:
        raise ValidationFailed(
            f"content type names must be snake_case: {', '.join(repr(n[:64]) for n in bad)}",
            details={"field": "contentTypes"},
        )
    return checked


def check_workspaces(references: Iterable[str]) -> tuple[str, ...]:
    wanted = unique(references)
    if len(wanted) > MAX_WORKSPACES:
        raise ValidationFailed(f"at most {MAX_WORKSPACES} workspaces")
    ids = []
    for reference in wanted:
        try:
            ids.append(resolve_workspace(reference).id)
        except NotFound:
            raise ValidationFailed(
                f"workspace {reference[:80]!r} does not exist",
                details={"field": "workspaces"},
            ) from None
    return unique(ids)


def check_rate_limit(limit: int | None) -> int | None:
    if limit is not None and not 1 <= limit <= MAX_RATE_LIMIT:
        raise ValidationFailed(
            f"rateLimit must be from 1 to {MAX_RATE_LIMIT} deliveries per second, or null "
            f"for none (not {limit})",
            details={"field": "rateLimit", "max": MAX_RATE_LIMIT},
        )
    return limit


def check_headers(headers: Mapping[str, object]) -> dict[str, str]:
    try:
        return validate_custom_headers(headers)
    except HeaderRuleError as error:
        raise ValidationFailed(str(error), details={"field": "headers"}) from None


def url_problem(what: str, reason: str) -> ValidationFailed:
    """The 422 of a refused `url`: what is wrong with it, and the policy's reason as a detail."""
    return ValidationFailed(f"url {what}: {reason}", details={"field": "url", "reason": reason})


def check_listener_url(url: str) -> str:
    """A pull endpoint's URL is where its listener forwards (a label: never connected to
    by the service), so only its form is checked."""
    try:
        check_url_syntax(url, UrlPolicy(allow_insecure_urls=True, allow_private_networks=True))
    except UrlRefused as refused:
        raise url_problem("is not a URL a listener can forward to", refused.reason) from None
    return url
