"""Server-side sessions behind the signed session cookie.

The cookie (signed with the session key) carries only a random session id; the record holds the
user and expiry under the id's digest. Signing out deletes the record, so a copied cookie dies
with the session instead of living until its signature expires.
"""

from __future__ import annotations

import hashlib
import secrets

from content_service.clock import Clock, SystemClock
from content_service.errors import NotFound
from content_service.identity.users import User, get_user


def _key(session_id: str) -> str:
    return f"SESSION#{hashlib.sha256(session_id.encode()).hexdigest()}"


def start_session(user: User, max_age_seconds: int, clock: Clock | None = None) -> str:
    from content_service.identity.models import SessionRecord

    session_id = secrets.token_urlsafe(32)
    expires = int((clock or SystemClock()).now()) + max_age_seconds
    SessionRecord(pk=_key(session_id), userId=user.id, expiresAt=expires).save()
    return session_id


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
        return get_user(record.userId)
    except NotFound:
        return None


def end_session(session_id: str) -> None:
    from content_service.identity.models import SessionRecord

    SessionRecord(pk=_key(session_id)).delete()
