"""Cache tags: which content an answer was made from, so an edge can drop exactly those answers.

A cacheable answer carries its tags in `Surrogate-Key` (the Fastly and Varnish convention), and
the purge that follows a change names the tags of what changed (docs/api.md, "Cache tags"):

- `w:<h>` the workspace: every answer; a content type change or a workspace-wide change purges it;
- `k:<h>` the read token: every answer made for it; narrowing or revoking the token purges it;
- `l:<h>` a type's lists: every answer that lists or queries a type (REST lists, GraphQL
  collections, what links here, lists filtered through a linked type); every change of an entry
  of that type that a read token can see (publish, unpublish, trash, restore, purge) purges it;
- `e:<h>` an entry or asset: every answer that read it, or asked for it and found it invisible
  (a draft target of a relation shows up once published); its changes purge it.

Each `<h>` is a short hash of the workspace and the name, so tags are short, equal for equal
content whatever the path, and name no workspace, entry or token. The reads record tags into the
request's collector as they go (one collector per request, shared by the threads that serve
it); an answer whose tags would pass `MAX_HEADER_BYTES` keeps its lists' and its entries' types'
list tags instead, which every change of those entries purges too.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

HEADER = "Surrogate-Key"
MAX_HEADER_BYTES = 4000
"""Within Varnish's 8 KB limit on one response header line, and Fastly's 16 KB for the header."""


def _hash(*parts: str) -> str:
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
    return base64.b32encode(digest).decode().rstrip("=").lower()


def workspace_tag(workspace_id: str) -> str:
    return "w:" + _hash("w", workspace_id)


def token_tag(token_id: str) -> str:
    return "k:" + _hash("k", token_id)


def list_tag(workspace_id: str, content_type: str) -> str:
    return "l:" + _hash("l", workspace_id, content_type)


def entry_tag(workspace_id: str, entry_id: str) -> str:
    return "e:" + _hash("e", workspace_id, entry_id)


def change_tags(workspace_id: str, content_type: str, entry_id: str) -> list[str]:
    """What a visible change of one entry purges: answers that read it and lists of its type."""
    return [entry_tag(workspace_id, entry_id), list_tag(workspace_id, content_type)]


@dataclass
class Collected:
    """The tags of one answer in the making."""

    workspaces: set[str] = field(default_factory=set)
    lists: set[tuple[str, str]] = field(default_factory=set)
    entries: dict[tuple[str, str], set[str]] = field(default_factory=dict)

    def header(self, token_id: str | None) -> str:
        """`Surrogate-Key`'s value: every tag, or the fallback to list tags when too long."""
        fixed = [workspace_tag(w) for w in sorted(self.workspaces)]
        if token_id is not None:
            fixed.append(token_tag(token_id))
        lists = {list_tag(w, t) for w, t in self.lists}
        entries = {entry_tag(w, i) for (w, _), ids in self.entries.items() for i in ids}
        tags = fixed + sorted(lists) + sorted(entries)
        if len(" ".join(tags)) <= MAX_HEADER_BYTES:
            return " ".join(tags)
        lists |= {list_tag(w, t) for w, t in self.entries}
        return " ".join(fixed + sorted(lists))


_current: ContextVar[Collected | None] = ContextVar("cache_tags", default=None)


@contextmanager
def collecting() -> Iterator[Collected]:
    """Collect the tags of the reads made within (and in threads that copy this context)."""
    collected = Collected()
    reset = _current.set(collected)
    try:
        yield collected
    finally:
        _current.reset(reset)


def current() -> Collected | None:
    return _current.get()


def record_list(workspace_id: str, content_type: str) -> None:
    """The answer lists or queries `content_type`: any visible change of its entries alters it."""
    collected = _current.get()
    if collected is not None:
        collected.workspaces.add(workspace_id)
        collected.lists.add((workspace_id, content_type))


def record_entries(workspace_id: str, content_type: str, entry_ids: Iterable[str]) -> None:
    """The answer read (or looked for) these entries of `content_type`."""
    collected = _current.get()
    if collected is not None:
        collected.workspaces.add(workspace_id)
        collected.entries.setdefault((workspace_id, content_type), set()).update(entry_ids)
