"""File URLs: `GET /files/<ws>/<assetId>/<fileId>/<fileName>[?w=&h=&fit=&f=&fm=&q=&fl=&bg=]`.

Public, like the files of a published asset on any CDN: no token. The service decides what is
servable and what the parameters mean (`media.stored_files`, `media.delivery`); this route only
turns its answer into HTTP, 304 included (docs/assets.md, "Delivery").
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response, StreamingResponse

from content_service.api.http_cache import not_modified
from content_service.content import cache_tags
from content_service.media import delivery
from content_service.media.stored_files import FileAddress, servable

router = APIRouter(tags=["files"])


@router.get("/files/{workspace_id}/{asset_id}/{file_id}/{file_name}", response_class=Response)
def get_file(
    request: Request, workspace_id: str, asset_id: str, file_id: str, file_name: str
) -> Response:
    file = servable(FileAddress(workspace_id, asset_id, file_id, file_name))
    chosen = delivery.plan(file, request.query_params.multi_items())
    headers = chosen.headers()
    # Immutable, kept a year: only a purge (the asset unpublished, trashed) drops it early.
    headers[cache_tags.HEADER] = " ".join(
        [cache_tags.workspace_tag(workspace_id), cache_tags.entry_tag(workspace_id, asset_id)]
    )
    if not_modified(request.headers.get("if-none-match"), chosen.etag):
        return Response(status_code=304, headers=headers)
    if chosen.params is not None:
        image = delivery.derived(chosen)
        headers["Content-Disposition"] = "inline"
        return Response(image.body, media_type=image.media_type, headers=headers)
    stored = delivery.original(chosen)
    headers["Content-Length"] = str(stored.length)
    headers["Content-Disposition"] = stored.disposition
    return StreamingResponse(stored.chunks, media_type=stored.media_type, headers=headers)
