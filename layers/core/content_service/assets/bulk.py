"""`content-service assets upload FILE...`: many files made assets at once, as a client would.

Each file takes the path a browser's does: a presigned POST from the service, the bytes sent
straight to S3 with `requests` (the signed policy binds the type and the exact size), then the
completion, which reads the real type from the bytes. The command runs as the operator of the
stack, with the rights of a full token of the workspace; its events name no user.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import requests

from content_service.assets import service
from content_service.assets.bodies import CompleteBody, UploadBody
from content_service.assets.uploads import start_upload
from content_service.clock import SystemClock
from content_service.errors import ServiceError
from content_service.identity.principal import ALL_SCOPES, ALL_TYPES, TokenCaller

_POST_TIMEOUT_S = 300
_OPERATOR_ID = "content-service-cli"
"""The id the command's caller carries: no token has it (token ids are random)."""


def operator(workspace_id: str) -> TokenCaller:
    """Who the command acts as: a full token of the workspace that no one holds."""
    return TokenCaller(
        token_id=_OPERATOR_ID,
        name="content-service CLI",
        workspace_id=workspace_id,
        access="full",
        content_types=frozenset({ALL_TYPES}),
        scopes=ALL_SCOPES,
        audiences=frozenset(),
    )


def upload_files(workspace_id: str, paths: list[Path]) -> Iterator[dict[str, Any]]:
    """One answer per file, in order: the asset, or `{file, error}`."""
    caller = operator(workspace_id)
    for path in paths:
        try:
            yield {"file": str(path), "asset": _upload(caller, workspace_id, path)}
        except (OSError, ServiceError, requests.RequestException) as error:
            message = error.message if isinstance(error, ServiceError) else str(error)
            yield {"file": str(path), "error": message}


def _upload(caller: TokenCaller, workspace_id: str, path: Path) -> dict[str, Any]:
    content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    size = path.stat().st_size
    body = UploadBody(fileName=path.name, contentType=content_type, size=size)
    started = start_upload(caller, workspace_id, body, SystemClock().now())
    with path.open("rb") as file:
        sent = requests.post(
            started["url"],
            data=started["fields"],
            files={"file": (path.name, file, content_type)},
            timeout=_POST_TIMEOUT_S,
        )
    if sent.status_code not in (200, 201, 204):
        raise OSError(f"S3 refused the upload: HTTP {sent.status_code} {sent.text[:300]}")
    return service.complete_upload(caller, workspace_id, CompleteBody(uploadId=started["uploadId"]))
