"""API tokens: `cs_` + 32 random bytes (base64url), shown once, stored as a SHA-256 digest.

The digest is the record's key, so authenticating is one strongly consistent GetItem and a
revocation is seen by the very next request. Tokens hold a workspace bucket, an access level,
a grant set of content types (`*` for all, including types added later), scopes and audiences,
optionally a role to act with inside that grant (never administrator), and how they may be
used: a request rate of their own (`rateLimit`, else the service's default) and
`persistedOnly` (the token runs registered GraphQL documents only).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from content_service.audit.records import COMMAND_LINE, Actor, Target, record_put
from content_service.clock import Clock, SystemClock, iso_utc
from content_service.errors import NotFound, Unauthorized, ValidationFailed
from content_service.identity.principal import (
    ALL_SCOPES,
    ALL_TYPES,
    SCOPE_CONTENT_READ,
    SCOPE_CONTENT_WRITE,
    Access,
    TokenCaller,
    TokenGrant,
)
from content_service.identity.roles import ADMINISTRATOR, RoleGrant
from content_service.identity.workspaces import get_workspace, resolve_workspace
from content_service.settings import MAX_RATE_LIMIT
from content_service.storage import dynamo
from content_service.storage.edge_events import token_changed_put

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

    from content_service.identity.models import TokenRecord

TOKEN_PREFIX = "cs_"  # noqa: S105 (a prefix, not a secret)
_TOKEN_SHAPE = re.compile(r"^cs_[A-Za-z0-9_-]{43}$")
_TYPE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_MAX_AUDIENCES = 50


@dataclass(frozen=True)
class TokenSpec:
    """What a caller asks for when creating or changing a token."""

    name: str
    workspace_id: str
    access: str
    content_types: tuple[str, ...] = (ALL_TYPES,)
    scopes: tuple[str, ...] | None = None
    audiences: tuple[str, ...] = ()
    rate_limit: int | None = None
    """Requests per second; None: the service's default (`CONTENT_RATE_LIMIT`); 0: no limit."""
    persisted_only: bool = False
    role: RoleGrant | None = None
    """A role the token acts with, inside its grant (an automation as an Author)."""


@dataclass(frozen=True, kw_only=True)
class TokenInfo(TokenGrant):
    id: str
    hint: str
    created_at: str
    revoked_at: str | None

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            **self.grant_json(),
            "rateLimit": self.rate_limit,
            "persistedOnly": self.persisted_only,
            "tokenHint": self.hint,
            "createdAt": self.created_at,
            "revokedAt": self.revoked_at,
        }


def mint_token() -> str:
    return TOKEN_PREFIX + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _validated(spec: TokenSpec) -> tuple[str, Access, set[str], set[str], set[str]]:
    name = spec.name.strip()
    if not name or len(name) > 100:
        raise ValidationFailed("token name must be 1 to 100 characters")
    if spec.access not in ("read", "full"):
        raise ValidationFailed("access must be 'read' or 'full'")
    access: Access = "full" if spec.access == "full" else "read"
    types = set(spec.content_types)
    if not types:
        raise ValidationFailed("contentTypes must name at least one content type, or '*'")
    bad = sorted(t for t in types if t != ALL_TYPES and not _TYPE_NAME.match(t))
    if bad:
        raise ValidationFailed("contentTypes holds invalid names", details={"invalid": bad})
    if spec.scopes is None:
        scopes = {SCOPE_CONTENT_READ} if access == "read" else set(ALL_SCOPES)
    else:
        scopes = set(spec.scopes)
    unknown = sorted(scopes - ALL_SCOPES)
    if unknown:
        raise ValidationFailed("unknown scopes", details={"unknown": unknown})
    if access == "read" and SCOPE_CONTENT_WRITE in scopes:
        raise ValidationFailed("a read token cannot hold content:write")
    audiences = {a.strip() for a in spec.audiences}
    if len(audiences) > _MAX_AUDIENCES or any(not a or len(a) > 64 for a in audiences):
        raise ValidationFailed(f"audiences must be at most {_MAX_AUDIENCES} names of 1-64 chars")
    check_rate_limit(spec.rate_limit)
    _check_role(spec.role, spec.workspace_id)
    get_workspace(spec.workspace_id)
    return name, access, types, scopes, audiences


def _check_role(grant: RoleGrant | None, workspace_id: str) -> None:
    """A token's role exists and is not administrator (administering is a signed-in user's)."""
    from content_service.identity.users import checked_grants

    if grant is None:
        return
    if grant.role == ADMINISTRATOR:
        raise ValidationFailed("a token cannot be given the administrator role")
    checked_grants(workspace_id, [grant])


def _role_json(grant: RoleGrant | None) -> str | None:
    return json.dumps(grant.to_json()) if grant is not None else None


def _role_of(stored: str | None) -> RoleGrant | None:
    if stored is None:
        return None
    return RoleGrant.from_json(json.loads(stored))


def check_rate_limit(rate_limit: int | None) -> None:
    if rate_limit is not None and not 0 <= rate_limit <= MAX_RATE_LIMIT:
        raise ValidationFailed(
            f"rateLimit must be 0 (no limit) to {MAX_RATE_LIMIT} requests per second, or null "
            "for the service's default"
        )


def _info(record: TokenRecord) -> TokenInfo:
    access: Access = "full" if record.access == "full" else "read"
    return TokenInfo(
        id=record.id,
        name=record.name,
        workspace_id=record.workspaceId,
        access=access,
        content_types=frozenset(record.contentTypes or ()),
        scopes=frozenset(record.scopes or ()),
        audiences=frozenset(record.audiences or ()),
        hint=record.hint,
        created_at=record.createdAt,
        revoked_at=record.revokedAt,
        rate_limit=int(record.rateLimit) if record.rateLimit is not None else None,
        persisted_only=bool(record.persistedOnly),
        role=_role_of(record.role),
    )


_SHOWN = (
    "name",
    "access",
    "contentTypes",
    "scopes",
    "audiences",
    "rateLimit",
    "persistedOnly",
    "role",
)
"""What a token's audit record shows of it: its grant and limits, never the token or its hint."""


def _token_changes(before: TokenInfo | None, after: TokenInfo) -> dict[str, Any] | None:
    old = before.to_json() if before is not None else {}
    new = after.to_json()
    names = [name for name in _SHOWN if old.get(name) != new.get(name)]
    return {"fields": names, "values": {n: new[n] for n in names}} if names else None


def _token_record(
    by: Actor, action: str, info: TokenInfo, now: float, changes: dict[str, Any] | None
) -> TransactWriteItemTypeDef:
    """The audit record of a token change, in the change's own transaction."""
    target = Target("token", info.id)
    return record_put(info.workspace_id, f"token.{action}", by, target, now, changes)


def create_token(
    spec: TokenSpec, clock: Clock | None = None, *, by: Actor = COMMAND_LINE
) -> tuple[str, TokenInfo]:
    """Returns the token itself (shown once, never stored) and its description. The record
    and its audit record (`by`: who asked) are one transaction."""
    from content_service.identity.models import TokenRecord

    name, access, types, scopes, audiences = _validated(spec)
    token = mint_token()
    now = (clock or SystemClock()).now()
    record = TokenRecord(
        pk=f"TOKEN#{token_digest(token)}",
        id=str(uuid.uuid4()),
        name=name,
        workspaceId=spec.workspace_id,
        access=access,
        contentTypes=types,
        scopes=scopes,
        audiences=audiences or None,
        rateLimit=spec.rate_limit,
        persistedOnly=spec.persisted_only or None,
        role=_role_json(spec.role),
        hint=token[-4:],
        createdAt=iso_utc(now),
    )
    record.gsi1sk = record.id
    info = _info(record)
    put: Any = record.get_save_kwargs_from_instance(condition=TokenRecord.pk.does_not_exist())
    dynamo.transact(
        [{"Put": put}, _token_record(by, "created", info, now, _token_changes(None, info))]
    )
    return token, info


def issue_token(spec: TokenSpec, *, by: Actor = COMMAND_LINE) -> dict[str, Any]:
    """A new token for a workspace named by id or slug (the API's and the CLI's form): its
    description, with the token itself shown this once."""
    workspace = resolve_workspace(spec.workspace_id)
    token, info = create_token(replace(spec, workspace_id=workspace.id), by=by)
    return {**info.to_json(), "token": token}


def _record_by_id(token_id: str) -> TokenRecord:
    from content_service.identity.models import TokenRecord

    for record in TokenRecord.by_kind.query("TOKENS", TokenRecord.gsi1sk == token_id):
        return TokenRecord.get(record.pk, "TOKEN", consistent_read=True)
    raise NotFound(f"token {token_id} not found")


def revoke_token(
    token_id: str, clock: Clock | None = None, *, by: Actor = COMMAND_LINE
) -> TokenInfo:
    """Revokes the token (a revoked one stays as it is: no change, no record)."""
    from content_service.identity.models import TokenRecord

    record = _record_by_id(token_id)
    if record.revokedAt is None:
        now = (clock or SystemClock()).now()
        audit = _token_record(by, "revoked", _info(record), now, None)
        _update_announced(record, [TokenRecord.revokedAt.set(iso_utc(now))], now, audit)
        record.revokedAt = iso_utc(now)
    return _info(record)


def _update_announced(
    record: TokenRecord, actions: list[Any], now: float, audit: TransactWriteItemTypeDef
) -> None:
    """Updates the token and writes its `token.changed` event and its audit record in one
    transaction, so the edge purge (fed by the events stream) drops what it holds for the
    token however the process ends, and the log holds the change exactly when it happened."""
    from content_service.identity.models import TokenRecord

    update: Any = record.get_update_kwargs_from_instance(
        actions=actions, condition=TokenRecord.pk.exists()
    )
    dynamo.transact(
        [{"Update": update}, token_changed_put(record.workspaceId, record.id, now), audit]
    )


KEEP: Any = object()
"""`update_token`'s default for `rate_limit`: unchanged (None means "the service's default")."""


def update_token(
    token_id: str,
    *,
    content_types: Iterable[str] | None = None,
    audiences: Iterable[str] | None = None,
    rate_limit: Any = KEEP,
    persisted_only: bool | None = None,
    by: Actor = COMMAND_LINE,
) -> TokenInfo:
    """Changes what a token may read and how it may be used; the next request sees the change.
    An argument left out (None; KEEP for `rate_limit`) keeps its value."""
    from content_service.identity.models import TokenRecord

    record = _record_by_id(token_id)
    current = _info(record)
    spec = TokenSpec(
        name=current.name,
        workspace_id=current.workspace_id,
        access=current.access,
        content_types=tuple(content_types if content_types is not None else current.content_types),
        scopes=tuple(current.scopes),
        audiences=tuple(audiences if audiences is not None else current.audiences),
        rate_limit=current.rate_limit if rate_limit is KEEP else rate_limit,
        persisted_only=current.persisted_only if persisted_only is None else persisted_only,
        role=current.role,
    )
    _, _, types, _, new_audiences = _validated(spec)
    actions: list[Any] = [
        TokenRecord.contentTypes.set(types),
        TokenRecord.audiences.set(new_audiences)
        if new_audiences
        else TokenRecord.audiences.remove(),
        TokenRecord.rateLimit.set(spec.rate_limit)
        if spec.rate_limit is not None
        else TokenRecord.rateLimit.remove(),
        TokenRecord.persistedOnly.set(True)
        if spec.persisted_only
        else TokenRecord.persistedOnly.remove(),
    ]
    now = SystemClock().now()
    after = replace(
        current,
        content_types=frozenset(types),
        audiences=frozenset(new_audiences),
        rate_limit=spec.rate_limit,
        persisted_only=spec.persisted_only,
    )
    audit = _token_record(by, "updated", current, now, _token_changes(current, after))
    _update_announced(record, actions, now, audit)
    return after


def list_tokens() -> list[TokenInfo]:
    from content_service.identity.models import TokenRecord

    return [_info(r) for r in TokenRecord.by_kind.query("TOKENS")]


def _caller(info: TokenInfo) -> TokenCaller:
    return TokenCaller.holding(info.id, info)


def caller_by_token_id(token_id: str) -> TokenCaller:
    """The token as a caller now, by id (what a schedule made with it runs as); a revoked
    token is refused as its bearer would be."""
    record = _record_by_id(token_id)
    if record.revokedAt is not None:
        raise Unauthorized("token revoked")
    return _caller(_info(record))


def authenticate_token_beside(
    token: str, key: Mapping[str, Any]
) -> tuple[TokenCaller, dict[str, Any] | None]:
    """`authenticate_token`, reading one more item of the token's table (at `key`) in the same
    strongly consistent BatchGetItem: GraphQL reads the schema version of the token's
    workspace so, and notices a new content type on the next request at no extra request."""
    from content_service.identity.models import TokenRecord

    if not _TOKEN_SHAPE.match(token):
        raise Unauthorized("malformed bearer token: expected cs_ followed by 43 characters")
    token_key = dynamo.key(f"TOKEN#{token_digest(token)}", "TOKEN")
    found = dynamo.batch_get(dynamo.tables().schema, [token_key, key])
    record = next((TokenRecord(**i) for i in found if i["pk"] == token_key["pk"]["S"]), None)
    beside = next((i for i in found if i["pk"] != token_key["pk"]["S"]), None)
    if record is None:
        raise Unauthorized("invalid token")
    if record.revokedAt is not None:
        raise Unauthorized("token revoked")
    return _caller(_info(record)), beside


def authenticate_token(token: str) -> TokenCaller:
    from pynamodb.exceptions import DoesNotExist

    from content_service.identity.models import TokenRecord

    if not _TOKEN_SHAPE.match(token):
        raise Unauthorized("malformed bearer token: expected cs_ followed by 43 characters")
    try:
        record = TokenRecord.get(f"TOKEN#{token_digest(token)}", "TOKEN", consistent_read=True)
    except DoesNotExist:
        raise Unauthorized("invalid token") from None
    if record.revokedAt is not None:
        raise Unauthorized("token revoked")
    return _caller(_info(record))
