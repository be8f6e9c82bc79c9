"""Users of the admin UI: an e-mail, a role and a scrypt password hash."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from content_service.audit.records import COMMAND_LINE, SERVICE_LOG, Actor, Target, record_put
from content_service.clock import Clock, SystemClock, iso_utc
from content_service.errors import NotFound, ValidationFailed
from content_service.identity.passwords import (
    MIN_PASSWORD_LENGTH,
    dummy_hash,
    hash_password,
    needs_rehash,
    verify_password,
)
from content_service.identity.principal import Role, UserCaller
from content_service.settings import PASSWORD_COST, Settings

if TYPE_CHECKING:
    from content_service.identity.models import UserRecord

_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,255}$")
ROLES: tuple[Role, ...] = ("admin", "editor")


@dataclass(frozen=True)
class User:
    id: str
    email: str
    role: Role
    created_at: str

    def caller(self) -> UserCaller:
        return UserCaller(id=self.id, email=self.email, role=self.role)

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "email": self.email, "role": self.role, "createdAt": self.created_at}


def _from_record(record: UserRecord) -> User:
    role: Role = "admin" if record.role == "admin" else "editor"
    return User(record.id, record.email, role, record.createdAt)


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
) -> User:
    """A new user and its audit record (`user.created`: the e-mail and role, never the
    password or its hash) in one transaction with the e-mail's claim."""
    from content_service.identity.models import UserRecord, save_with_unique_claim

    email = normalise_email(email)
    if not _EMAIL.match(email):
        raise ValidationFailed("email must look like name@domain")
    if role not in ROLES:
        raise ValidationFailed(f"role must be one of {', '.join(ROLES)}")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationFailed(f"password must be at least {MIN_PASSWORD_LENGTH} characters")
    user_id = str(uuid.uuid4())
    now = (clock or SystemClock()).now()
    record = UserRecord(
        pk=f"USER#{user_id}",
        gsi1sk=email,
        id=user_id,
        email=email,
        role=role,
        passwordHash=hash_password(password, settings.password_cost),
        createdAt=iso_utc(now),
    )
    shown = {"email": email, "role": role}
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


def get_user(user_id: str) -> User:
    from pynamodb.exceptions import DoesNotExist

    from content_service.identity.models import UserRecord

    try:
        return _from_record(UserRecord.get(f"USER#{user_id}", "USER"))
    except DoesNotExist:
        raise NotFound("user not found") from None


def list_users() -> list[User]:
    from content_service.identity.models import UserRecord

    return [_from_record(r) for r in UserRecord.by_kind.query("USERS")]


def authenticate_user(email: str, password: str, cost: int = PASSWORD_COST) -> User | None:
    """The same work whether the e-mail or the password is wrong: never says which. `cost` is
    today's (`Settings.password_cost`): an older hash is stored again at it."""
    from pynamodb.exceptions import DoesNotExist, UpdateError

    from content_service.identity.models import UniqueRecord, UserRecord

    record: UserRecord | None = None
    try:
        claim = UniqueRecord.get(f"USER_EMAIL#{normalise_email(email)}", "UNIQUE")
        record = UserRecord.get(f"USER#{claim.ownerId}", "USER")
    except DoesNotExist:
        record = None
    stored = record.passwordHash if record is not None else dummy_hash(cost)
    matches = verify_password(password, stored)
    if record is None or not matches:
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
