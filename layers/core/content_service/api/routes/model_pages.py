"""The content model pages, for administrators: the workspace's content types, and one type's
settings and fields (docs/admin-ui.md, "Content model pages").

An editor gets a 403 page (changing the model is the admin role's, decisions.md D25), a
signed-out visitor the sign-in redirect. The pages read through the content service; every
change is the page script's call to the content-types API (`POST`, `PUT` with the whole new
definition, `DELETE`), so the page refuses exactly what the API refuses, with its words.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from content_service.api import pages
from content_service.api.auth import OptionalCallerDep
from content_service.api.routes.admin_views import when
from content_service.api.routes.content_page_views import RELATION_HELP
from content_service.content import service
from content_service.content.schema import CARDINALITIES, FIELD_TYPES
from content_service.identity.principal import UserCaller

router = APIRouter(include_in_schema=False)

SECTION = pages.Section("/content-types", "Back to the model", admin=True)
NOTICES = {
    "created": "Content type created. Add its fields below.",
    "saved": "Changes saved.",
    "deleted": "Content type deleted.",
}
TYPE_WORDS = {
    "string": "String (one line, up to 256 characters)",
    "text": "Text (several lines)",
    "richtext": "Rich text (formatted)",
    "integer": "Integer",
    "float": "Number with decimals",
    "boolean": "Yes / no",
    "datetime": "Date and time",
    "date": "Date",
    "enum": "One of a list of values",
    "json": "JSON",
    "relation": "Relation to other entries",
}


def _base(caller: UserCaller, ws: pages.PageWorkspace, done: str | None) -> dict[str, Any]:
    return {
        "caller": caller,
        "nav": "model",
        "ws": ws,
        "notice": NOTICES.get(done or ""),
        "field_types": [(t, TYPE_WORDS.get(t, t)) for t in FIELD_TYPES],
        "cardinalities": CARDINALITIES,
    }


@router.get("/content-types", response_class=HTMLResponse)
def model_page(
    request: Request,
    caller: OptionalCallerDep,
    workspace: pages.WorkspaceQuery = None,
    done: Annotated[str | None, Query(max_length=20)] = None,
) -> Response:
    opened = SECTION.open(request, caller, workspace)
    if isinstance(opened, Response):
        return opened
    user, ws = opened
    counts = service.count_by_state(user, ws.id)
    return pages.render(request, "content/model.html", {**_base(user, ws, done), "counts": counts})


@router.get("/content-types/{name}", response_class=HTMLResponse)
def model_type_page(
    request: Request,
    name: str,
    caller: OptionalCallerDep,
    workspace: pages.WorkspaceQuery = None,
    done: Annotated[str | None, Query(max_length=20)] = None,
) -> Response:
    opened = SECTION.open_type(request, caller, workspace, name)
    if isinstance(opened, Response):
        return opened
    user, ws, definition = opened
    (counts,) = service.count_by_state(user, ws.id, [definition])
    types = service.list_types(user, ws.id)
    return pages.render(
        request,
        "content/model_type.html",
        {
            **_base(user, ws, done),
            "type": definition,
            "counts": counts,
            "type_names": [t.name for t in types],
            "relation_help": {k: v.format(target="target") for k, v in RELATION_HELP.items()},
            "type_words": TYPE_WORDS,
            "created_at": when(definition.created_at),
            "updated_at": when(definition.updated_at),
            "definition": definition.to_json(),
            "workspace_id": ws.id,
        },
    )
