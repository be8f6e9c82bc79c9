"""Server-side sessions behind the signed session cookie.

The cookie (signed with the session key) carries only a random session id; the record holds the
user and expiry under the id's digest. Signing out deletes the record, so a copied cookie dies
with the session instead of living until its signature expires.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from content_service.audit.records import ANONYMOUS, SERVICE_LOG, Actor, Target, record_put
from content_service.clock import Clock, SystemClock
from content_service.errors import NotFound
from content_service.identity.users import User, get_user, normalise_email
from content_service.storage import dynamo


def _key(session_id: str) -> str:
    return f"SESSION#{hashlib.sha256(session_id.encode()).hexdigest()}"


def start_session(user: User, max_age_seconds: int, clock: Clock | None = None) -> str:
    """A new session and its audit record (`signIn.succeeded`, never the session id) in one
    transaction."""
    from content_service.identity.models import SessionRecord

    session_id = secrets.token_urlsafe(32)
    now = (clock or SystemClock()).now()
    record = SessionRecord(
        pk=_key(session_id), userId=user.id, expiresAt=int(now) + max_age_seconds
    )
    put: Any = record.get_save_kwargs_from_instance()
    actor = Actor.of(user.caller())
    audit = record_put(SERVICE_LOG, "signIn.succeeded", actor, Target("user", user.id), now)
    dynamo.transact([{"Put": put}, audit])
    return session_id


def record_failed_sign_in(email: str, clock: Clock | None = None) -> None:
    """`signIn.failed` with the e-mail tried (never the password). A failure changes nothing
    else: the throttle counted the attempt when it admitted it, before the password was
    checked, so the record is the whole write."""
    tried = normalise_email(email)[:320]
    now = (clock or SystemClock()).now()
    changes = {"fields": ["email"], "values": {"email": tried}}
    target = Target("sign_in", tried or "(empty)")
    dynamo.transact([record_put(SERVICE_LOG, "signIn.failed", ANONYMOUS, target, now, changes)])


def resolve_session(session_id: str, clock: Clock | None = None) -> User | None:
    from pynamodb.exceptions import DoesNotExist

    from content_service.identity.models import SessionRecord

    try:
        record = SessionRecord.get(_key(session_id), "SESSION", consistent_read=True)
    except DoesNotExist:
        return None
    if record.expiresAt <= (clock or SystemClock()).now():
        return None
    try:
        user = get_user(record.userId)
    except NotFound:
        return None
    return user if user.active else None


def end_session(session_id: str) -> None:
    from content_service.identity.models import SessionRecord

    SessionRecord(pk=_key(session_id)).delete()
