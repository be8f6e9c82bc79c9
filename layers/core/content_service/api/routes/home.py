"""The landing page: where things are, for a person who just ran `make run`."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from content_service.api.auth import OptionalCallerDep
from content_service.api.templating import templates

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
def home(request: Request, caller: OptionalCallerDep) -> Response:
    return templates().TemplateResponse(request, "home.html", {"caller": caller})
