"""The assets service: `/api/v1/assets` mapped onto the entries of the built-in `asset` type.

Every read and write goes through the content service with `content_type="asset"`, so the
visibility rules (a read token reads published assets only, audiences, the trash), versions,
the workflow and the webhook events are the entries' own. What is the assets' alone: a file is
written by processing (`assets.files`) and never by a client, completing an upload is
idempotent, and publishing needs a ready file.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from content_service.assets import objects
from content_service.assets.bodies import AssetFieldsBody, CompleteBody, ReplaceFileBody
from content_service.assets.builtin_type import asset_type
from content_service.assets.files import AssetFile, derived_id, process
from content_service.assets.uploads import check_upload_id, require_writer
from content_service.assets.views import asset_json, file_of
from content_service.clock import SystemClock
from content_service.content import service
from content_service.content.entries import Entry, entry_view, written
from content_service.content.relations import LinkedFromRequest
from content_service.content.requests import (
    EntryAction,
    GetRequest,
    ListRequest,
    VersionRequest,
    VersionsRequest,
    WriteRequest,
)
from content_service.content.schema import ASSET_TYPE, ContentType, get_type, require_read
from content_service.content.writes import Versions, read_for_write
from content_service.errors import Conflict, NotFound
from content_service.identity.principal import Caller


def _missing(asset_id: str) -> NotFound:
    return NotFound(f"asset {asset_id[:64]!r} not found")


def _get(caller: Caller, workspace_id: str, asset_id: str, version: str | None) -> Entry:
    request = GetRequest.parse(caller, workspace_id, ASSET_TYPE, asset_id, version=version)
    try:
        return service.get_entry(request)
    except NotFound:
        raise _missing(asset_id) from None


def _published_file(caller: Caller, workspace_id: str, entry: Entry) -> AssetFile | None:
    """The file of the asset's live version, which delivery serves (a caller that may not
    read learns no file: its answer has none)."""
    if entry.status == "draft" or not caller.can_read:
        return None
    if entry.view == "published" or entry.status == "published":
        return file_of(entry)
    return file_of(_get(caller, workspace_id, entry.id, "published"))


def render(caller: Caller, workspace_id: str, entry: Entry) -> dict[str, Any]:
    return asset_json(entry, workspace_id, caller, _published_file(caller, workspace_id, entry))


def get_asset(
    caller: Caller, workspace_id: str, asset_id: str, version: str | None = None
) -> dict[str, Any]:
    return render(caller, workspace_id, _get(caller, workspace_id, asset_id, version))


def list_assets(caller: Caller, workspace_id: str, **query: Any) -> dict[str, Any]:
    """A page of assets; `query` is a list's (page, pageSize, sort, filter, cursor, version)."""
    require_read(caller)
    request = ListRequest.parse(caller, workspace_id, ASSET_TYPE, **query)
    if get_type(workspace_id, ASSET_TYPE) is None:
        return {"items": [], "total": 0, "page": request.page, "pageSize": request.page_size}
    entries = service.list_entries(request)
    page = entries.to_json()
    page["items"] = [render(caller, workspace_id, entry) for entry in entries.items]
    return page


def _write_values(body: AssetFieldsBody) -> dict[str, Any]:
    chosen = body.model_dump(include={"title", "altText", "description"}, exclude_unset=True)
    return {name: value or None for name, value in chosen.items()}


def _stored(caller: Caller, workspace_id: str, asset_id: str) -> tuple[ContentType, Versions]:
    """The asset as a write reads it (trashed too, whether or not the caller may read)."""
    content_type = get_type(workspace_id, ASSET_TYPE)
    if content_type is None:
        raise _missing(asset_id)
    try:
        return content_type, read_for_write(caller, content_type, workspace_id, asset_id)
    except NotFound:
        raise _missing(asset_id) from None


def _latest(caller: Caller, workspace_id: str, asset_id: str) -> Entry:
    content_type, versions = _stored(caller, workspace_id, asset_id)
    return written(caller, entry_view(content_type, versions.latest))


def _existing(caller: Caller, workspace_id: str, asset_id: str) -> Entry | None:
    try:
        return _latest(caller, workspace_id, asset_id)
    except NotFound:
        return None


def complete_upload(caller: Caller, workspace_id: str, body: CompleteBody) -> dict[str, Any]:
    """`POST /api/v1/assets`: the upload becomes an asset (a draft). Idempotent per upload: the
    asset's id derives from it, so a retry answers the asset the first attempt made."""
    require_writer(caller)
    check_upload_id(body.uploadId)
    asset_type(workspace_id, SystemClock().now())
    asset_id = derived_id(workspace_id, body.uploadId, "asset")
    entry = _existing(caller, workspace_id, asset_id)
    if entry is None:
        entry = _create(caller, workspace_id, asset_id, body)
    objects.delete(objects.upload_key(workspace_id, body.uploadId))
    return render(caller, workspace_id, entry)


def _create(caller: Caller, workspace_id: str, asset_id: str, body: CompleteBody) -> Entry:
    file = process(workspace_id, asset_id, body.uploadId)
    if file is None:
        raise NotFound(f"upload {body.uploadId!r} not found: upload the file first (or again)")
    values = {"title": file.file_name, **_write_values(body), **file.field_values()}
    request = WriteRequest(
        caller=caller,
        workspace_id=workspace_id,
        content_type=ASSET_TYPE,
        values=values,
        audiences=tuple(body.audiences) if body.audiences is not None else None,
    )
    try:
        return service.create_entry(request, entry_id=asset_id)
    except Conflict:
        # A concurrent completion of the same upload made it first.
        existing = _existing(caller, workspace_id, asset_id)
        if existing is None:
            raise
        return existing


def update_asset(
    caller: Caller, workspace_id: str, asset_id: str, body: AssetFieldsBody
) -> dict[str, Any]:
    """`PATCH`: title, altText, description and audiences, in a new draft."""
    request = WriteRequest(
        caller=caller,
        workspace_id=workspace_id,
        content_type=ASSET_TYPE,
        id=asset_id,
        values=_write_values(body),
        audiences=tuple(body.audiences) if body.audiences is not None else None,
        expected_version=body.version,
    )
    return render(caller, workspace_id, _writing(asset_id, lambda: service.update_entry(request)))


def replace_file(
    caller: Caller, workspace_id: str, asset_id: str, body: ReplaceFileBody
) -> dict[str, Any]:
    """`POST /{id}/file`: a finished upload becomes the file of a new draft. Idempotent per
    upload: when the draft holds that upload's file already, the asset answers as it is."""
    require_writer(caller)
    check_upload_id(body.uploadId)
    content_type, versions = _stored(caller, workspace_id, asset_id)
    current = entry_view(content_type, versions.latest)
    held = file_of(current)
    current = written(caller, current)
    if held is None or held.id != derived_id(workspace_id, body.uploadId, "file"):
        file = process(workspace_id, asset_id, body.uploadId)
        if file is None:
            raise NotFound(f"upload {body.uploadId!r} not found: upload the file first (or again)")
        request = WriteRequest(
            caller=caller,
            workspace_id=workspace_id,
            content_type=ASSET_TYPE,
            id=asset_id,
            values=file.field_values(),
            expected_version=body.version,
        )
        current = _writing(asset_id, lambda: service.update_entry(request))
    objects.delete(objects.upload_key(workspace_id, body.uploadId))
    return render(caller, workspace_id, current)


def _writing(asset_id: str, write: Any) -> Entry:
    try:
        entry: Entry = write()
    except NotFound:
        raise _missing(asset_id) from None
    return entry


def _action(caller: Caller, workspace_id: str, asset_id: str) -> EntryAction:
    return EntryAction(
        caller=caller, workspace_id=workspace_id, content_type=ASSET_TYPE, id=asset_id
    )


def publish_asset(caller: Caller, workspace_id: str, asset_id: str) -> dict[str, Any]:
    """Publishing needs a ready file: a failed one is never served (409 otherwise)."""
    content_type, versions = _stored(caller, workspace_id, asset_id)
    file = file_of(entry_view(content_type, versions.latest))
    if file is None or not file.ready:
        reason = f" ({file.reason})" if file is not None and file.reason else ""
        raise Conflict(
            f"the asset's file is not ready{reason}: replace it (POST /api/v1/assets/"
            f"{asset_id}/file) before publishing"
        )
    action = _action(caller, workspace_id, asset_id)
    return render(caller, workspace_id, _writing(asset_id, lambda: service.publish_entry(action)))


def unpublish_asset(caller: Caller, workspace_id: str, asset_id: str) -> dict[str, Any]:
    action = _action(caller, workspace_id, asset_id)
    entry = _writing(asset_id, lambda: service.unpublish_entry(action))
    return render(caller, workspace_id, entry)


def trash_asset(caller: Caller, workspace_id: str, asset_id: str, *, force: bool = False) -> None:
    """`DELETE`: to the trash, as for entries (its files stay until it is purged); refused
    while published entries link it, unless `force`."""
    action = dataclasses.replace(_action(caller, workspace_id, asset_id), force=force)
    _writing(asset_id, lambda: service.delete_entry(action))


def asset_links(caller: Caller, workspace_id: str, asset_id: str, **query: Any) -> dict[str, Any]:
    """`GET /{id}/links`: the entries that link the asset through asset fields ("where used")."""
    request = LinkedFromRequest.parse(caller, workspace_id, ASSET_TYPE, asset_id, **query)
    try:
        return service.linked_from(request).to_json()
    except NotFound:
        raise _missing(asset_id) from None


def restore_asset(caller: Caller, workspace_id: str, asset_id: str) -> dict[str, Any]:
    action = _action(caller, workspace_id, asset_id)
    entry = _writing(asset_id, lambda: service.restore_entry(action))
    return render(caller, workspace_id, entry)


def list_versions(
    caller: Caller, workspace_id: str, asset_id: str, page: int, page_size: int
) -> dict[str, Any]:
    request = VersionsRequest.parse(
        caller, workspace_id, ASSET_TYPE, asset_id, page=page, page_size=page_size
    )
    try:
        return service.list_versions(request).to_json()
    except NotFound:
        raise _missing(asset_id) from None


def get_version(caller: Caller, workspace_id: str, asset_id: str, number: int) -> dict[str, Any]:
    """One published version, with the asset as it was then (its `url` is that version's
    file, which delivery serves while the asset is live)."""
    request = VersionRequest(caller, workspace_id, ASSET_TYPE, asset_id, number)
    try:
        detail = service.get_version(request)
    except NotFound as missing:
        raise NotFound(str(missing.message).replace("entry", "asset", 1)) from None
    body = detail.summary.to_json()
    body["asset"] = asset_json(detail.entry, workspace_id, caller, file_of(detail.entry))
    return body
