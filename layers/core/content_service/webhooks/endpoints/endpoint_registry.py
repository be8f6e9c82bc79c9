"""The endpoint registry (docs/api.md, "Webhooks"; docs/webhooks.md): the service behind the
admin routes. Create, read, update, delete, rotate the secret, re-enable, the delivery log,
redeliver and the send test. Everything the routes accept is validated here, so a refusal is a
`ServiceError` (400/404/409/422) and never a 500.
"""

from __future__ import annotations

import dataclasses
import re
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from content_service.audit.endpoint_changes import (
    created_changes,
    endpoint_record,
    update_action,
    updated_changes,
)
from content_service.audit.records import COMMAND_LINE, Actor
from content_service.clock import iso_utc
from content_service.errors import BadRequest, Conflict, NotFound, ValidationFailed
from content_service.settings import Settings
from content_service.storage.dynamo import TransactionCancelled, transact

from .. import services, wiring
from ..deliveries import (
    DEFAULT_STATUSES,
    ENQUEUE_GRACE_SECONDS,
    RECOVERABLE_STATUSES,
    STATUSES,
    DeliveryRow,
    LogSearch,
    Page,
    Recovery,
    new_recovery,
    recovery_key,
)
from ..operations import DISABLED
from ..sending import RETRY_SWEEP_GRACE_SECONDS
from .catalogue import PING, is_known_kind
from .endpoint_checks import (
    check_content_types,
    check_events,
    check_headers,
    check_listener_url,
    check_rate_limit,
    check_workspaces,
    unique,
    url_problem,
)
from .endpoint_health import HEALTH_WINDOW_SECONDS, STATS_WINDOWS, Health, StatsSeries
from .endpoint_secrets import MAX_GRACE_SECONDS, SignatureScheme, mint_secret
from .endpoint_store import Endpoint, EndpointSettings, EndpointType, Mode
from .ping import PingResult, send_ping
from .times import parse_instant
from .url_policy import UnresolvableHost, UrlRefused, check_url

DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
# A pull endpoint's listener renews this lease at every fetch; past it, the endpoint stops.
LISTENER_LEASE_SECONDS = 120
# A listener fetches rows created at least this long ago, so a row the index shows a moment
# late (another process's clock, index lag) is not skipped by a cursor already past it.
PULL_SETTLE_SECONDS = 2
PULL_BATCH = 50
MAX_PULL_WAIT_SECONDS = 20
_PULL_CURSOR = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[0-9a-f-]{36}")
ADMIN_DISABLED = "disabled by an administrator"


@dataclass(frozen=True, kw_only=True)
class EndpointInput(EndpointSettings):
    url: str | None = None
    mode: Mode = "push"
    signature_scheme: SignatureScheme = "service"
    rate_limit: int | None = None
    type: EndpointType = "http"
    event_bus_arn: str | None = None


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
    signature_scheme: SignatureScheme | None = None
    rate_limit: int | None = None
    clear_rate_limit: bool = False
    type: EndpointType | None = None
    event_bus_arn: str | None = None


def _valid_id(endpoint_id: str, what: str = "webhook endpoint") -> str:
    try:
        return str(uuid.UUID(endpoint_id))
    except ValueError:
        raise NotFound(f"{what} {endpoint_id[:80]!r} not found") from None


def _as_written(current: Endpoint, sets: Mapping[str, Any], removes: tuple[str, ...]) -> Endpoint:
    """The endpoint an update wrote, built from what it was and what the update set (a
    transaction returns no item, and reading it back would cost the write a request)."""
    values = {**current.to_values(), **sets, "version": current.version + 1}
    for name in removes:
        values.pop(name, None)
    return Endpoint.from_values(values)


def _together(*items: Any) -> None:
    """A change and its audit record in one transaction: both are written or neither."""
    transact(list(items))


class EndpointRegistry:
    def __init__(self, settings: Settings, deps: wiring.Dependencies | None = None) -> None:
        self._settings = settings
        self._options = settings.webhooks
        self._deps = deps or wiring.dependencies()
        self._endpoints = services.endpoint_store(settings)
        self._deliveries = services.delivery_store(settings)

    def check_url(self, url: str) -> str:
        try:
            check_url(url, wiring.url_policy(self._options), self._deps.resolver)
        except UrlRefused as refused:
            raise url_problem("refused by the URL policy", refused.reason) from None
        except UnresolvableHost as unresolvable:
            raise url_problem("host could not be resolved", unresolvable.reason) from None
        return url

    # -- endpoints -----------------------------------------------------------------------

    def check_event_bus(self, arn: str | None) -> str:
        """An EventBridge endpoint's bus must be on the allow-list (none: every bus refused)."""
        if not arn:
            raise ValidationFailed(
                "eventBusArn is required for an eventbridge endpoint",
                details={"field": "eventBusArn"},
            )
        if arn not in self._options.eventbridge_buses:
            allowed = self._options.eventbridge_buses
            raise ValidationFailed(
                f"event bus {arn[:300]!r} is not on the allow-list (WEBHOOKS_EVENTBRIDGE_BUSES"
                + (f": {', '.join(allowed)})" if allowed else " is empty: every bus is refused)"),
                details={"field": "eventBusArn", "allowed": list(allowed)},
            )
        return arn

    def _destination(self, spec: EndpointInput) -> tuple[str, str | None]:
        """(url, event bus ARN) of a new endpoint: an http endpoint has a URL and no bus, an
        eventbridge endpoint a bus and nothing an HTTP request would carry."""
        if spec.type == "eventbridge":
            refused = {
                "url": spec.url is not None,
                "headers": bool(spec.headers),
                "mode": spec.mode == "pull",
                "signatureScheme": spec.signature_scheme != "service",
            }
            for name, present in refused.items():
                if present:
                    raise ValidationFailed(
                        f"{name} does not apply to an eventbridge endpoint: EventBridge "
                        "authenticates the delivery function, and nothing is sent over HTTP",
                        details={"field": name},
                    )
            return "", self.check_event_bus(spec.event_bus_arn)
        if spec.event_bus_arn is not None:
            raise ValidationFailed(
                'eventBusArn is for an endpoint of type "eventbridge"',
                details={"field": "eventBusArn"},
            )
        if spec.url is None:
            raise ValidationFailed("url is required", details={"field": "url"})
        check = check_listener_url if spec.mode == "pull" else self.check_url
        return check(spec.url), None

    def create(self, spec: EndpointInput, by: Actor = COMMAND_LINE) -> Endpoint:
        """A new endpoint and its `webhook.created` record, in one transaction."""
        now = self._deps.clock.now()
        pull = spec.mode == "pull"
        url, bus = self._destination(spec)
        endpoint = Endpoint(
            id=str(uuid.uuid4()),
            url=url,
            type=spec.type,
            event_bus_arn=bus,
            secret=mint_secret(spec.signature_scheme),
            signature_scheme=spec.signature_scheme,
            workspaces=check_workspaces(spec.workspaces),
            all_workspaces=spec.all_workspaces,
            events=check_events(spec.events),
            content_types=check_content_types(spec.content_types),
            headers=check_headers(spec.headers),
            enabled=spec.enabled,
            disabled_reason=None if spec.enabled else "created disabled",
            created_at=iso_utc(now),
            updated_at=iso_utc(now),
            mode=spec.mode,
            lease_expires_at=iso_utc(now + LISTENER_LEASE_SECONDS) if pull else None,
            rate_limit=check_rate_limit(spec.rate_limit),
        )
        put = self._endpoints.insert_request(endpoint)
        changes = created_changes(endpoint.to_values())
        _together({"Put": put}, endpoint_record("created", by, endpoint.id, now, changes))
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

    def update(self, endpoint_id: str, patch: EndpointPatch, by: Actor = COMMAND_LINE) -> Endpoint:
        """The patch and its one record (`webhook.updated`, `.enabled` or `.disabled`) in one
        transaction; an administrator's disable carries its endpoint.disabled notice too."""
        current = self.get(endpoint_id)
        sets, removes = self._changes(current, patch)
        if patch.enabled is True:
            # Re-enabling clears the run of dead deliveries (docs/webhooks.md, "State machine").
            sets.update(enabled=True, consecutiveDead=0)
            removes = (*removes, "disabledReason")
        elif patch.enabled is False and current.enabled:
            sets.update(enabled=False, disabledReason=ADMIN_DISABLED)
            if not current.pull and self._disable_with_notice(current, sets, removes, by):
                return self.get(current.id)
            # Disabled meanwhile (by the worker, say): the rest of the change still applies.
            sets = {k: v for k, v in sets.items() if k not in ("enabled", "disabledReason")}
        request = self._endpoints.update_request(current.id, sets, removes)
        self._write(
            current.id, {"Update": request}, self._update_record(current, sets, removes, by)
        )
        return _as_written(current, sets, removes)

    def _update_record(
        self, current: Endpoint, sets: Mapping[str, Any], removes: tuple[str, ...], by: Actor
    ) -> Any:
        changes = updated_changes(current.to_values(), sets, removes)
        now = self._deps.clock.now()
        return endpoint_record(update_action(changes), by, current.id, now, changes)

    @staticmethod
    def _write(endpoint_id: str, change: Any, record: Any) -> None:
        """A change and its record in one transaction; 404 when its condition (the endpoint
        exists) did not hold."""
        try:
            _together(change, record)
        except TransactionCancelled as cancelled:
            if cancelled.failed(0):
                raise NotFound(f"webhook endpoint {endpoint_id} not found") from None
            raise

    def _changes(
        self, current: Endpoint, patch: EndpointPatch
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        """The attributes a patch sets and removes, each checked (enabled aside)."""
        if patch.signature_scheme not in (None, current.signature_scheme):
            # The scheme decides the secret's form, and the secrets in use were shown already.
            raise ValidationFailed(
                "signatureScheme is chosen when the endpoint is created: its secret's form "
                "depends on it; create a new endpoint for the other scheme",
                details={"field": "signatureScheme"},
            )
        sets: dict[str, Any] = {"updatedAt": iso_utc(self._deps.clock.now())}
        sets.update(self._destination_changes(current, patch))
        if patch.workspaces is not None:
            sets["workspaces"] = list(check_workspaces(patch.workspaces))
        if patch.all_workspaces is not None:
            sets["allWorkspaces"] = patch.all_workspaces
        if patch.events is not None:
            sets["events"] = list(check_events(patch.events))
        if patch.content_types is not None:
            sets["contentTypes"] = list(check_content_types(patch.content_types))
        if patch.headers is not None:
            sets["headers"] = check_headers(patch.headers)
        if patch.rate_limit is not None:
            sets["rateLimit"] = check_rate_limit(patch.rate_limit)
        return sets, ("rateLimit",) if patch.clear_rate_limit else ()

    def _destination_changes(self, current: Endpoint, patch: EndpointPatch) -> dict[str, Any]:
        """The URL of an http endpoint, the bus of an eventbridge one; the type stays."""
        if patch.type not in (None, current.type):
            raise ValidationFailed(
                "type is chosen when the endpoint is created; create a new endpoint instead",
                details={"field": "type"},
            )
        bus = current.event_bus
        wrong = "eventBusArn" if patch.event_bus_arn is not None and not bus else None
        if bus and patch.url is not None:
            wrong = "url"
        if bus and patch.headers:
            wrong = "headers"
        if wrong is not None:
            raise ValidationFailed(
                f"{wrong} does not apply to an endpoint of type {current.type!r}",
                details={"field": wrong},
            )
        if patch.event_bus_arn is not None:
            return {"eventBusArn": self.check_event_bus(patch.event_bus_arn)}
        if patch.url is not None:
            check = check_listener_url if current.pull else self.check_url
            return {"url": check(patch.url)}
        return {}

    def _disable_with_notice(
        self,
        current: Endpoint,
        sets: Mapping[str, Any],
        removes: tuple[str, ...],
        by: Actor,
    ) -> bool:
        """An administrator's disable, its endpoint.disabled notice and its record, in one
        transaction, once; False when the endpoint was no longer enabled (nothing written)."""
        request = self._endpoints.update_request(current.id, sets, removes, while_enabled=True)
        notices = services.endpoint_notices(self._settings, self._deps.clock)
        actor = {"id": by.id, "email": by.label} if by.kind == "user" else None
        record = self._update_record(current, sets, removes, by)
        return notices.commit(
            request, DISABLED, current, ADMIN_DISABLED, current.consecutive_dead, actor, [record]
        )

    def delete(self, endpoint_id: str, by: Actor = COMMAND_LINE) -> None:
        """The endpoint's removal and its `webhook.deleted` record, in one transaction."""
        endpoint_id = _valid_id(endpoint_id)
        delete = {"Delete": self._endpoints.delete_request(endpoint_id)}
        now = self._deps.clock.now()
        self._write(endpoint_id, delete, endpoint_record("deleted", by, endpoint_id, now))

    def rotate_secret(
        self, endpoint_id: str, grace_seconds: int = 0, by: Actor = COMMAND_LINE
    ) -> Endpoint:
        """A new secret signs every later send, queued rows included (docs/webhooks.md,
        "Rotation and signature schemes"). With a
        grace period the replaced secret keeps signing too, until it expires, so receivers can
        switch at their pace; with none (a plain rotation) it stops at once. The endpoint
        comes back with the new secret in clear (stored sealed), to be shown once."""
        if not 0 <= grace_seconds <= MAX_GRACE_SECONDS:
            raise ValidationFailed(
                f"graceSeconds must be from 0 to {MAX_GRACE_SECONDS} (7 days), not {grace_seconds}",
                details={"field": "graceSeconds", "max": MAX_GRACE_SECONDS},
            )
        current = self.get(endpoint_id)
        now = self._deps.clock.now()
        ring = current.secrets.rotated(mint_secret(current.signature_scheme), grace_seconds, now)
        update = self._endpoints.rotate_request(current, ring, iso_utc(now))
        # Named, never shown: the record says a secret was rotated and the grace it left.
        changes = {"fields": ["graceSeconds", "secret"], "values": {"graceSeconds": grace_seconds}}
        try:
            _together(
                {"Update": update}, endpoint_record("secretRotated", by, current.id, now, changes)
            )
        except TransactionCancelled as cancelled:
            if not cancelled.failed(0):
                raise
            self.get(endpoint_id)  # gone: 404
            raise Conflict("the endpoint changed while its secret was rotated; try again") from None
        return dataclasses.replace(
            current,
            secret=ring.current,
            older_secrets=ring.older,
            updated_at=iso_utc(now),
            version=current.version + 1,
        )

    def ping(
        self, endpoint_id: str, actor: Mapping[str, str] | None, kind: str = PING
    ) -> PingResult:
        """Send test: `ping`, or the example envelope of another catalogue kind."""
        endpoint = self.get(endpoint_id)
        if not is_known_kind(kind):
            raise ValidationFailed(
                f"event {kind[:80]!r} is not in the event catalogue", details={"field": "event"}
            )
        if endpoint.pull:
            raise Conflict("a pull endpoint is never sent to: its listener fetches deliveries")
        sender = wiring.make_sender(
            self._options, self._deps, snippet_bytes=wiring.PING_SNIPPET_BYTES
        )
        bus = services.event_bus(self._settings) if endpoint.event_bus else None
        with sender:
            return send_ping(endpoint, actor, sender, self._deps.clock, kind, bus)

    # -- deliveries ----------------------------------------------------------------------

    def deliveries(
        self,
        endpoint_id: str,
        *,
        status: str | None = None,
        event: str | None = None,
        cursor: str | None = None,
        limit: int = DEFAULT_PAGE_SIZE,
        search: LogSearch | None = None,
    ) -> Page:
        endpoint = self.get(endpoint_id)
        if status is not None and status not in STATUSES:
            raise BadRequest(f"status must be one of {', '.join(STATUSES)}")
        if event is not None and not is_known_kind(event):
            raise BadRequest(f"event {event[:80]!r} is not in the event catalogue")
        if not 1 <= limit <= MAX_PAGE_SIZE:
            raise BadRequest(f"limit must be from 1 to {MAX_PAGE_SIZE}")
        return self._deliveries.page_for_endpoint(
            endpoint.id,
            limit=limit,
            cursor=cursor or None,
            status=status,
            event=event,
            search=search,
        )

    def delivery(self, endpoint_id: str, delivery_id: str) -> DeliveryRow:
        endpoint = self.get(endpoint_id)
        row = self._deliveries.get(_valid_id(delivery_id, "delivery"))
        if row is None or row.endpoint_id != endpoint.id:
            # Another endpoint's delivery is as good as absent here.
            raise NotFound(f"delivery {delivery_id} not found for this endpoint")
        return row

    def _of_enabled(self, endpoint_id: str, delivery_id: str, doing: str) -> DeliveryRow:
        """The endpoint's delivery, when the endpoint is enabled (409 saying what waits for
        the re-enable when it is not)."""
        row = self.delivery(endpoint_id, delivery_id)
        if not self.get(endpoint_id).enabled:
            raise Conflict(f"the endpoint is disabled; re-enable it before {doing}")
        return row

    def redeliver(
        self, endpoint_id: str, delivery_id: str, by: Actor = COMMAND_LINE
    ) -> DeliveryRow:
        """A new pending row: new id, same event id, the body re-frozen with the new id; it
        and its `webhook.redelivered` record in one transaction."""
        original = self._of_enabled(endpoint_id, delivery_id, "redelivering")
        now = self._deps.clock.now()
        row = original.resent(str(uuid.uuid4()), iso_utc(now), iso_utc(now + ENQUEUE_GRACE_SECONDS))
        shown = {"delivery": row.id, "redeliveryOf": original.id, "event": row.event_id}
        changes = {"fields": sorted(shown), "values": shown}
        record = endpoint_record("redelivered", by, row.endpoint_id, now, changes)
        _together({"Put": self._deliveries.insert_request(row)}, record)
        services.delivery_queue(self._settings).enqueue([row.id])
        return row

    def retry_now(
        self, endpoint_id: str, delivery_id: str, by: Actor = COMMAND_LINE
    ) -> DeliveryRow:
        """Retry now: the same `failed` delivery, its next attempt due at once and queued; the
        change and its `webhook.retried` record in one transaction."""
        current = self._of_enabled(endpoint_id, delivery_id, "retrying")
        if current.status != "failed":
            raise Conflict(
                f"only a failed delivery can be retried now; this one is {current.status}"
            )
        now = self._deps.clock.now()
        update = self._deliveries.schedule_now_request(
            current.id, iso_utc(now), iso_utc(now + RETRY_SWEEP_GRACE_SECONDS)
        )
        changes = {"fields": ["delivery"], "values": {"delivery": current.id}}
        record = endpoint_record("retried", by, current.endpoint_id, now, changes)
        try:
            _together({"Update": update}, record)
        except TransactionCancelled as cancelled:
            if not cancelled.failed(0):
                raise
            raise Conflict(
                "the delivery is no longer waiting for a retry; reload to see it"
            ) from None
        services.delivery_queue(self._settings).enqueue([current.id])
        return self.delivery(endpoint_id, current.id)

    # -- recovery ------------------------------------------------------------------------

    def recover(
        self,
        endpoint_id: str,
        since: str,
        until: str | None,
        statuses: Iterable[str] | None,
        by: Actor = COMMAND_LINE,
    ) -> Recovery:
        """Records a recovery job (and its `webhook.recoveryStarted` record, in the same
        transaction) and queues it; the work runs in the delivery function."""
        endpoint = self.get(endpoint_id)
        if not endpoint.enabled:
            raise Conflict("the endpoint is disabled; re-enable it before recovering")
        now = self._deps.clock.now()
        try:
            start = parse_instant(since, "since")
            end = now if until is None else min(parse_instant(until, "until"), now)
        except ValueError as error:
            raise ValidationFailed(
                str(error), details={"field": "until" if "until" in str(error) else "since"}
            ) from None
        if start >= end:
            raise ValidationFailed(
                "since must be before until (and before now)", details={"field": "since"}
            )
        chosen = unique(statuses) if statuses is not None else DEFAULT_STATUSES
        bad = [s for s in chosen if s not in RECOVERABLE_STATUSES]
        if bad or not chosen:
            raise ValidationFailed(
                f"statuses must be some of {', '.join(RECOVERABLE_STATUSES)}",
                details={"field": "statuses", "allowed": list(RECOVERABLE_STATUSES)},
            )
        recovery = new_recovery(endpoint.id, iso_utc(start), iso_utc(end), chosen, iso_utc(now))
        put = services.recovery_store(self._settings).create_request(
            recovery, iso_utc(now + ENQUEUE_GRACE_SECONDS)
        )
        shown = {"recovery": recovery.id, "since": recovery.since, "until": recovery.until}
        changes = {"fields": sorted(shown), "values": shown}
        _together({"Put": put}, endpoint_record("recoveryStarted", by, endpoint.id, now, changes))
        services.delivery_queue(self._settings).enqueue([recovery_key(recovery.id)])
        return recovery

    def recovery(self, endpoint_id: str, recovery_id: str) -> Recovery:
        endpoint = self.get(endpoint_id)
        found = services.recovery_store(self._settings).get(_valid_id(recovery_id, "recovery"))
        if found is None or found.endpoint_id != endpoint.id:
            raise NotFound(f"recovery {recovery_id[:80]} not found for this endpoint")
        return found

    # -- health --------------------------------------------------------------------------

    def health(self, endpoint_id: str) -> Health:
        """Deliveries created in the last 24 h, by status, and the success rate among those
        with a verdict (succeeded, failed, dead)."""
        since = iso_utc(self._deps.clock.now() - HEALTH_WINDOW_SECONDS)
        counts, truncated = self._deliveries.verdict_counts(endpoint_id, since)
        return Health(since, counts, truncated)

    def stats(self, endpoint_id: str, window: str = "24h") -> StatsSeries:
        """The endpoint's attempts by verdict and their latency over the last 24 h (hourly
        bars) or 7 days (6-hour bars), from the hourly counters the workers keep."""
        if window not in STATS_WINDOWS:
            raise BadRequest(f"window must be one of {', '.join(STATS_WINDOWS)}")
        endpoint = self.get(endpoint_id)
        hours, per_bar = STATS_WINDOWS[window]
        found = services.attempt_stats(self._settings).buckets(
            endpoint.id, self._deps.clock.now(), hours, per_bar
        )
        return StatsSeries(window, per_bar, found)

    # -- pull endpoints (`content-service listen`) ---------------------------------------

    def pull(
        self, endpoint_id: str, after: str | None, wait_seconds: float
    ) -> tuple[Endpoint, Sequence[DeliveryRow], str | None]:
        """A pull endpoint's deliveries created after the cursor `after`, oldest first,
        waiting up to `wait_seconds` for one (a long poll); renews the listener's lease."""
        endpoint = self.get(endpoint_id)
        if not endpoint.pull:
            raise Conflict("only a pull endpoint (content-service listen) is fetched from")
        if not endpoint.enabled:
            raise Conflict(
                f"this listener's endpoint is disabled: {endpoint.disabled_reason}; "
                "start a new listener"
            )
        if after is not None and not _PULL_CURSOR.fullmatch(after):
            raise BadRequest("after must be a cursor this service returned")
        lease = iso_utc(self._deps.clock.now() + LISTENER_LEASE_SECONDS)
        renewed = self._endpoints.update(endpoint.id, {"leaseExpiresAt": lease})
        if renewed is None:
            raise NotFound(f"webhook endpoint {endpoint_id} not found")
        deadline = time.monotonic() + min(max(wait_seconds, 0.0), MAX_PULL_WAIT_SECONDS)
        while True:
            settled = iso_utc(self._deps.clock.now() - PULL_SETTLE_SECONDS)
            rows, _ = self._deliveries.recoverable(
                endpoint.id,
                since_iso=endpoint.created_at,
                until_iso=settled,
                statuses=STATUSES,
                after=after,
                limit=PULL_BATCH,
            )
            if rows or time.monotonic() >= deadline:
                break
            time.sleep(0.25)
            if not self._still_listening(endpoint.id):
                break
        cursor = f"{rows[-1].created_at}#{rows[-1].id}" if rows else after
        return renewed, rows, cursor

    def _still_listening(self, endpoint_id: str) -> bool:
        """A long poll ends early once its endpoint is deleted or disabled (the CLI stopped)."""
        current = self._endpoints.get(endpoint_id)
        return current is not None and current.enabled
