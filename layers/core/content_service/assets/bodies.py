"""The request bodies of `/api/v1/assets` (their docstrings are the OpenAPI descriptions)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MAX_FILE_NAME = 255
MAX_URL = 2048


class UploadBody(BaseModel):
    """Either `{fileName, contentType, size}`: a presigned POST for that exact file, or `{url}`
    (with an optional `fileName`): the service fetches the file itself, under the webhooks' URL
    policy, and answers the `uploadId` to complete."""

    model_config = ConfigDict(extra="forbid", strict=True)

    fileName: str | None = Field(default=None, min_length=1, max_length=MAX_FILE_NAME)
    contentType: str | None = Field(default=None, min_length=3, max_length=127)
    size: int | None = Field(default=None, ge=1, le=2**53)
    url: str | None = Field(default=None, min_length=1, max_length=MAX_URL)


class AssetFieldsBody(BaseModel):
    """What a client writes of an asset: its texts and its audiences. On PATCH an omitted key
    is unchanged and null clears it; `version` is the asset version the edit was made from
    (another is 409 `version_conflict`)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    title: str | None = Field(default=None, max_length=256)
    altText: str | None = Field(default=None, max_length=256)
    description: str | None = Field(default=None, max_length=50_000)
    audiences: list[str] | None = Field(default=None, max_length=50)
    version: int | None = Field(default=None, ge=1, le=2**53)


class CompleteBody(AssetFieldsBody):
    """Makes an asset of a finished upload (`uploadId`): its bytes are read and checked, and
    the asset answers `state: ready`, or `failed` with the reason. Completing the same upload
    again answers the same asset."""

    uploadId: str = Field(min_length=1, max_length=64)


class ReplaceFileBody(BaseModel):
    """A finished upload that becomes the asset's file in a new draft; the published file
    keeps being served until the draft is published."""

    model_config = ConfigDict(extra="forbid", strict=True)

    uploadId: str = Field(min_length=1, max_length=64)
    version: int | None = Field(default=None, ge=1, le=2**53)
