"""Sign-in and sign-out for the admin pages (docs/api.md, "Sign-in")."""

from __future__ import annotations

import asyncio
import math
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from content_service.api.auth import SESSION_ID_KEY, OptionalCallerDep, SettingsDep
from content_service.api.client_address import client_address
from content_service.api.templating import templates
from content_service.identity import sign_in_throttle
from content_service.identity.principal import WEBHOOKS_READ
from content_service.identity.sessions import (
    end_session,
    record_failed_sign_in,
    start_session,
)
from content_service.identity.users import User, authenticate_user
from content_service.observability import logger

router = APIRouter(tags=["sign-in"], include_in_schema=False)

# Added to every failed sign-in, on top of the scrypt check both halves already pay.
FAILED_SIGN_IN_DELAY_SECONDS = 0.25
ADMIN_HOME = "/webhooks"
EDITOR_HOME = "/content"


def safe_next(target: str | None) -> str:
    """The page asked for, if it is a same-site path; "" otherwise (`//evil.example`, absolute
    URLs and nothing at all), which leaves the choice to `landing`."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return ""
    return target


def landing(target: str, user: User) -> str:
    """Where a fresh session goes: the page asked for, else the webhook pages for an admin and
    the content pages for an editor (who may not read webhooks)."""
    if target:
        return target
    return ADMIN_HOME if user.caller().has_permission(WEBHOOKS_READ) else EDITOR_HOME


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, caller: OptionalCallerDep, next: str | None = None) -> Response:
    return templates().TemplateResponse(
        request, "login.html", {"next": safe_next(next), "error": None, "caller": caller}
    )


def _form(request: Request, next: str, error: str, status_code: int) -> Response:
    return templates().TemplateResponse(
        request,
        "login.html",
        {"next": safe_next(next), "error": error, "caller": None},
        status_code=status_code,
    )


def _throttled(request: Request, next: str, retry_after: int) -> Response:
    minutes = max(1, math.ceil(retry_after / 60))
    response = _form(
        request,
        next,
        f"Too many sign-in attempts. Try again in {minutes} minute{'s' if minutes > 1 else ''}.",
        429,
    )
    response.headers["Retry-After"] = str(retry_after)
    return response


@router.post("/login", response_class=HTMLResponse)
async def login(
    request: Request,
    settings: SettingsDep,
    email: Annotated[str, Form(max_length=320)] = "",
    password: Annotated[str, Form(max_length=1024)] = "",
    next: Annotated[str, Form(max_length=2048)] = "",
) -> Response:
    address = client_address(request, settings.edge_origin_secret)
    counters = (sign_in_throttle.account(email), sign_in_throttle.address(address))
    admission = await run_in_threadpool(sign_in_throttle.admit, counters)
    if admission.refused:
        logger.info("sign-in throttled", extra={"retryAfter": admission.retry_after})
        return _throttled(request, next, admission.retry_after)
    user = await run_in_threadpool(authenticate_user, email, password, settings.password_cost)
    if user is None:
        await run_in_threadpool(record_failed_sign_in, email)
        await asyncio.sleep(FAILED_SIGN_IN_DELAY_SECONDS)
        logger.info("sign-in refused")
        return _form(request, next, "Email or password is incorrect.", 401)
    await run_in_threadpool(sign_in_throttle.succeeded, *counters)
    session_id = await run_in_threadpool(start_session, user, settings.session_max_age_seconds)
    request.session.clear()
    request.session[SESSION_ID_KEY] = session_id
    logger.info("signed in", extra={"userId": user.id})
    return RedirectResponse(landing(safe_next(next), user), status_code=303)


@router.post("/logout")
def logout(request: Request) -> Response:
    session_id = request.session.get(SESSION_ID_KEY)
    if session_id:
        end_session(str(session_id))
    request.session.clear()
    return RedirectResponse("/login", status_code=303)
