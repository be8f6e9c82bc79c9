"""The caller of a request: an API token or a signed-in user, and what each may do."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Literal

from content_service.content.schema import ASSET_TYPE
from content_service.identity.roles import RoleGrant

Access = Literal["read", "full"]
Role = Literal["admin", "editor"]

SCOPE_CONTENT_READ = "content:read"
SCOPE_CONTENT_WRITE = "content:write"
ALL_SCOPES = frozenset({SCOPE_CONTENT_READ, SCOPE_CONTENT_WRITE})
ALL_TYPES = "*"

WEBHOOKS_READ = "webhooks:read"
WEBHOOKS_MANAGE = "webhooks:manage"
_ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    "admin": frozenset({WEBHOOKS_READ, WEBHOOKS_MANAGE}),
    "editor": frozenset(),
}


@dataclass(frozen=True, kw_only=True)
class TokenGrant:
    """What a token grants: the same on its record (`tokens.TokenInfo`) and on the caller it
    authenticates (`TokenCaller`)."""

    name: str
    workspace_id: str
    access: Access
    content_types: frozenset[str]
    scopes: frozenset[str]
    audiences: frozenset[str]
    rate_limit: int | None = None
    """Requests per second; None: the service's default; 0: no limit."""
    persisted_only: bool = False
    """Runs only GraphQL documents a full token registered (trusted documents)."""
    role: RoleGrant | None = None
    """The role the token acts with inside its grant; None: its grant alone, as before roles."""

    def grant_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "workspaceId": self.workspace_id,
            "access": self.access,
            "contentTypes": sorted(self.content_types),
            "scopes": sorted(self.scopes),
            "audiences": sorted(self.audiences),
            "role": self.role.to_json() if self.role is not None else None,
        }


@dataclass(frozen=True, kw_only=True)
class TokenCaller(TokenGrant):
    token_id: str
    kind: Literal["token"] = "token"

    @classmethod
    def holding(cls, token_id: str, grant: TokenGrant) -> TokenCaller:
        """The caller token `token_id` authenticates, with what it grants."""
        return cls(
            token_id=token_id, **{f.name: getattr(grant, f.name) for f in fields(TokenGrant)}
        )

    def grants(self, content_type: str) -> bool:
        """`*` grants every type, including types added later. Assets are the workspace's
        media, not one of a token's content types: every token reaches them (its scopes,
        access and audiences still apply), through `/api/v1/assets` and asset fields alike."""
        return (
            ALL_TYPES in self.content_types
            or content_type in self.content_types
            or content_type == ASSET_TYPE
        )

    @property
    def can_read(self) -> bool:
        return SCOPE_CONTENT_READ in self.scopes

    @property
    def sees_drafts(self) -> bool:
        return self.access == "full"

    @property
    def can_write(self) -> bool:
        return self.access == "full" and SCOPE_CONTENT_WRITE in self.scopes

    @property
    def can_change_types(self) -> bool:
        """Content types are changed by a full token or an admin (docs/api.md, "Content types")."""
        return self.can_write

    def has_permission(self, permission: str) -> bool:
        """Tokens hold content scopes only; webhook permissions belong to admins."""
        return False

    def describe(self) -> dict[str, object]:
        return {"kind": "token", **self.grant_json()}


@dataclass(frozen=True)
class UserCaller:
    id: str
    email: str
    role: Role
    """Derived from the grants: "admin" for an administrator of every workspace."""
    role_grants: Mapping[str, tuple[RoleGrant, ...]] = field(
        default_factory=dict, compare=False, hash=False
    )
    """The roles granted per workspace id ("*": every workspace)."""

    kind: Literal["user"] = "user"

    def grants(self, content_type: str) -> bool:
        return True

    @property
    def can_read(self) -> bool:
        return True

    @property
    def sees_drafts(self) -> bool:
        return True

    @property
    def can_write(self) -> bool:
        return True

    @property
    def can_change_types(self) -> bool:
        """Editors write entries; the content model is the admin's (docs/api.md, D25)."""
        return self.role == "admin"

    def has_permission(self, permission: str) -> bool:
        return permission in _ROLE_PERMISSIONS[self.role]

    def describe(self) -> dict[str, object]:
        return {"kind": "user", "id": self.id, "email": self.email, "role": self.role}


Caller = TokenCaller | UserCaller
