"""Persisted documents: Apollo's automatic persisted queries, and trusted documents.

A request may name its document by SHA-256 (`extensions.persistedQuery.sha256Hash`) instead of
sending it, so a GET stays short and cacheable. For an unknown hash the answer is the error
`PersistedQueryNotFound` (`PERSISTED_QUERY_NOT_FOUND`), and the client sends the hash again
with the `query`: the hash is checked against the text, the document goes through every check
of the pipeline, and once it passed it is stored (`register`), so later hash-only requests
run it. Documents are kept in the persisted-queries table, per workspace (one workspace's
documents are not another's), shared by every API instance:

- registered by a read token (or a token that is not full): untrusted, expiring
  `UNTRUSTED_TTL_DAYS` after their last use (the expiry moves at most once a day, on a read);
- registered by a full token or a signed-in user: trusted, kept.

A GET authenticated by the session cookie never registers a document (it still runs): a page
on any site can navigate a signed-in editor's browser to such a URL, and the `SameSite=Lax`
cookie goes with a top-level navigation, so that registration would be a document the site's
owner never chose, made runnable by every `persistedOnly` token of the workspace.

A `persistedOnly` token runs trusted documents only (the "trusted documents" practice): it
sends hashes, a free-form `query` is refused (`PERSISTED_QUERY_ID_REQUIRED`), and a document
no full token registered is refused when it sends the text (`PERSISTED_QUERY_NOT_IN_LIST`).

The text behind a hash never changes, so a found document is kept in process memory too
(`FOUND_DOCUMENTS`, for `FRESH_SECONDS`): a warm instance reads the table once per document.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from content_service.graphql.errors import RequestError
from content_service.graphql.transport import GraphQLRequest, Incoming
from content_service.identity.principal import Caller, TokenCaller, UserCaller
from content_service.storage import dynamo

UNTRUSTED_TTL_DAYS = 30
REFRESH_AFTER_SECONDS = 86_400
FOUND_DOCUMENTS = 1024
FRESH_SECONDS = 300.0
_DAY = 86_400


@dataclass(frozen=True)
class Stored:
    query: str
    trusted: bool


def document_hash(query: str) -> str:
    return hashlib.sha256(query.encode("utf-8")).hexdigest()


def registers_trusted(caller: Caller) -> bool:
    """Whose registrations a `persistedOnly` token may run: a full token's (not itself
    persisted-only) or a signed-in user's."""
    if isinstance(caller, UserCaller):
        return True
    return caller.access == "full" and not caller.persisted_only


def _persisted_only(caller: Caller) -> bool:
    return isinstance(caller, TokenCaller) and caller.persisted_only


def not_found() -> RequestError:
    return RequestError("PERSISTED_QUERY_NOT_FOUND", "PersistedQueryNotFound", 404)


class PersistedDocuments:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        """Unix seconds, for the expiry."""
        self._lock = threading.Lock()
        self._found: OrderedDict[tuple[str, str], tuple[Stored, float]] = OrderedDict()

    def clear(self) -> None:
        with self._lock:
            self._found.clear()

    def resolve(
        self,
        incoming: Incoming,
        caller: Caller,
        workspace_id: str,
        *,
        read_only: bool,
        may_register: bool = True,
    ) -> GraphQLRequest:
        """The request to run: the document sent, or the one its hash names. `may_register`
        False: a document sent with its hash runs but is not stored (a cookie's GET)."""
        digest, query = incoming.persisted_hash, incoming.query
        persist_as = None
        if digest is None:
            if _persisted_only(caller):
                raise RequestError(
                    "PERSISTED_QUERY_ID_REQUIRED",
                    "this token runs registered documents only: send "
                    "extensions.persistedQuery.sha256Hash instead of a query",
                )
        elif query is None:
            query = self._named(workspace_id, digest, caller).query
        else:
            persist_as = self._sent_with_hash(workspace_id, digest, query, caller)
            if not may_register:
                persist_as = None
        if query is None:
            raise RequestError("BAD_REQUEST", "the request needs `query`, a string")
        return GraphQLRequest(
            query,
            incoming.variables,
            incoming.operation_name,
            read_only=read_only,
            persist_as=persist_as,
        )

    def _named(self, workspace_id: str, digest: str, caller: Caller) -> Stored:
        """The document a hash-only request names (for a `persistedOnly` token: a trusted one)."""
        only_trusted = _persisted_only(caller)
        stored = self.find(workspace_id, digest, trusted=only_trusted)
        if stored is None or (only_trusted and not stored.trusted):
            raise not_found()
        return stored

    def _sent_with_hash(
        self, workspace_id: str, digest: str, query: str, caller: Caller
    ) -> str | None:
        """Checks a document sent with its hash; the hash to register it under, if it must be."""
        if document_hash(query) != digest:
            raise RequestError(
                "PERSISTED_QUERY_HASH_MISMATCH",
                "extensions.persistedQuery.sha256Hash is not the SHA-256 of the query",
            )
        if _persisted_only(caller):
            stored = self.find(workspace_id, digest, trusted=True)
            if stored is None or not stored.trusted:
                raise RequestError(
                    "PERSISTED_QUERY_NOT_IN_LIST",
                    "this token runs registered documents only, and this one is not: a full "
                    "token registers it by sending it with its hash",
                    403,
                )
            return None
        return None if self._known(workspace_id, digest, registers_trusted(caller)) else digest

    def _known(self, workspace_id: str, digest: str, trusted: bool) -> bool:
        """Already stored as the caller would store it (nothing to register)."""
        with self._lock:
            found = self._found.get((workspace_id, digest))
        return found is not None and (found[0].trusted or not trusted)

    def find(self, workspace_id: str, digest: str, *, trusted: bool = False) -> Stored | None:
        """The stored document, from memory when known there; an untrusted one is read again
        when a `trusted` one is wanted (a full token may have registered it since)."""
        now = time.monotonic()
        with self._lock:
            found = self._found.get((workspace_id, digest))
            fresh = found is not None and now - found[1] < FRESH_SECONDS
            if found is not None and fresh and (found[0].trusted or not trusted):
                self._found.move_to_end((workspace_id, digest))
                return found[0]
        stored = self._read(workspace_id, digest)
        if stored is not None:
            self._remember(workspace_id, digest, stored)
        return stored

    def _read(self, workspace_id: str, digest: str) -> Stored | None:
        item = dynamo.get_item(
            dynamo.tables().persisted_queries, {"pk": {"S": _key(workspace_id, digest)}}
        )
        if item is None:
            return None
        trusted = bool(item.get("trusted"))
        expires = float(item["expiresAt"]) if "expiresAt" in item else None
        now = self.clock()
        if not trusted and expires is not None:
            if expires <= now:
                return None  # expired; DynamoDB's TTL deletes it within days
            if expires - now < UNTRUSTED_TTL_DAYS * _DAY - REFRESH_AFTER_SECONDS:
                self._refresh(workspace_id, digest, now)
        return Stored(str(item["query"]), trusted)

    def _refresh(self, workspace_id: str, digest: str, now: float) -> None:
        dynamo.conditional(
            dynamo.client().update_item,
            TableName=dynamo.tables().persisted_queries,
            Key={"pk": {"S": _key(workspace_id, digest)}},
            UpdateExpression="SET #expires = :expires",
            ConditionExpression="attribute_exists(pk) AND attribute_not_exists(#trusted)",
            ExpressionAttributeNames={"#expires": "expiresAt", "#trusted": "trusted"},
            ExpressionAttributeValues={":expires": {"N": str(_expiry(now))}},
        )

    def register(self, caller: Caller, workspace_id: str, digest: str, query: str) -> None:
        """Stores a document that passed the pipeline's checks, trusted when the caller may
        register trusted documents. An untrusted registration never demotes a trusted one."""
        trusted = registers_trusted(caller)
        key = {"pk": {"S": _key(workspace_id, digest)}}
        table = dynamo.tables().persisted_queries
        if trusted:
            dynamo.client().update_item(
                TableName=table,
                Key=key,
                UpdateExpression="SET #query = :query, #trusted = :true REMOVE #expires",
                ExpressionAttributeNames={
                    "#query": "query",
                    "#trusted": "trusted",
                    "#expires": "expiresAt",
                },
                ExpressionAttributeValues={":query": {"S": query}, ":true": {"BOOL": True}},
            )
        else:
            dynamo.conditional(
                dynamo.client().update_item,
                TableName=table,
                Key=key,
                UpdateExpression="SET #query = :query, #expires = :expires",
                ConditionExpression="attribute_not_exists(#trusted)",
                ExpressionAttributeNames={
                    "#query": "query",
                    "#trusted": "trusted",
                    "#expires": "expiresAt",
                },
                ExpressionAttributeValues={
                    ":query": {"S": query},
                    ":expires": {"N": str(_expiry(self.clock()))},
                },
            )
        self._remember(workspace_id, digest, Stored(query, trusted))

    def _remember(self, workspace_id: str, digest: str, stored: Stored) -> None:
        with self._lock:
            known = self._found.get((workspace_id, digest))
            if known is not None and known[0].trusted and not stored.trusted:
                stored = known[0]
            self._found[(workspace_id, digest)] = (stored, time.monotonic())
            self._found.move_to_end((workspace_id, digest))
            while len(self._found) > FOUND_DOCUMENTS:
                self._found.popitem(last=False)


def _key(workspace_id: str, digest: str) -> str:
    return f"{workspace_id}#{digest}"


def _expiry(now: float) -> int:
    return int(now) + UNTRUSTED_TTL_DAYS * _DAY


documents = PersistedDocuments()
"""The process's view of the persisted-queries table."""


def register(caller: Caller, workspace_id: str, digest: str, query: str) -> None:
    documents.register(caller, workspace_id, digest, query)
