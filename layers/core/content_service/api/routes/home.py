"""The landing page: where things are, for a person who just ran `make run`; and the icon a
browser asks every site for."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from content_service import runtime
from content_service.api.auth import OptionalCallerDep
from content_service.api.templating import STATIC_DIR, templates

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
def home(request: Request, caller: OptionalCallerDep) -> Response:
    return templates().TemplateResponse(
        request,
        "home.html",
        {"caller": caller, "api_reference": runtime.settings().api_reference_enabled},
    )


@router.get("/favicon.ico")
def favicon() -> FileResponse:
    """The pages name `/static/favicon.svg`; a browser that asks for `/favicon.ico` anyway gets
    the same picture (every current browser takes SVG under that name)."""
    return FileResponse(
        STATIC_DIR / "favicon.svg",
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=86400"},
    )
