"""The request bodies of the roles, users and tokens routes that name roles (docs/api.md,
"Users and roles"). Pydantic checks their shape; `identity.roles` decides what a rule or a grant
may say, so a refusal names the key and reads the same from every route."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from content_service.identity.roles import ACTIONS, RoleGrant, Rule

Name = Annotated[StrictStr, Field(min_length=1, max_length=100)]
Names = Annotated[list[Name], Field(max_length=100)]
Locales = Annotated[list[Name], Field(min_length=1, max_length=100)]


class RuleBody(BaseModel):
    """One rule: what it lets a caller do, to which types and locales, which fields it lets
    change, and whether only to the entries they created."""

    model_config = ConfigDict(extra="forbid")

    actions: Names = Field(description=f"one or more of: {', '.join(ACTIONS)}")
    contentTypes: Names = Field(default_factory=lambda: ["*"], description="`*`: every type")
    locales: Locales | None = Field(default=None, description="null: entries of every locale")
    fields: Names | None = Field(
        default=None, description="null: every field may change; else only these"
    )
    ownEntriesOnly: StrictBool = False

    def rule(self) -> Rule:
        return Rule.from_json(self.model_dump())


def rules_of(bodies: list[RuleBody]) -> tuple[Rule, ...]:
    return tuple(body.rule() for body in bodies)


class GrantBody(BaseModel):
    """A role given in a workspace (or to a token), optionally for some locales."""

    model_config = ConfigDict(extra="forbid")

    role: Name = Field(description="a role id: a built-in name or `role-...`")
    locales: Locales | None = Field(default=None, description="null: every locale")

    def grant(self) -> RoleGrant:
        return RoleGrant(self.role, None if self.locales is None else frozenset(self.locales))


def grants_of(bodies: list[GrantBody]) -> tuple[RoleGrant, ...]:
    return tuple(body.grant() for body in bodies)
