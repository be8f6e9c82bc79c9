"""Users of the admin UI: an e-mail, a scrypt password hash, roles granted per workspace.

A user's grants are `{workspace id or "*": [RoleGrant, ...]}` ("*": every workspace), stored
as JSON on the user record. A record without them (a user made before roles) reads as its
`role`: admin holds `administrator` in "*", editor `editor` in "*". `User.role` stays, derived:
"admin" for a holder of `administrator` in "*", else "editor". A deactivated user (`active`
false) cannot sign in, and its sessions stop working on their next request.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from content_service.audit.records import COMMAND_LINE, SERVICE_LOG, Actor, Target, record_put
from content_service.clock import Clock, SystemClock, iso_utc
from content_service.errors import Conflict, NotFound, ValidationFailed
from content_service.identity.passwords import (
    MIN_PASSWORD_LENGTH,
    dummy_hash,
    hash_password,
    needs_rehash,
    verify_password,
)
from content_service.identity.principal import Role, UserCaller
from content_service.identity.roles import ADMINISTRATOR, EDITOR, EVERY_WORKSPACE, RoleGrant
from content_service.settings import PASSWORD_COST, Settings
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

    from content_service.identity.models import UserRecord

_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,255}$")
ROLES: tuple[Role, ...] = ("admin", "editor")
Grants = Mapping[str, tuple[RoleGrant, ...]]
_MAX_GRANTS = 20


@dataclass(frozen=True)
class User:
    id: str
    email: str
    role: Role
    created_at: str
    grants: Grants = field(default_factory=dict, compare=False)
    active: bool = True

    def caller(self) -> UserCaller:
        return UserCaller(id=self.id, email=self.email, role=self.role, role_grants=self.grants)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "email": self.email,
            "role": self.role,
            "active": self.active,
            "createdAt": self.created_at,
            "grants": grants_json(self.grants),
        }


def grants_json(grants: Grants) -> dict[str, list[dict[str, Any]]]:
    return {key: [grant.to_json() for grant in held] for key, held in sorted(grants.items())}


def derived_role(grants: Grants) -> Role:
    """The pre-roles role: "admin" for an administrator of every workspace, else "editor"."""
    held = grants.get(EVERY_WORKSPACE, ())
    return "admin" if any(grant.role == ADMINISTRATOR for grant in held) else "editor"


def _legacy_grants(role: str) -> Grants:
    """What a role of before roles means now: "admin" the administrator of every workspace,
    "editor" an editor of every workspace."""
    return {EVERY_WORKSPACE: (RoleGrant(ADMINISTRATOR if role == "admin" else EDITOR),)}


def _grants_of(record: UserRecord) -> Grants:
    if record.grants is None:
        return _legacy_grants(record.role)
    stored: dict[str, list[dict[str, Any]]] = json.loads(record.grants)
    return {key: tuple(RoleGrant.from_json(g) for g in held) for key, held in stored.items()}


def _from_record(record: UserRecord) -> User:
    grants = _grants_of(record)
    active = record.active is not False
    return User(record.id, record.email, derived_role(grants), record.createdAt, grants, active)


def checked_grants(workspace_key: str, grants: Iterable[RoleGrant]) -> tuple[RoleGrant, ...]:
    """Grants as stored: each role exists, administrator only in "*", locales non-empty
    strings (400 otherwise); a role granted twice is a 400 too."""
    from content_service.identity.role_store import get_role

    held = tuple(grants)
    if len(held) > _MAX_GRANTS or len({grant.role for grant in held}) != len(held):
        raise ValidationFailed(f"grant each role once, at most {_MAX_GRANTS} in a workspace")
    for grant in held:
        try:
            role = get_role(grant.role)
        except NotFound:
            raise ValidationFailed(f"no role {grant.role[:64]!r}") from None
        if role.administrator and (workspace_key != EVERY_WORKSPACE or grant.locales):
            raise ValidationFailed(
                'administrator is granted only in every workspace ("*"), for every locale'
            )
        locales = grant.locales
        if locales is not None and (
            not locales or not all(isinstance(x, str) and x for x in locales)
        ):
            raise ValidationFailed("a grant's locales must be a non-empty list of locale names")
    return held


def _stored_grants(grants: Grants) -> str:
    return json.dumps(grants_json({key: held for key, held in grants.items() if held}))


def normalise_email(email: str) -> str:
    return email.strip().lower()


def create_user(
    settings: Settings,
    email: str,
    role: str,
    password: str,
    clock: Clock | None = None,
    *,
    by: Actor = COMMAND_LINE,
    grants: Grants | None = None,
) -> User:
    """A new user and its audit record (`user.created`: the e-mail, role and grants, never the
    password or its hash) in one transaction with the e-mail's claim. `grants` None: from
    `role` as before roles (admin: administrator in "*", editor: editor in "*")."""
    from content_service.identity.models import UserRecord, save_with_unique_claim

    email = normalise_email(email)
    if not _EMAIL.match(email):
        raise ValidationFailed("email must look like name@domain")
    if grants is None:
        if role not in ROLES:
            raise ValidationFailed(f"role must be one of {', '.join(ROLES)}")
        grants = _legacy_grants(role)
    grants = {key: checked_grants(key, held) for key, held in grants.items()}
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationFailed(f"password must be at least {MIN_PASSWORD_LENGTH} characters")
    user_id = str(uuid.uuid4())
    now = (clock or SystemClock()).now()
    record = UserRecord(
        pk=f"USER#{user_id}",
        gsi1sk=email,
        id=user_id,
        email=email,
        role=derived_role(grants),
        passwordHash=hash_password(password, settings.password_cost),
        createdAt=iso_utc(now),
        grants=_stored_grants(grants),
    )
    shown = {"email": email, "role": record.role, "grants": grants_json(grants)}
    audit = record_put(
        SERVICE_LOG,
        "user.created",
        by,
        Target("user", user_id),
        now,
        {"fields": sorted(shown), "values": shown},
    )
    save_with_unique_claim(
        record, f"USER_EMAIL#{email}", user_id, "a user with this email already exists", [audit]
    )
    return _from_record(record)


def _user_record(user_id: str) -> UserRecord:
    from pynamodb.exceptions import DoesNotExist

    from content_service.identity.models import UserRecord

    try:
        return UserRecord.get(f"USER#{user_id}", "USER", consistent_read=True)
    except DoesNotExist:
        raise NotFound("user not found") from None


def _update(
    record: UserRecord, actions: list[Any], audit: TransactWriteItemTypeDef, condition: Any
) -> None:
    """Updates the user and writes its audit record in one transaction; a concurrent change
    of what `condition` checks is a 409."""
    update: Any = record.get_update_kwargs_from_instance(actions=actions, condition=condition)
    try:
        dynamo.transact([{"Update": update}, audit])
    except dynamo.TransactionCancelled:
        raise Conflict("the user changed concurrently; try again") from None


def _is_self(by: Actor, user_id: str) -> bool:
    return by.kind == "user" and by.id == user_id


def set_grants(user_id: str, workspace_key: str, grants: Iterable[RoleGrant], *, by: Actor) -> User:
    """Replaces the user's grants in one workspace ("*": every workspace; none takes them
    all), audited as `user.grants_changed` with the grants before and after. An
    administrator cannot take their own administrator role (409): the service keeps one."""
    from content_service.identity.models import UserRecord

    record = _user_record(user_id)
    user = _from_record(record)
    held = checked_grants(workspace_key, grants)
    if (
        _is_self(by, user_id)
        and workspace_key == EVERY_WORKSPACE
        and user.role == "admin"
        and not any(grant.role == ADMINISTRATOR for grant in held)
    ):
        raise Conflict("you cannot take your own administrator role")
    after = {**user.grants, workspace_key: held}
    stored = _stored_grants(after)
    before_json = grants_json({workspace_key: user.grants.get(workspace_key, ())})
    changes = {
        "fields": ["grants"],
        "values": {
            "workspace": workspace_key,
            "before": before_json.get(workspace_key, []),
            "after": [grant.to_json() for grant in held],
        },
    }
    now = SystemClock().now()
    audit = record_put(
        SERVICE_LOG, "user.grants_changed", by, Target("user", user_id), now, changes
    )
    actions = [UserRecord.grants.set(stored), UserRecord.role.set(derived_role(after))]
    condition = (
        UserRecord.grants.does_not_exist()
        if record.grants is None
        else UserRecord.grants == record.grants
    )
    _update(record, actions, audit, condition)
    record.grants = stored
    return _from_record(record)


def deactivate_user(user_id: str, *, by: Actor) -> User:
    """Deactivates a user (`user.deactivated`): sign-in refused, sessions refused on their
    next request. Deactivating yourself is a 409; a deactivated user stays as it is."""
    from content_service.identity.models import UserRecord

    if _is_self(by, user_id):
        raise Conflict("you cannot deactivate yourself")
    record = _user_record(user_id)
    if record.active is False:
        return _from_record(record)
    now = SystemClock().now()
    audit = record_put(SERVICE_LOG, "user.deactivated", by, Target("user", user_id), now)
    _update(record, [UserRecord.active.set(False)], audit, UserRecord.pk.exists())
    record.active = False
    return _from_record(record)


def get_user(user_id: str) -> User:
    """The user, read strongly consistent: a deactivation holds on the very next request."""
    return _from_record(_user_record(user_id))


def list_users() -> list[User]:
    from content_service.identity.models import UserRecord

    return [_from_record(r) for r in UserRecord.by_kind.query("USERS")]


def _record_by_email(email: str) -> UserRecord | None:
    """The user whose e-mail this is, through the e-mail's claim (two reads, whatever the
    number of users)."""
    from pynamodb.exceptions import DoesNotExist

    from content_service.identity.models import UniqueRecord, UserRecord

    try:
        claim = UniqueRecord.get(f"USER_EMAIL#{normalise_email(email)}", "UNIQUE")
        return UserRecord.get(f"USER#{claim.ownerId}", "USER")
    except DoesNotExist:
        return None


def user_by_email(email: str) -> User | None:
    record = _record_by_email(email)
    return _from_record(record) if record is not None else None


def authenticate_user(email: str, password: str, cost: int = PASSWORD_COST) -> User | None:
    """The same work whether the e-mail or the password is wrong: never says which. `cost` is
    today's (`Settings.password_cost`): an older hash is stored again at it."""
    from pynamodb.exceptions import UpdateError

    from content_service.identity.models import UserRecord

    record = _record_by_email(email)
    stored = record.passwordHash if record is not None else dummy_hash(cost)
    matches = verify_password(password, stored)
    if record is None or not matches or record.active is False:
        return None
    if needs_rehash(stored, cost):
        # The clear password is at hand only now: store it at today's cost, on the condition
        # that the hash is still the one checked (a password change meanwhile wins).
        try:
            record.update(
                actions=[UserRecord.passwordHash.set(hash_password(password, cost))],
                condition=UserRecord.passwordHash == stored,
            )
        except UpdateError as error:
            if error.cause_response_code != "ConditionalCheckFailedException":
                raise
    return _from_record(record)
