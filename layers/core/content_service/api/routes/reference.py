"""`/api/v1/docs`: the REST API reference, browsable in a browser (Swagger UI over the app's own
`/api/v1/openapi.json`), only when `API_REFERENCE_ENABLED` is set (404 otherwise), like the
GraphQL playground. Swagger UI is vendored under `api/static/apidocs/` (docs/api.md): the page
loads nothing from another origin, and its Content-Security-Policy allows scripts, styles and
connections to this origin only.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from content_service import runtime
from content_service.api.templating import templates
from content_service.errors import NotFound

router = APIRouter(include_in_schema=False)

REFERENCE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"
    ),
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


@router.get("/api/v1/docs", response_class=HTMLResponse)
def api_reference(request: Request) -> Response:
    if not runtime.settings().api_reference_enabled:
        raise NotFound("the API reference is not enabled (API_REFERENCE_ENABLED)")
    return templates().TemplateResponse(
        request,
        "api_docs.html",
        {},
        headers=REFERENCE_HEADERS,
    )
