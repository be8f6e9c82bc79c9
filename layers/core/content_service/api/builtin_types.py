"""Built-in content types stay out of the routes that serve a user's types.

The `asset` type's entries are served under `/api/v1/assets`, whose routes keep the file
system-managed; through `/api/v1/content/asset`, `/api/v1/content-types/asset` or the admin's
entry pages a client could write the file itself, so there the name is unknown (404), as any
type that does not exist.
"""

from __future__ import annotations

from fastapi import Depends, Request

from content_service.content.schema import BUILTIN_TYPE_NAMES
from content_service.errors import NotFound

_TYPE_PARAMS = ("content_type", "name")


def refuse_builtin_type(request: Request) -> None:
    """A router dependency: a path naming a built-in type is 404."""
    for param in _TYPE_PARAMS:
        name = request.path_params.get(param)
        if name in BUILTIN_TYPE_NAMES:
            raise NotFound(f"content type {name!r} not found")


USER_TYPES_ONLY = [Depends(refuse_builtin_type)]
