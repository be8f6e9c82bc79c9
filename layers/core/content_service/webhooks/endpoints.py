"""The endpoint registry (spec 2.3, 4.2, CONTRACT.md "Webhooks API"): the service behind the
admin routes. Create, read, update, delete, rotate the secret, re-enable, the delivery log,
redeliver and the send test. Everything the routes accept is validated here, so a refusal is a
`ServiceError` (400/404/409/422) and never a 500.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from content_service.clock import iso_utc
from content_service.errors import BadRequest, Conflict, NotFound, ValidationFailed
from content_service.identity.workspaces import resolve_workspace
from content_service.settings import Settings

from . import services, wiring
from .catalogue import SUBSCRIBABLE_KINDS, is_known_kind
from .custom_headers import HeaderRuleError, validate_custom_headers
from .deliveries import STATUSES, DeliveryRow, Page
from .endpoint_secrets import mint_secret
from .endpoint_store import Endpoint
from .envelope import refreeze
from .fanout import ENQUEUE_GRACE_SECONDS
from .ping import PingResult, send_ping
from .url_policy import UnresolvableHost, UrlRefused, check_url

MAX_WORKSPACES = 100
MAX_CONTENT_TYPES = 200
DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
_CONTENT_TYPE_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


@dataclass(frozen=True)
class EndpointInput:
    url: str
    workspaces: tuple[str, ...] = ()
    all_workspaces: bool = False
    events: tuple[str, ...] = ()
    content_types: tuple[str, ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True


@dataclass(frozen=True)
class EndpointPatch:
    """Fields to change; None leaves a field as it is."""

    url: str | None = None
    workspaces: tuple[str, ...] | None = None
    all_workspaces: bool | None = None
    events: tuple[str, ...] | None = None
    content_types: tuple[str, ...] | None = None
    headers: Mapping[str, str] | None = None
    enabled: bool | None = None


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _valid_id(endpoint_id: str, what: str = "webhook endpoint") -> str:
    try:
        return str(uuid.UUID(endpoint_id))
    except ValueError:
        raise NotFound(f"{what} {endpoint_id[:80]!r} not found") from None


class EndpointRegistry:
    def __init__(self, settings: Settings, deps: wiring.Dependencies | None = None) -> None:
        self._settings = settings
        self._options = settings.webhooks
        self._deps = deps or wiring.dependencies()
        self._endpoints = services.endpoint_store(settings)
        self._deliveries = services.delivery_store(settings)

    # -- validation ----------------------------------------------------------------------

    def check_url(self, url: str) -> str:
        try:
            check_url(url, wiring.url_policy(self._options), self._deps.resolver)
        except UrlRefused as refused:
            raise ValidationFailed(
                f"url refused by the URL policy: {refused.reason}",
                details={"field": "url", "reason": refused.reason},
            ) from None
        except UnresolvableHost as unresolvable:
            raise ValidationFailed(
                f"url host could not be resolved: {unresolvable.reason}",
                details={"field": "url", "reason": unresolvable.reason},
            ) from None
        return url

    def _check_events(self, events: Iterable[str]) -> tuple[str, ...]:
        checked = _unique(events)
        unknown = [kind for kind in checked if kind not in SUBSCRIBABLE_KINDS]
        if unknown:
            raise ValidationFailed(
                f"unknown or unsubscribable event kind(s): {', '.join(unknown[:10])}",
                details={"field": "events", "allowed": sorted(SUBSCRIBABLE_KINDS)},
            )
        return checked

    def _check_content_types(self, names: Iterable[str]) -> tuple[str, ...]:
        checked = _unique(names)
        if len(checked) > MAX_CONTENT_TYPES:
            raise ValidationFailed(f"at most {MAX_CONTENT_TYPES} content types")
        bad = [n for n in checked if not _CONTENT_TYPE_NAME.fullmatch(n)]
        if bad:
            raise ValidationFailed(
                f"content type names must be snake_case: {', '.join(repr(n[:64]) for n in bad)}",
                details={"field": "contentTypes"},
            )
        return checked

    def _check_workspaces(self, references: Iterable[str]) -> tuple[str, ...]:
        wanted = _unique(references)
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
        return _unique(ids)

    @staticmethod
    def _check_headers(headers: Mapping[str, object]) -> dict[str, str]:
        try:
            return validate_custom_headers(headers)
        except HeaderRuleError as error:
            raise ValidationFailed(str(error), details={"field": "headers"}) from None

    # -- endpoints -----------------------------------------------------------------------

    def create(self, spec: EndpointInput) -> Endpoint:
        now = iso_utc(self._deps.clock.now())
        endpoint = Endpoint(
            id=str(uuid.uuid4()),
            url=self.check_url(spec.url),
            secret=mint_secret(),
            workspaces=self._check_workspaces(spec.workspaces),
            all_workspaces=spec.all_workspaces,
            events=self._check_events(spec.events),
            content_types=self._check_content_types(spec.content_types),
            headers=self._check_headers(spec.headers),
            enabled=spec.enabled,
            disabled_reason=None if spec.enabled else "created disabled",
            created_at=now,
            updated_at=now,
        )
        self._endpoints.insert(endpoint)
        return endpoint

    def get(self, endpoint_id: str) -> Endpoint:
        endpoint = self._endpoints.get(_valid_id(endpoint_id))
        if endpoint is None:
            raise NotFound(f"webhook endpoint {endpoint_id} not found")
        return endpoint

    def list(self) -> list[tuple[Endpoint, DeliveryRow | None]]:
        """Every endpoint, oldest first, each with its latest delivery (or None)."""
        endpoints = sorted(self._endpoints.all(), key=lambda e: (e.created_at, e.id))
        return [(e, self._deliveries.latest_for_endpoint(e.id)) for e in endpoints]

    def update(self, endpoint_id: str, patch: EndpointPatch) -> Endpoint:
        current = self.get(endpoint_id)
        sets: dict[str, Any] = {"updatedAt": iso_utc(self._deps.clock.now())}
        removes: tuple[str, ...] = ()
        if patch.url is not None:
            sets["url"] = self.check_url(patch.url)
        if patch.workspaces is not None:
            sets["workspaces"] = list(self._check_workspaces(patch.workspaces))
        if patch.all_workspaces is not None:
            sets["allWorkspaces"] = patch.all_workspaces
        if patch.events is not None:
            sets["events"] = list(self._check_events(patch.events))
        if patch.content_types is not None:
            sets["contentTypes"] = list(self._check_content_types(patch.content_types))
        if patch.headers is not None:
            sets["headers"] = self._check_headers(patch.headers)
        if patch.enabled is True:
            # Re-enabling clears the run of dead deliveries (spec 3.2, 8.4.1).
            sets.update(enabled=True, consecutiveDead=0)
            removes = ("disabledReason",)
        elif patch.enabled is False and current.enabled:
            sets.update(enabled=False, disabledReason="disabled by an administrator")
        updated = self._endpoints.update(current.id, sets, removes)
        if updated is None:
            raise NotFound(f"webhook endpoint {endpoint_id} not found")
        return updated

    def delete(self, endpoint_id: str) -> None:
        if not self._endpoints.delete(_valid_id(endpoint_id)):
            raise NotFound(f"webhook endpoint {endpoint_id} not found")

    def rotate_secret(self, endpoint_id: str) -> Endpoint:
        """A new secret signs every later send, queued rows included (spec 6.3.5)."""
        current = self.get(endpoint_id)
        updated = self._endpoints.update(
            current.id, {"secret": mint_secret(), "updatedAt": iso_utc(self._deps.clock.now())}
        )
        if updated is None:
            raise NotFound(f"webhook endpoint {endpoint_id} not found")
        return updated

    def ping(self, endpoint_id: str, actor: Mapping[str, str] | None) -> PingResult:
        endpoint = self.get(endpoint_id)
        sender = wiring.make_sender(
            self._options, self._deps, snippet_bytes=wiring.PING_SNIPPET_BYTES
        )
        with sender:
            return send_ping(endpoint, actor, sender, self._deps.clock)

    # -- deliveries ----------------------------------------------------------------------

    def deliveries(
        self,
        endpoint_id: str,
        *,
        status: str | None = None,
        event: str | None = None,
        cursor: str | None = None,
        limit: int = DEFAULT_PAGE_SIZE,
    ) -> Page:
        endpoint = self.get(endpoint_id)
        if status is not None and status not in STATUSES:
            raise BadRequest(f"status must be one of {', '.join(STATUSES)}")
        if event is not None and not is_known_kind(event):
            raise BadRequest(f"event {event[:80]!r} is not in the event catalogue")
        if not 1 <= limit <= MAX_PAGE_SIZE:
            raise BadRequest(f"limit must be from 1 to {MAX_PAGE_SIZE}")
        return self._deliveries.page_for_endpoint(
            endpoint.id, limit=limit, cursor=cursor or None, status=status, event=event
        )

    def delivery(self, endpoint_id: str, delivery_id: str) -> DeliveryRow:
        endpoint = self.get(endpoint_id)
        row = self._deliveries.get(_valid_id(delivery_id, "delivery"))
        if row is None or row.endpoint_id != endpoint.id:
            # Another endpoint's delivery is as good as absent here (spec 7.2).
            raise NotFound(f"delivery {delivery_id} not found for this endpoint")
        return row

    def redeliver(self, endpoint_id: str, delivery_id: str) -> DeliveryRow:
        """A new pending row: new id, same event id, the body re-frozen with the new id."""
        original = self.delivery(endpoint_id, delivery_id)
        endpoint = self.get(endpoint_id)
        if not endpoint.enabled:
            raise Conflict("the endpoint is disabled; re-enable it before redelivering")
        now = self._deps.clock.now()
        new_id = str(uuid.uuid4())
        row = DeliveryRow(
            id=new_id,
            endpoint_id=original.endpoint_id,
            event_id=original.event_id,
            event=original.event,
            workspace_id=original.workspace_id,
            status="pending",
            request_body=refreeze(original.body_bytes, new_id).decode("utf-8"),
            created_at=iso_utc(now),
            updated_at=iso_utc(now),
            sweep_at=iso_utc(now + ENQUEUE_GRACE_SECONDS),
        )
        self._deliveries.insert_one(row)
        services.delivery_queue(self._settings).enqueue([row.id])
        return row
