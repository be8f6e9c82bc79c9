"""The one FastAPI app behind API Gateway (through Mangum), uvicorn locally, and the tests."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import GZipMiddleware

from content_service.api.auth import SESSION_COOKIE
from content_service.api.error_handlers import ANY_REFUSAL, install_error_handlers
from content_service.api.http_cache import CacheTagsMiddleware
from content_service.api.origin_guard import OriginGuardMiddleware
from content_service.api.rate_limit import RateLimitHeadersMiddleware
from content_service.api.request_context import CorrelationIdMiddleware
from content_service.api.request_limits import RequestLimitsMiddleware
from content_service.api.routes import (
    access_pages,
    admin,
    assets,
    audit,
    audit_pages,
    content,
    content_pages,
    content_types,
    content_workflow,
    files,
    graphql,
    health,
    home,
    login,
    me,
    media_pages,
    model_pages,
    reference,
    roles,
    sync,
    tokens,
    users,
    webhooks,
)
from content_service.api.security_headers import SecurityHeadersMiddleware
from content_service.api.session_key import (
    SessionKeyMiddleware,
    load_session_key,
    require_key_source,
)
from content_service.api.templating import STATIC_DIR
from content_service.runtime import configure
from content_service.settings import Settings

ROUTERS = (
    health.router,
    me.router,
    tokens.router,
    roles.router,
    users.router,
    audit.router,
    content_types.router,
    content.router,
    content_workflow.router,
    assets.router,
    sync.router,
    graphql.router,
    reference.router,
    webhooks.router,
    files.router,
    admin.router,
    content_pages.router,
    media_pages.router,
    model_pages.router,
    audit_pages.router,
    access_pages.router,
    login.router,
    home.router,
)
"""Every router of the API function, in the order their routes match."""


def create_app(settings: Settings | None = None, *, session_key: str | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    configure(settings)
    app = FastAPI(
        title="Content Service",
        version="1.0.0",
        openapi_url="/api/v1/openapi.json",
        docs_url=None,
        redoc_url=None,
        responses=ANY_REFUSAL,
    )
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    # Assets are compressed (the playground's and the reference's scripts are megabytes);
    # API answers are not, so no secret they carry is compressed beside reflected input.
    app.mount("/static", GZipMiddleware(StaticFiles(directory=STATIC_DIR)), name="static")

    # Starlette wraps in reverse order: the last added runs first.
    if session_key is None:
        require_key_source(settings)
    app.add_middleware(
        SessionKeyMiddleware,
        load_key=lambda: session_key or load_session_key(settings),
        session_cookie=SESSION_COOKIE,
        max_age=settings.session_max_age_seconds,
    )
    app.add_middleware(
        OriginGuardMiddleware,
        public_base_url=settings.public_base_url,
        allowed_origins=settings.allowed_origins,
        session_cookie=SESSION_COOKIE,
    )
    app.add_middleware(CacheTagsMiddleware)
    app.add_middleware(RateLimitHeadersMiddleware)
    app.add_middleware(RequestLimitsMiddleware)
    app.add_middleware(CorrelationIdMiddleware)
    app.add_middleware(SecurityHeadersMiddleware, public_base_url=settings.public_base_url)
    return app


def create_media_app(settings: Settings | None = None) -> FastAPI:
    """The media function's app: the file URLs alone, with the same error answers and security
    headers, and no session key (a file URL signs no one in)."""
    settings = settings or Settings.from_env()
    configure(settings)
    app = FastAPI(title="Content Service files", openapi_url=None, docs_url=None, redoc_url=None)
    install_error_handlers(app)
    app.include_router(files.router)
    app.add_middleware(CorrelationIdMiddleware)
    app.add_middleware(SecurityHeadersMiddleware, public_base_url=settings.public_base_url)
    return app
