"""The webhooks API (docs/api.md): endpoints, secrets, send test, delivery log, redeliver,
retry now, recover, and the pull endpoints of `content-service listen`.

Admin only: `webhooks:read` for every GET, `webhooks:manage` for every write
(docs/authorization.md); the origin guard middleware covers the writes. Every write but `pull`
(a listener renewing its lease) and the send test (which changes nothing) leaves one audit
record (`webhook.*`, in the `service` log) in its own transaction. Bodies are parsed strictly
(unknown fields, wrong types and explicit nulls are 422); everything else is decided by
`EndpointRegistry`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from content_service import runtime
from content_service.api.auth import require_permission
from content_service.api.error_handlers import errors
from content_service.audit.records import Actor
from content_service.clock import iso_utc
from content_service.errors import BadRequest, ValidationFailed
from content_service.identity.principal import (
    WEBHOOKS_MANAGE,
    WEBHOOKS_READ,
    Caller,
    UserCaller,
)
from content_service.webhooks import wiring
from content_service.webhooks.deliveries import LogSearch
from content_service.webhooks.endpoints import (
    DEFAULT_PAGE_SIZE,
    MAX_PULL_WAIT_SECONDS,
    Endpoint,
    EndpointInput,
    EndpointPatch,
    EndpointRegistry,
    SignatureScheme,
    catalogue_json,
    parse_instant,
)

router = APIRouter(tags=["webhooks"], responses=errors(401, 403))

ReadCaller = Annotated[Caller, require_permission(WEBHOOKS_READ)]
ManageCaller = Annotated[Caller, require_permission(WEBHOOKS_MANAGE)]

Url = Annotated[StrictStr, Field(min_length=1, max_length=4096)]
Names = Annotated[list[Annotated[StrictStr, Field(max_length=200)]], Field(max_length=200)]
Headers = Annotated[dict[StrictStr, StrictStr], Field(max_length=50)]


BusArn = Annotated[StrictStr, Field(min_length=1, max_length=1600)]


class EndpointCreateBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: Url | None = None
    type: Literal["http", "eventbridge"] = "http"
    eventBusArn: BusArn | None = None
    workspaces: Names = Field(default_factory=list)
    allWorkspaces: StrictBool = False
    events: Names = Field(default_factory=list)
    contentTypes: Names = Field(default_factory=list)
    headers: Headers = Field(default_factory=dict)
    enabled: StrictBool = True
    mode: Literal["push", "pull"] = "push"
    signatureScheme: SignatureScheme = "service"
    rateLimit: StrictInt | None = None


class EndpointPatchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: Url | None = None
    type: Literal["http", "eventbridge"] | None = None
    eventBusArn: BusArn | None = None
    workspaces: Names | None = None
    allWorkspaces: StrictBool | None = None
    events: Names | None = None
    contentTypes: Names | None = None
    headers: Headers | None = None
    enabled: StrictBool | None = None
    signatureScheme: SignatureScheme | None = None
    rateLimit: StrictInt | None = None


# PATCH fields whose null means something ("no rate limit"), not "left out".
NULLABLE = frozenset({"rateLimit"})


class RotateBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    graceSeconds: StrictInt = 0


Instant = Annotated[StrictStr, Field(min_length=1, max_length=64)]


class TestBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    event: Annotated[StrictStr, Field(min_length=1, max_length=100)] = "ping"


class RecoverBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    since: Instant
    until: Instant | None = None
    statuses: (
        Annotated[list[Annotated[StrictStr, Field(max_length=20)]], Field(max_length=5)] | None
    ) = None


class PullBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    after: Annotated[StrictStr, Field(max_length=100)] | None = None
    wait: Annotated[float, Field(ge=0, le=MAX_PULL_WAIT_SECONDS)] = 0


def _registry() -> EndpointRegistry:
    return EndpointRegistry(runtime.settings())


def _shown(endpoint: Endpoint) -> dict[str, Any]:
    """The endpoint JSON as of now (older secrets past their grace are not shown)."""
    return endpoint.to_json(wiring.dependencies().clock.now())


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


def _actor(caller: Caller) -> dict[str, str] | None:
    return {"id": caller.id, "email": caller.email} if isinstance(caller, UserCaller) else None


@router.get("/api/webhook-events")
def list_event_kinds(_: ReadCaller) -> list[dict[str, Any]]:
    return catalogue_json()


@router.get("/api/webhooks")
def list_endpoints(_: ReadCaller) -> dict[str, Any]:
    registry = _registry()
    return {
        "items": [
            {
                **_shown(endpoint),
                "latestDelivery": latest.summary_json() if latest else None,
                "health": registry.health(endpoint.id).to_json(),
            }
            for endpoint, latest in registry.list()
        ]
    }


@router.post("/api/webhooks", status_code=201)
def create_endpoint(body: EndpointCreateBody, caller: ManageCaller) -> dict[str, Any]:
    endpoint = _registry().create(
        EndpointInput(
            url=body.url,
            workspaces=tuple(body.workspaces),
            all_workspaces=body.allWorkspaces,
            events=tuple(body.events),
            content_types=tuple(body.contentTypes),
            headers=body.headers,
            enabled=body.enabled,
            mode=body.mode,
            signature_scheme=body.signatureScheme,
            rate_limit=body.rateLimit,
            type=body.type,
            event_bus_arn=body.eventBusArn,
        ),
        Actor.of(caller),
    )
    return {**_shown(endpoint), "secret": endpoint.signing_secret()}


@router.get("/api/webhooks/{endpoint_id}")
def get_endpoint(endpoint_id: str, _: ReadCaller) -> dict[str, Any]:
    return _shown(_registry().get(endpoint_id))


@router.patch("/api/webhooks/{endpoint_id}")
def patch_endpoint(
    endpoint_id: str, body: EndpointPatchBody, caller: ManageCaller
) -> dict[str, Any]:
    nulls = sorted(name for name in body.model_fields_set - NULLABLE if getattr(body, name) is None)
    if nulls:
        raise ValidationFailed(
            f"{', '.join(nulls)} cannot be null; leave a field out to keep it",
            details={"fields": nulls},
        )
    patch = EndpointPatch(
        url=body.url,
        workspaces=_tuple(body.workspaces),
        all_workspaces=body.allWorkspaces,
        events=_tuple(body.events),
        content_types=_tuple(body.contentTypes),
        headers=body.headers,
        enabled=body.enabled,
        signature_scheme=body.signatureScheme,
        rate_limit=body.rateLimit,
        clear_rate_limit="rateLimit" in body.model_fields_set and body.rateLimit is None,
        type=body.type,
        event_bus_arn=body.eventBusArn,
    )
    return _shown(_registry().update(endpoint_id, patch, Actor.of(caller)))


@router.delete("/api/webhooks/{endpoint_id}", status_code=204)
def delete_endpoint(endpoint_id: str, caller: ManageCaller) -> Response:
    _registry().delete(endpoint_id, Actor.of(caller))
    return Response(status_code=204)


@router.post("/api/webhooks/{endpoint_id}/rotate-secret")
def rotate_secret(
    endpoint_id: str, caller: ManageCaller, body: RotateBody | None = None
) -> dict[str, Any]:
    grace = body.graceSeconds if body is not None else 0
    endpoint = _registry().rotate_secret(endpoint_id, grace, Actor.of(caller))
    return {
        "secret": endpoint.signing_secret(),
        "secretHint": endpoint.secret_hint,
        "olderSecrets": _shown(endpoint)["olderSecrets"],
    }


@router.post("/api/webhooks/{endpoint_id}/test")
def send_test(
    endpoint_id: str, caller: ManageCaller, body: TestBody | None = None
) -> dict[str, Any]:
    kind = body.event if body is not None else "ping"
    return _registry().ping(endpoint_id, _actor(caller), kind).to_json()


def _search(
    event_id: str | None, entry_id: str | None, since: str | None, until: str | None
) -> LogSearch:
    """The log's search filters; a time that is not ISO 8601 with a zone is 400."""
    try:
        since_iso = iso_utc(parse_instant(since, "since")) if since else None
        until_iso = iso_utc(parse_instant(until, "until")) if until else None
    except ValueError as error:
        raise BadRequest(str(error)) from None
    return LogSearch(
        event_id=event_id.strip() or None if event_id else None,
        entry_id=entry_id.strip() or None if entry_id else None,
        since_iso=since_iso,
        until_iso=until_iso,
    )


@router.get("/api/webhooks/{endpoint_id}/stats")
def endpoint_stats(
    endpoint_id: str,
    _: ReadCaller,
    window: Annotated[str, Query(max_length=10)] = "24h",
) -> dict[str, Any]:
    """Attempts by verdict and latency (p50, p95) over the last 24 h or 7 days."""
    return _registry().stats(endpoint_id, window).to_json()


@router.get("/api/webhooks/{endpoint_id}/deliveries")
def list_deliveries(
    endpoint_id: str,
    _: ReadCaller,
    status: Annotated[str | None, Query(max_length=20)] = None,
    event: Annotated[str | None, Query(max_length=100)] = None,
    cursor: Annotated[str | None, Query(max_length=2000)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = DEFAULT_PAGE_SIZE,
    event_id: Annotated[str | None, Query(alias="eventId", max_length=100)] = None,
    entry_id: Annotated[str | None, Query(alias="entryId", max_length=100)] = None,
    since: Annotated[str | None, Query(max_length=64)] = None,
    until: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    page = _registry().deliveries(
        endpoint_id,
        status=status,
        event=event,
        cursor=cursor,
        limit=limit,
        search=_search(event_id, entry_id, since, until),
    )
    return {"items": [row.to_json() for row in page.items], "nextCursor": page.next_cursor}


@router.get("/api/webhooks/{endpoint_id}/deliveries/{delivery_id}")
def get_delivery(endpoint_id: str, delivery_id: str, _: ReadCaller) -> dict[str, Any]:
    return _registry().delivery(endpoint_id, delivery_id).to_json(detail=True)


@router.post("/api/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver", status_code=202)
def redeliver(endpoint_id: str, delivery_id: str, caller: ManageCaller) -> dict[str, Any]:
    return _registry().redeliver(endpoint_id, delivery_id, Actor.of(caller)).to_json(detail=True)


@router.post("/api/webhooks/{endpoint_id}/deliveries/{delivery_id}/retry", status_code=202)
def retry_now(endpoint_id: str, delivery_id: str, caller: ManageCaller) -> dict[str, Any]:
    return _registry().retry_now(endpoint_id, delivery_id, Actor.of(caller)).to_json(detail=True)


@router.post("/api/webhooks/{endpoint_id}/recover", status_code=202)
def recover(endpoint_id: str, body: RecoverBody, caller: ManageCaller) -> dict[str, Any]:
    registry, by = _registry(), Actor.of(caller)
    return registry.recover(endpoint_id, body.since, body.until, body.statuses, by).to_json()


@router.get("/api/webhooks/{endpoint_id}/recoveries/{recovery_id}")
def get_recovery(endpoint_id: str, recovery_id: str, _: ReadCaller) -> dict[str, Any]:
    return _registry().recovery(endpoint_id, recovery_id).to_json()


@router.post("/api/webhooks/{endpoint_id}/pull")
def pull(endpoint_id: str, body: PullBody, _: ManageCaller) -> dict[str, Any]:
    """A pull endpoint's new deliveries (a long poll of up to `wait` seconds)."""
    endpoint, rows, cursor = _registry().pull(endpoint_id, body.after, body.wait)
    return {
        "items": [row.to_json() for row in rows],
        "cursor": cursor,
        "leaseExpiresAt": endpoint.lease_expires_at,
    }
