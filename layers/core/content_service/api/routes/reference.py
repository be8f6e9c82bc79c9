"""`/api/v1/docs`: the REST API reference, browsable in a browser (Swagger UI over the app's own
`/api/v1/openapi.json`), only when `API_REFERENCE_ENABLED` is set (404 otherwise), like the
GraphQL playground. Swagger UI is vendored under `api/static/apidocs/` (docs/api.md): the page
loads nothing from another origin, and the Content-Security-Policy every page gets
(`api.security_headers`) allows scripts, styles and connections to this origin only.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from content_service import runtime
from content_service.api.templating import templates
from content_service.errors import NotFound

router = APIRouter(include_in_schema=False)

# The security headers (CSP, frame and sniffing rules) come from `api.security_headers`.
REFERENCE_HEADERS = {"Cache-Control": "no-store"}


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
