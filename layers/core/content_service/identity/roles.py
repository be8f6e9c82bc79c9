"""Roles: named sets of rules saying what a user (or a token given a role) may do to content.

A rule names content types (or `*`), actions, optionally locales (the entries' `locale`),
optionally fields (the only fields it lets the caller change; the others stay read-only) and
optionally "only entries they created". A caller's permissions in a workspace are the union of
the rules of the roles granted to it there: an action is allowed when any rule allows it, and
a field may change when any rule allowing the action lets it change. A role granted with
locales (`RoleGrant.locales`, the Translator's `de`) has its writing rules narrowed to them.

This module is pure: the built-in roles live here, custom roles in the schema table
(`identity.role_store`), and the content service calls `Permissions.check` before each write.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from content_service.errors import Forbidden, ValidationFailed

READ = "read"
CREATE = "create"
UPDATE = "update"
PUBLISH = "publish"
UNPUBLISH = "unpublish"
TRASH = "trash"
RESTORE = "restore"
SCHEDULE = "schedule"
MANAGE_VERSIONS = "manage versions"
MANAGE_ASSETS = "manage assets"
ACTIONS: tuple[str, ...] = (
    READ,
    CREATE,
    UPDATE,
    PUBLISH,
    UNPUBLISH,
    TRASH,
    RESTORE,
    SCHEDULE,
    MANAGE_VERSIONS,
    MANAGE_ASSETS,
)
WRITING_ACTIONS = frozenset(ACTIONS) - {READ}
ALL = "*"
"""In a rule's content types: every type, including types added later."""

ADMINISTRATOR = "administrator"
EDITOR = "editor"
AUTHOR = "author"
TRANSLATOR = "translator"
VIEWER = "viewer"
EVERY_WORKSPACE = "*"
"""The workspace key of a grant that holds in every workspace (an administrator's)."""


@dataclass(frozen=True)
class Rule:
    actions: frozenset[str]
    content_types: frozenset[str] = frozenset({ALL})
    locales: frozenset[str] | None = None
    """None: entries of every locale."""
    fields: frozenset[str] | None = None
    """None: every field may change; otherwise only these (the others are read-only)."""
    own_entries_only: bool = False

    def covers(self, action: str, content_type: str, locale: str | None, own: bool) -> bool:
        return (
            action in self.actions
            and (ALL in self.content_types or content_type in self.content_types)
            and (self.locales is None or locale is None or locale in self.locales)
            and (own or not self.own_entries_only)
        )

    def lets_change(self, field_name: str) -> bool:
        return self.fields is None or field_name in self.fields

    def narrowed_to(self, locales: frozenset[str]) -> Rule:
        """This rule for a grant limited to `locales`: reading stays as it is, writing is
        limited to entries of those locales."""
        if not self.actions & WRITING_ACTIONS:
            return self
        narrowed = locales if self.locales is None else self.locales & locales
        return Rule(self.actions, self.content_types, narrowed, self.fields, self.own_entries_only)

    def to_json(self) -> dict[str, Any]:
        return {
            "actions": [a for a in ACTIONS if a in self.actions],
            "contentTypes": sorted(self.content_types),
            "locales": None if self.locales is None else sorted(self.locales),
            "fields": None if self.fields is None else sorted(self.fields),
            "ownEntriesOnly": self.own_entries_only,
        }

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Rule:
        """A rule as the roles API takes it; anything malformed is a 400 naming the key."""
        unknown = set(body) - {"actions", "contentTypes", "locales", "fields", "ownEntriesOnly"}
        if unknown:
            raise ValidationFailed(f"unknown rule key(s): {', '.join(sorted(unknown))}")
        actions = _names(body.get("actions"), "actions", required=True)
        if actions is None or not actions or actions - set(ACTIONS):
            raise ValidationFailed(
                f"a rule's actions must be a non-empty list of: {', '.join(ACTIONS)}"
            )
        types = _names(body.get("contentTypes", [ALL]), "contentTypes", required=True)
        own = body.get("ownEntriesOnly", False)
        if not isinstance(own, bool):
            raise ValidationFailed("a rule's ownEntriesOnly must be true or false")
        return cls(
            actions=actions,
            content_types=types or frozenset({ALL}),
            locales=_names(body.get("locales"), "locales"),
            fields=_names(body.get("fields"), "fields"),
            own_entries_only=own,
        )


def _names(value: Any, key: str, *, required: bool = False) -> frozenset[str] | None:
    if value is None and not required:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValidationFailed(f"a rule's {key} must be a list of non-empty strings")
    if len(value) > 100:
        raise ValidationFailed(f"a rule's {key} may name at most 100 values")
    return frozenset(value)


@dataclass(frozen=True)
class Role:
    id: str
    name: str
    description: str
    rules: tuple[Rule, ...]
    builtin: bool = False
    administrator: bool = False
    """Users, roles, tokens, webhooks, content types and the audit log, besides content."""
    takes_locales: bool = False
    """Granted for given locales (the Translator); other roles may be too, optionally."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "rules": [rule.to_json() for rule in self.rules],
            "builtin": self.builtin,
            "administrator": self.administrator,
            "takesLocales": self.takes_locales,
        }


_EVERYTHING = Rule(actions=frozenset(ACTIONS))
_READING = Rule(actions=frozenset({READ}))
BUILTIN_ROLES: dict[str, Role] = {
    role.id: role
    for role in (
        Role(
            ADMINISTRATOR,
            "Administrator",
            "Everything: content, content types, users, roles, tokens, webhooks, audit log.",
            (_EVERYTHING,),
            builtin=True,
            administrator=True,
        ),
        Role(
            EDITOR,
            "Editor",
            "Every content action on every type and locale.",
            (_EVERYTHING,),
            builtin=True,
        ),
        Role(
            AUTHOR,
            "Author",
            "Reads everything; creates entries and updates the ones they created; no publishing.",
            (_READING, Rule(actions=frozenset({CREATE, UPDATE}), own_entries_only=True)),
            builtin=True,
        ),
        Role(
            TRANSLATOR,
            "Translator",
            "Reads everything; updates the entries of the locales it is granted for.",
            (_READING, Rule(actions=frozenset({UPDATE}))),
            builtin=True,
            takes_locales=True,
        ),
        Role(
            VIEWER,
            "Viewer",
            "Reads and previews everything, drafts included.",
            (_READING,),
            builtin=True,
        ),
    )
}


@dataclass(frozen=True)
class RoleGrant:
    """A role given to a user (or a token) in a workspace, optionally for some locales."""

    role: str
    locales: frozenset[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "locales": None if self.locales is None else sorted(self.locales),
        }

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> RoleGrant:
        """A grant as `to_json` wrote it (on a user record or a token record)."""
        locales = stored.get("locales")
        return cls(stored["role"], None if locales is None else frozenset(locales))


@dataclass(frozen=True)
class Permissions:
    """What one caller may do in one workspace: the union of its granted roles' rules."""

    rules: tuple[Rule, ...] = ()
    administrator: bool = False
    roles: tuple[str, ...] = field(default=())

    @classmethod
    def of(cls, granted: Iterable[tuple[Role, RoleGrant]]) -> Permissions:
        rules: list[Rule] = []
        names: list[str] = []
        administrator = False
        for role, grant in granted:
            names.append(role.id)
            administrator = administrator or role.administrator
            for rule in role.rules:
                rules.append(rule if grant.locales is None else rule.narrowed_to(grant.locales))
        return cls(tuple(rules), administrator, tuple(names))

    def to_json(self) -> dict[str, Any]:
        """`GET /api/v1/me`'s `permissions`: what the pages hide or disable by."""
        return {
            "administrator": self.administrator,
            "roles": list(self.roles),
            "rules": [rule.to_json() for rule in self.rules],
        }

    def allows(
        self, action: str, content_type: str, *, locale: str | None = None, own: bool = True
    ) -> bool:
        return any(rule.covers(action, content_type, locale, own) for rule in self.rules)

    def check(
        self,
        action: str,
        content_type: str,
        *,
        locale: str | None = None,
        own: bool = True,
        changed_fields: Iterable[str] = (),
    ) -> None:
        """Refuses (403) an action no rule allows, naming it, or a change to a field no rule
        allowing the action lets change, naming the field. `own`: the entry was created by
        the caller (always true of an entry being created)."""
        covering = [rule for rule in self.rules if rule.covers(action, content_type, locale, own)]
        if not covering:
            where = f" in {locale!r}" if locale else ""
            # Ownership is named only when it is what is missing: a rule covers own entries.
            mine = not own and self.allows(action, content_type, locale=locale, own=True)
            whose = " (an entry someone else created)" if mine else ""
            raise Forbidden(
                f"your role does not allow {action!r} on {content_type!r}{where}{whose}",
                details={"action": action, "contentType": content_type, "locale": locale},
            )
        refused = sorted(
            name
            for name in set(changed_fields)
            if not any(rule.lets_change(name) for rule in covering)
        )
        if refused:
            raise Forbidden(
                f"your role does not allow changing the field(s) {', '.join(map(repr, refused))} "
                f"of {content_type!r}",
                details={"action": action, "contentType": content_type, "fields": refused},
            )
