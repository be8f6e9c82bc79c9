"""First start on empty storage: the default workspace, an admin, a full and a read token.

Locally the credentials are also written to `.local/bootstrap.json` (mode 0600) so a restarted
`make run` can print them again; on AWS, `content-service bootstrap` prints them once and keeps
no file. A second run finds the `default` slug taken and creates nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from content_service.errors import Conflict
from content_service.identity.passwords import generate_password
from content_service.identity.principal import ALL_TYPES
from content_service.identity.tokens import TokenSpec, create_token
from content_service.identity.users import create_user
from content_service.identity.workspaces import create_workspace, find_workspace_by_slug
from content_service.settings import Settings

DEFAULT_SLUG = "default"
ADMIN_EMAIL = "admin@example.com"
BOOTSTRAP_FILE = "bootstrap.json"


def bootstrap(settings: Settings, base_url: str) -> dict[str, Any] | None:
    """Creates the first workspace, admin and tokens; None when storage was not empty."""
    if find_workspace_by_slug(DEFAULT_SLUG) is not None:
        return None
    try:
        workspace = create_workspace(settings, "Default", DEFAULT_SLUG)
    except Conflict:
        return None
    password = generate_password()
    create_user(settings, ADMIN_EMAIL, "admin", password)
    full, _ = create_token(
        TokenSpec(name="bootstrap full", workspace_id=workspace.id, access="full")
    )
    read, _ = create_token(
        TokenSpec(
            name="bootstrap read",
            workspace_id=workspace.id,
            access="read",
            content_types=(ALL_TYPES,),
        )
    )
    return {
        "baseUrl": base_url,
        "workspaceId": workspace.id,
        "admin": {"email": ADMIN_EMAIL, "password": password},
        "tokens": {"full": full, "read": read},
    }


def ensure_bootstrap(settings: Settings, base_url: str, local_dir: Path) -> dict[str, Any] | None:
    """Bootstraps once and keeps the credentials under `local_dir` for later starts."""
    path = local_dir / BOOTSTRAP_FILE
    created = bootstrap(settings, base_url)
    if created is not None:
        local_dir.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            json.dump(created, handle, indent=2)
        return created
    if path.exists():
        existing: dict[str, Any] = json.loads(path.read_text())
        existing["baseUrl"] = base_url
        return existing
    return None
