"""The schema cache: one built schema per (workspace, schema version, visible types).

Two layers, both bounded (LRU) and shared by every request of the process:
- per workspace, a snapshot of its content types and schema version (`service.get_schema`).
  A token's request reads the version beside the token, in the same BatchGetItem
  (`api.auth.caller_beside`), so the types are read again on the first request after they
  changed, at no extra request. Where no version was read (a signed-in user, a token's first
  request in this process) the snapshot is trusted for
  `settings.graphql.schema_cache_ttl_seconds`, then the version is read (one GetItem);
- per key (workspace id, schema version, the sorted names of the types the live caller is
  granted, whether the caller may write), the built schema. The grant set and the write
  permission are taken from the live caller on every request, so a token whose grant set
  changed gets another key at once, and a read token never shares a full token's schema with
  its `Mutation` type; the version in the key means a built schema never outlives the
  definitions it was built from, whatever the TTL.

Whatever a cached schema says, every resolver calls the service with the live caller (which
re-checks scope, grant set and visibility), so a stale schema can describe a revoked or deleted
type but cannot read it (hence: cached by everything that changes the schema).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from content_service.content import service
from content_service.content.schema import ContentType
from content_service.errors import Forbidden
from content_service.graphql.build import build_schema
from content_service.graphql.built import BuiltSchema
from content_service.identity.principal import Caller

SchemaKey = tuple[str, int, frozenset[str], bool]
MAX_SCHEMAS = 64
MAX_WORKSPACES = 512


@dataclass
class _Snapshot:
    version: int
    types: Mapping[str, ContentType]
    checked_at: float


class SchemaCache:
    def __init__(
        self,
        max_schemas: int = MAX_SCHEMAS,
        max_workspaces: int = MAX_WORKSPACES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._lock = threading.Lock()
        self.clock = clock
        """Seconds, for the TTL; a test replaces it to step past the TTL instead of sleeping."""
        self._max_schemas = max_schemas
        self._max_workspaces = max_workspaces
        self._snapshots: OrderedDict[str, _Snapshot] = OrderedDict()
        self._schemas: OrderedDict[SchemaKey, BuiltSchema] = OrderedDict()
        self.builds = 0
        """How many schemas this cache has built (for tests and the bench)."""

    def clear(self) -> None:
        with self._lock:
            self._snapshots.clear()
            self._schemas.clear()

    def schema_for(
        self, caller: Caller, workspace_id: str, ttl_seconds: float, version: int | None = None
    ) -> BuiltSchema:
        """The schema of the caller's grant set in the workspace (403 without content:read).
        `version`, when the caller already read it, is the workspace's schema version now: a
        snapshot of another version is replaced at once, whatever the TTL."""
        if not caller.can_read:
            raise Forbidden("this token lacks the content:read scope")
        snapshot = self._snapshot(workspace_id, ttl_seconds, version)
        visible = {name: t for name, t in snapshot.types.items() if caller.grants(name)}
        key: SchemaKey = (workspace_id, snapshot.version, frozenset(visible), caller.can_write)
        with self._lock:
            built = self._schemas.get(key)
            if built is not None:
                self._schemas.move_to_end(key)
                return built
        built = build_schema(workspace_id, snapshot.version, visible, writable=caller.can_write)
        with self._lock:
            self.builds += 1
            self._schemas[key] = built
            while len(self._schemas) > self._max_schemas:
                self._schemas.popitem(last=False)
        return built

    def _snapshot(self, workspace_id: str, ttl_seconds: float, version: int | None) -> _Snapshot:
        now = self.clock()
        with self._lock:
            known = self._snapshots.get(workspace_id)
            if known is not None:
                self._snapshots.move_to_end(workspace_id)
        if known is not None and version is None:
            if now - known.checked_at < ttl_seconds:
                return known
            version = service.schema_version(workspace_id)
        if known is not None and version == known.version:
            fresh = _Snapshot(known.version, known.types, now)
        else:
            schema = service.get_schema(workspace_id)
            fresh = _Snapshot(schema.version, dict(schema.types), now)
        with self._lock:
            self._snapshots[workspace_id] = fresh
            self._snapshots.move_to_end(workspace_id)
            while len(self._snapshots) > self._max_workspaces:
                self._snapshots.popitem(last=False)
        return fresh


schemas = SchemaCache()
"""The process's cache (a Lambda instance keeps it across warm invocations)."""
