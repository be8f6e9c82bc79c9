"""The CloudFront purge: invalidations by path, since CloudFront has no cache tags.

CloudFront keys an answer on its path, its query string and the `Authorization` header, and
its paths name no workspace (a token says which), so a change maps to path patterns, each with
a trailing `*` for every query string and token:

- an entry of type T: `/api/v1/content/T*` (its reads, T's lists, its relations and links
  pages), `/api/v1/content/S*` for every type S with a relation to T (their expansions and
  lists filtered through T), `/api/v1/graphql*` (any query may show it); an asset, also its
  files, `/files/<ws>/<asset>/*` (immutable and kept a year, so an unpublished asset's file
  would stay servable);
- a content type replaced or deleted: `/api/v1/content/*` and `/api/v1/graphql*`;
- a token narrowed or revoked: `/api/v1/*` (no path names a token).

One invalidation per batch of events (the events stream's batching window sets the pace). Past
`MAX_PATHS` patterns it invalidates `/api/v1/*` and `/files/*` instead: CloudFront allows 15
wildcard paths in progress at once, and charges per path. The invalidation's `CallerReference`
is made from the batch's event ids, so a retried batch names the same invalidation.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from content_service.content.schema import ASSET_TYPE
from content_service.edge.changes import EdgeChange, PurgeFailed

MAX_PATHS = 10
API = "/api/v1/*"
CONTENT = "/api/v1/content/"
GRAPHQL = "/api/v1/graphql*"
EVERYTHING = (API, "/files/*")

Linkers = Callable[[str, str], Iterable[str]]
"""The types of a workspace with a relation to a type: `(workspace_id, type) -> names`."""


def _entry_paths(change: EdgeChange, linkers: Linkers) -> set[str]:
    types = {change.content_type, *linkers(change.workspace_id, change.content_type)}
    paths = {f"{CONTENT}{name}*" for name in types} | {GRAPHQL}
    if change.content_type == ASSET_TYPE:
        paths.add(f"/files/{change.workspace_id}/{change.entry_id}/*")
    return paths


def invalidation_paths(changes: Iterable[EdgeChange], linkers: Linkers) -> list[str]:
    """The path patterns that cover every answer the changes may alter (`linkers` is asked once
    per workspace and type)."""
    linkers = functools.cache(linkers)
    paths: set[str] = set()
    for change in changes:
        if change.scope == "token":
            paths.add(API)
        elif change.scope == "workspace":
            paths |= {f"{CONTENT}*", GRAPHQL}
        else:
            paths |= _entry_paths(change, linkers)
    paths = {p for p in paths if not any(_covers(q, p) for q in paths)}
    if len(paths) > MAX_PATHS:
        return list(EVERYTHING)
    return sorted(paths)


def _covers(pattern: str, path: str) -> bool:
    """Whether another wildcard pattern already invalidates everything `path` does."""
    return pattern != path and pattern.endswith("*") and path.startswith(pattern[:-1])


def caller_reference(changes: Sequence[EdgeChange]) -> str:
    ids = sorted(c.event_id for c in changes)
    return "purge-" + hashlib.sha256("\n".join(ids).encode()).hexdigest()[:40]


class CloudFrontPurger:
    def __init__(self, distribution_id: str, client: Any, linkers: Linkers) -> None:
        self.distribution_id = distribution_id
        self.client = client
        self.linkers = linkers

    def purge(self, changes: Sequence[EdgeChange]) -> None:
        paths = invalidation_paths(changes, self.linkers)
        if not paths:
            return
        try:
            self.client.create_invalidation(
                DistributionId=self.distribution_id,
                InvalidationBatch={
                    "Paths": {"Quantity": len(paths), "Items": paths},
                    "CallerReference": caller_reference(changes),
                },
            )
        except (BotoCoreError, ClientError) as error:
            # Throttled, too many invalidations in progress, unreachable: the batch is retried.
            raise PurgeFailed(f"CloudFront refused the invalidation: {error}") from None
