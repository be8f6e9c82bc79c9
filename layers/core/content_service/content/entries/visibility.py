"""Who sees which entry: one set of rules for every read, REST and GraphQL alike.

- The workspace bucket: entries are keyed by workspace, so another workspace's entry is simply
  not found (and every miss is a 404, never data).
- The grant set: a type the token is not granted is unknown to it (404 everywhere).
- Versions: a `read` token reads the published version of each entry (the delivery view),
  never a draft, not even a newer draft of a live entry; a `full` token and a signed-in user
  read the latest versions (the preview) unless they ask for the published ones
  (`requests.parse_view`).
- Trash: a trashed entry is seen by no read (only restore and purge reach it).
- Audiences: an entry of an audience-gated type is seen by a token (read or full) only when the
  token's audiences intersect the entry's; a signed-in user sees every entry.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from content_service.content.entries.items import Status, View
from content_service.content.schema import ContentType
from content_service.identity.principal import Caller, TokenCaller


def audiences_allow(caller: Caller, content_type: ContentType, audiences: Iterable[str]) -> bool:
    if not content_type.audience_gated or not isinstance(caller, TokenCaller):
        return True
    return not caller.audiences.isdisjoint(audiences)


class Version(Protocol):
    """What visibility reads of a version: a stored entry's or a list summary's."""

    @property
    def status(self) -> Status: ...

    @property
    def deleted(self) -> bool: ...

    @property
    def audiences(self) -> Iterable[str]: ...


def visible(caller: Caller, content_type: ContentType, version: Version, view: View) -> bool:
    """Whether a version read in `view` is shown: in the delivery view only published
    versions (what the published items hold), in the preview only to who may preview."""
    if version.deleted or not caller.grants(content_type.name):
        return False
    if view == "published" and version.status != "published":
        return False
    if view == "latest" and not caller.sees_drafts:
        return False
    return audiences_allow(caller, content_type, version.audiences)
