"""The webhooks API of CONTRACT.md: endpoints, secrets, send test, delivery log, redeliver.

Admin only: `webhooks:read` for every GET, `webhooks:manage` for every write (spec 5.5); the
origin guard middleware covers the writes. Bodies are parsed strictly (unknown fields, wrong
types and explicit nulls are 422); everything else is decided by `EndpointRegistry`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from content_service import runtime
from content_service.api.auth import require_permission
from content_service.api.error_handlers import errors
from content_service.errors import ValidationFailed
from content_service.identity.principal import (
    WEBHOOKS_MANAGE,
    WEBHOOKS_READ,
    Caller,
    UserCaller,
)
from content_service.webhooks import catalogue
from content_service.webhooks.deliveries import DeliveryRow
from content_service.webhooks.endpoints import (
    DEFAULT_PAGE_SIZE,
    EndpointInput,
    EndpointPatch,
    EndpointRegistry,
)

router = APIRouter(tags=["webhooks"], responses=errors(401, 403))

ReadCaller = Annotated[Caller, require_permission(WEBHOOKS_READ)]
ManageCaller = Annotated[Caller, require_permission(WEBHOOKS_MANAGE)]

Url = Annotated[StrictStr, Field(min_length=1, max_length=4096)]
Names = Annotated[list[Annotated[StrictStr, Field(max_length=200)]], Field(max_length=200)]
Headers = Annotated[dict[StrictStr, StrictStr], Field(max_length=50)]


class EndpointCreateBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: Url
    workspaces: Names = Field(default_factory=list)
    allWorkspaces: StrictBool = False
    events: Names = Field(default_factory=list)
    contentTypes: Names = Field(default_factory=list)
    headers: Headers = Field(default_factory=dict)
    enabled: StrictBool = True


class EndpointPatchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: Url | None = None
    workspaces: Names | None = None
    allWorkspaces: StrictBool | None = None
    events: Names | None = None
    contentTypes: Names | None = None
    headers: Headers | None = None
    enabled: StrictBool | None = None


def _registry() -> EndpointRegistry:
    return EndpointRegistry(runtime.settings())


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


def _actor(caller: Caller) -> dict[str, str] | None:
    return {"id": caller.id, "email": caller.email} if isinstance(caller, UserCaller) else None


def _latest(row: DeliveryRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {
        "id": row.id,
        "event": row.event,
        "status": row.status,
        "attempts": row.attempts,
        "lastStatusCode": row.last_status_code,
        "lastError": row.last_error,
        "createdAt": row.created_at,
        "updatedAt": row.updated_at,
    }


@router.get("/api/webhook-events")
def list_event_kinds(_: ReadCaller) -> list[dict[str, str | bool]]:
    return catalogue.to_json()


@router.get("/api/webhooks")
def list_endpoints(_: ReadCaller) -> dict[str, Any]:
    return {
        "items": [
            {**endpoint.to_json(), "latestDelivery": _latest(latest)}
            for endpoint, latest in _registry().list()
        ]
    }


@router.post("/api/webhooks", status_code=201)
def create_endpoint(body: EndpointCreateBody, _: ManageCaller) -> dict[str, Any]:
    endpoint = _registry().create(
        EndpointInput(
            url=body.url,
            workspaces=tuple(body.workspaces),
            all_workspaces=body.allWorkspaces,
            events=tuple(body.events),
            content_types=tuple(body.contentTypes),
            headers=body.headers,
            enabled=body.enabled,
        )
    )
    return {**endpoint.to_json(), "secret": endpoint.secret}


@router.get("/api/webhooks/{endpoint_id}")
def get_endpoint(endpoint_id: str, _: ReadCaller) -> dict[str, Any]:
    return _registry().get(endpoint_id).to_json()


@router.patch("/api/webhooks/{endpoint_id}")
def patch_endpoint(endpoint_id: str, body: EndpointPatchBody, _: ManageCaller) -> dict[str, Any]:
    nulls = sorted(name for name in body.model_fields_set if getattr(body, name) is None)
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
    )
    return _registry().update(endpoint_id, patch).to_json()


@router.delete("/api/webhooks/{endpoint_id}", status_code=204)
def delete_endpoint(endpoint_id: str, _: ManageCaller) -> Response:
    _registry().delete(endpoint_id)
    return Response(status_code=204)


@router.post("/api/webhooks/{endpoint_id}/rotate-secret")
def rotate_secret(endpoint_id: str, _: ManageCaller) -> dict[str, str]:
    endpoint = _registry().rotate_secret(endpoint_id)
    return {"secret": endpoint.secret, "secretHint": endpoint.secret_hint}


@router.post("/api/webhooks/{endpoint_id}/test")
def send_test(endpoint_id: str, caller: ManageCaller) -> dict[str, Any]:
    return _registry().ping(endpoint_id, _actor(caller)).to_json()


@router.get("/api/webhooks/{endpoint_id}/deliveries")
def list_deliveries(
    endpoint_id: str,
    _: ReadCaller,
    status: Annotated[str | None, Query(max_length=20)] = None,
    event: Annotated[str | None, Query(max_length=100)] = None,
    cursor: Annotated[str | None, Query(max_length=2000)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = DEFAULT_PAGE_SIZE,
) -> dict[str, Any]:
    page = _registry().deliveries(
        endpoint_id, status=status, event=event, cursor=cursor, limit=limit
    )
    return {"items": [row.to_json() for row in page.items], "nextCursor": page.next_cursor}


@router.get("/api/webhooks/{endpoint_id}/deliveries/{delivery_id}")
def get_delivery(endpoint_id: str, delivery_id: str, _: ReadCaller) -> dict[str, Any]:
    return _registry().delivery(endpoint_id, delivery_id).to_json(detail=True)


@router.post("/api/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver", status_code=202)
def redeliver(endpoint_id: str, delivery_id: str, _: ManageCaller) -> dict[str, Any]:
    return _registry().redeliver(endpoint_id, delivery_id).to_json(detail=True)
