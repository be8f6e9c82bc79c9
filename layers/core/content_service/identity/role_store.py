"""Custom roles in the schema table (`ROLE#<id>` / `ROLE`, listed under gsi1pk `ROLES`).

Roles are service-wide, like users; what a user holds in a workspace is a grant naming a role
(`identity.users`). The five built-in roles live in code (`identity.roles.BUILTIN_ROLES`) and
cannot be changed or deleted. Every change writes its audit record (`role.created`,
`role.updated`, `role.deleted`, in the service-wide log) in its own transaction.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

from content_service.audit.records import SERVICE_LOG, Actor, Target, record_put
from content_service.clock import SystemClock, iso_utc
from content_service.errors import Conflict, NotFound, ValidationFailed
from content_service.identity.roles import BUILTIN_ROLES, Role, Rule
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

    from content_service.identity.models import RoleRecord

ROLE_ID_PREFIX = "role-"
_MAX_RULES = 50


def _role(record: RoleRecord) -> Role:
    rules = tuple(Rule.from_json(rule) for rule in json.loads(record.rules))
    return Role(
        record.id,
        record.name,
        record.description,
        rules,
        takes_locales=bool(record.takesLocales),
    )


def list_roles() -> list[Role]:
    """The built-in roles first, then the custom ones by name."""
    from content_service.identity.models import RoleRecord

    custom = sorted(
        (_role(r) for r in RoleRecord.by_kind.query("ROLES")), key=lambda r: (r.name, r.id)
    )
    return [*BUILTIN_ROLES.values(), *custom]


def _record(role_id: str) -> RoleRecord:
    from pynamodb.exceptions import DoesNotExist

    from content_service.identity.models import RoleRecord

    if not role_id.startswith(ROLE_ID_PREFIX) or len(role_id) > 64:
        raise NotFound(f"role {role_id[:64]!r} not found")
    try:
        return RoleRecord.get(f"ROLE#{role_id}", "ROLE", consistent_read=True)
    except DoesNotExist:
        raise NotFound(f"role {role_id!r} not found") from None


def get_role(role_id: str) -> Role:
    """A built-in or custom role by id; 404 when there is none."""
    builtin = BUILTIN_ROLES.get(role_id)
    return builtin if builtin is not None else _role(_record(role_id))


def _checked(name: str, description: str, rules: tuple[Rule, ...]) -> tuple[str, str]:
    name = name.strip()
    if not name or len(name) > 100:
        raise ValidationFailed("a role's name must be 1 to 100 characters")
    if len(description) > 1000:
        raise ValidationFailed("a role's description may be at most 1000 characters")
    if not rules or len(rules) > _MAX_RULES:
        raise ValidationFailed(f"a role needs 1 to {_MAX_RULES} rules")
    if name.lower() in {role.name.lower() for role in BUILTIN_ROLES.values()}:
        raise ValidationFailed(f"{name!r} is the name of a built-in role")
    return name, description


def _shown(role: Role) -> dict[str, Any]:
    """What a role's audit record shows of it: everything but its id (the record's target)."""
    shown = role.to_json()
    return {key: shown[key] for key in ("name", "description", "rules", "takesLocales")}


def _changes(before: Role | None, after: Role) -> dict[str, Any]:
    old = _shown(before) if before is not None else {}
    new = _shown(after)
    names = [name for name in new if old.get(name) != new[name]]
    return {"fields": names, "values": {name: new[name] for name in names}}


def _audit(
    action: str, by: Actor, role_id: str, now: float, changes: dict[str, Any] | None
) -> TransactWriteItemTypeDef:
    return record_put(SERVICE_LOG, f"role.{action}", by, Target("role", role_id), now, changes)


def _save(record: RoleRecord, condition: Any, audit: TransactWriteItemTypeDef) -> None:
    put: Any = record.get_save_kwargs_from_instance(condition=condition)
    try:
        dynamo.transact([{"Put": put}, audit])
    except dynamo.TransactionCancelled:
        raise Conflict("the role changed concurrently; try again") from None


def create_role(
    name: str,
    description: str,
    rules: tuple[Rule, ...],
    *,
    takes_locales: bool = False,
    by: Actor,
) -> Role:
    """A new custom role (`role-<12 hex>`) and its `role.created` record in one transaction."""
    from content_service.identity.models import RoleRecord

    name, description = _checked(name, description, rules)
    role_id = f"{ROLE_ID_PREFIX}{uuid.uuid4().hex[:12]}"
    role = Role(role_id, name, description, tuple(rules), takes_locales=takes_locales)
    now = SystemClock().now()
    record = RoleRecord(
        pk=f"ROLE#{role_id}",
        gsi1sk=role_id,
        id=role_id,
        name=name,
        description=description,
        rules=json.dumps([rule.to_json() for rule in role.rules]),
        takesLocales=takes_locales,
        createdAt=iso_utc(now),
        updatedAt=iso_utc(now),
    )
    audit = _audit("created", by, role_id, now, _changes(None, role))
    _save(record, RoleRecord.pk.does_not_exist(), audit)
    return role


def _custom(role_id: str, doing: str) -> RoleRecord:
    if role_id in BUILTIN_ROLES:
        raise Conflict(f"the built-in role {role_id!r} cannot be {doing}")
    return _record(role_id)


def update_role(
    role_id: str,
    *,
    name: str | None = None,
    description: str | None = None,
    rules: tuple[Rule, ...] | None = None,
    takes_locales: bool | None = None,
    by: Actor,
) -> Role:
    """Changes a custom role (what is None stays); a built-in one is a 409. The users and
    tokens holding it act with the new rules once the permissions cache forgets the old."""
    from content_service.identity.models import RoleRecord

    record = _custom(role_id, "changed")
    before = _role(record)
    new_name, new_description = _checked(
        before.name if name is None else name,
        before.description if description is None else description,
        before.rules if rules is None else tuple(rules),
    )
    after = Role(
        role_id,
        new_name,
        new_description,
        before.rules if rules is None else tuple(rules),
        takes_locales=before.takes_locales if takes_locales is None else takes_locales,
    )
    now = SystemClock().now()
    updated_at = record.updatedAt
    record.name, record.description = after.name, after.description
    record.rules = json.dumps([rule.to_json() for rule in after.rules])
    record.takesLocales = after.takes_locales
    record.updatedAt = iso_utc(now)
    audit = _audit("updated", by, role_id, now, _changes(before, after))
    _save(record, RoleRecord.updatedAt == updated_at, audit)
    return after


def _holders(role_id: str) -> list[str]:
    """Who still holds the role: users (by e-mail) and live tokens (by name). Users and
    tokens are few, so a scan of each is cheap enough for a rare deletion."""
    from content_service.identity.tokens import list_tokens
    from content_service.identity.users import list_users

    users = [
        user.email
        for user in list_users()
        if any(grant.role == role_id for grants in user.grants.values() for grant in grants)
    ]
    tokens = [
        f"token {token.name!r}"
        for token in list_tokens()
        if token.revoked_at is None and token.role is not None and token.role.role == role_id
    ]
    return users + tokens


def delete_role(role_id: str, *, by: Actor) -> None:
    """Deletes a custom role no user or token holds (409 otherwise, and for a built-in one)."""
    from content_service.identity.models import RoleRecord

    record = _custom(role_id, "deleted")
    holders = _holders(role_id)
    if holders:
        raise Conflict(
            f"the role is still granted to {', '.join(holders[:10])}; take it from them first",
            details={"holders": holders},
        )
    delete: Any = record.get_delete_kwargs_from_instance(condition=RoleRecord.pk.exists())
    audit = _audit("deleted", by, role_id, SystemClock().now(), None)
    try:
        dynamo.transact([{"Delete": delete}, audit])
    except dynamo.TransactionCancelled:
        raise NotFound(f"role {role_id!r} not found") from None
