"""Workspaces: the buckets every content type, entry and token belongs to."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from content_service.clock import Clock, SystemClock, iso_utc
from content_service.errors import NotFound, ValidationFailed
from content_service.settings import Settings

if TYPE_CHECKING:
    from content_service.identity.models import WorkspaceRecord

_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")


@dataclass(frozen=True)
class Workspace:
    id: str
    name: str
    slug: str
    created_at: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "slug": self.slug, "createdAt": self.created_at}


def _from_record(record: WorkspaceRecord) -> Workspace:
    return Workspace(record.id, record.name, record.slug, record.createdAt)


def create_workspace(
    settings: Settings, name: str, slug: str, clock: Clock | None = None
) -> Workspace:
    from content_service.identity.models import WorkspaceRecord, save_with_unique_claim

    if not name.strip() or len(name) > 100:
        raise ValidationFailed("workspace name must be 1 to 100 characters")
    if not _SLUG.match(slug):
        raise ValidationFailed("workspace slug must be lower-case letters, digits and dashes")
    workspace_id = str(uuid.uuid4())
    record = WorkspaceRecord(
        pk=f"WORKSPACE#{workspace_id}",
        gsi1sk=slug,
        id=workspace_id,
        name=name.strip(),
        slug=slug,
        createdAt=iso_utc((clock or SystemClock()).now()),
    )
    save_with_unique_claim(
        record,
        f"WORKSPACE_SLUG#{slug}",
        workspace_id,
        f"a workspace with slug {slug!r} already exists",
    )
    return _from_record(record)


def get_workspace(workspace_id: str) -> Workspace:
    from pynamodb.exceptions import DoesNotExist

    from content_service.identity.models import WorkspaceRecord

    try:
        return _from_record(WorkspaceRecord.get(f"WORKSPACE#{workspace_id}", "WORKSPACE"))
    except DoesNotExist:
        raise NotFound(f"workspace {workspace_id} not found") from None


def find_workspace_by_slug(slug: str) -> Workspace | None:
    from pynamodb.exceptions import DoesNotExist

    from content_service.identity.models import UniqueRecord

    try:
        claim = UniqueRecord.get(f"WORKSPACE_SLUG#{slug}", "UNIQUE", consistent_read=True)
    except DoesNotExist:
        return None
    return get_workspace(claim.ownerId)


def resolve_workspace(reference: str) -> Workspace:
    """Accepts a workspace id or slug, as the CLI and the token form do."""
    by_slug = find_workspace_by_slug(reference)
    if by_slug is not None:
        return by_slug
    try:
        uuid.UUID(reference)
    except ValueError:
        raise NotFound(f"workspace {reference!r} not found") from None
    return get_workspace(reference)


def list_workspaces() -> list[Workspace]:
    from content_service.identity.models import WorkspaceRecord

    return [_from_record(r) for r in WorkspaceRecord.by_kind.query("WORKSPACES")]
