"""The authorization matrix of docs/authorization.md, cell by cell over real HTTP.

The expected answers live only in that document: this module parses its two tables (routes, and
GraphQL root fields) and knows only how to make each request. The routes are listed from the
served app (`app.routes`) and the root fields from the served GraphQL schema, so a route or root
field without a row, a row without a recipe here, or a row for something gone fails
`test_every_route_and_root_field_has_a_row`.

Two workspaces hold recognisable content: every name, title, URL and e-mail of workspace A
carries A's tag and every id of A is recorded (B likewise). No body answering a caller of A may
contain anything of B's, nor one answering B's token anything of A's beyond what the request
itself carried (the ids it asked for), except in the cells the document marks "(all
workspaces)". Writes that succeed act on objects made for the cell, so cells do not depend on
their order.
"""

from __future__ import annotations

import itertools
import json
import re
import string
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi.routing import iter_route_contexts
from graphql import GraphQLObjectType, build_schema
from starlette.routing import Mount

from content_service import runtime
from content_service.api.auth import SESSION_COOKIE
from content_service.audit.records import COMMAND_LINE
from content_service.clock import iso_utc
from content_service.graphql.persisted import document_hash, register
from content_service.identity.principal import SCOPE_CONTENT_WRITE, UserCaller
from content_service.identity.role_store import create_role
from content_service.identity.roles import READ, VIEWER, RoleGrant, Rule
from content_service.identity.tokens import TokenSpec, create_token, revoke_token
from content_service.identity.users import create_user
from content_service.identity.workspaces import create_workspace
from harness.receiver import Receiver
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.assets import png, post_form
from tests.support.clients import sign_in
from tests.support.roles_table import doc_table
from tests.support.settings import webhook_options
from tests.support.webhooks import mark_failed, purge_endpoint, seed_rows

COLUMNS = (
    "none",
    "revoked",
    "read",
    "full",
    "other",
    "other→A",
    "editor",
    "admin",
    "persisted",
    "write",
)
B_COLUMNS = frozenset({"other", "other→A"})
SESSION_COLUMNS = frozenset({"editor", "admin"})
PASSWORD = "matrix-password-1"
GRAPHQL = "/api/v1/graphql"
# A schedule body the service takes (a time within the next year).
SCHEDULE = {"action": "publish", "at": iso_utc(time.time() + 30 * 24 * 3600)}
SHARED_TYPES = ("post", "site")
"""The content types both workspaces hold: GraphQL rows run on these, so one document is valid in
A's schema and in B's alike."""


# -- the expected table (docs/authorization.md) ---------------------------------------------------

_CELL = re.compile(
    r"^(?P<status>\d{3})(?: (?P<outcome>data|[A-Z][A-Z_]+))?(?P<all> \(all workspaces\))?$"
)


@dataclass(frozen=True)
class Expected:
    status: int
    outcome: str | None
    """GraphQL only: `data` (no error) or the `extensions.code` of the one error."""
    all_workspaces: bool
    """The route is global by design: the answer may hold every workspace's objects."""


def _table(section: str) -> dict[str, dict[str, Expected]]:
    """The table under `## <section>`: row key (first cell, backticks removed) -> column -> cell."""
    rows: dict[str, dict[str, Expected]] = {}
    for key, cells in doc_table(section, COLUMNS).items():
        parsed: dict[str, Expected] = {}
        for column, cell in zip(COLUMNS, cells, strict=True):
            match = _CELL.match(cell)
            assert match, f"{key} / {column}: cannot read {cell!r}"
            parsed[column] = Expected(
                int(match["status"]), match["outcome"], match["all"] is not None
            )
        rows[key] = parsed
    return rows


ROUTE_ROWS = _table("Routes")
FIELD_ROWS = _table("GraphQL root fields")


# -- the world: seeded workspaces, callers, fresh objects -----------------------------------------


@dataclass
class Side:
    """One workspace: the tag every name in it carries, the ids it holds, its tokens."""

    tag: str
    id: str
    full_token: str
    read_token: str
    persisted_token: str
    """A full token with `persistedOnly`."""
    write_token: str
    """A full token holding `content:write` alone."""
    ids: set[str] = field(default_factory=set)
    published_post: str = ""
    endpoint: str = ""
    delivery: str = ""
    listener: str = ""
    recovery: str = ""

    @property
    def markers(self) -> set[str]:
        return {self.tag, *self.ids}


@dataclass
class Call:
    path: str
    json: Any = None
    data: dict[str, str] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    graphql_field: str | None = None
    """For a GraphQL request: the root field (response key) the cell is about."""


@dataclass
class World:
    base_url: str
    http: httpx.Client
    """Sends every request with explicit headers and keeps no cookie between requests."""
    a: Side
    b: Side
    empty: Side
    receiver: Receiver
    sessions: dict[str, str]
    accounts: dict[str, tuple[str, str]]
    revoked_token: str
    _counter: Iterator[int] = field(default_factory=itertools.count)
    _locales: Iterator[tuple[str, ...]] = field(
        default_factory=lambda: itertools.product(string.ascii_lowercase, repeat=3)
    )

    def unique(self) -> int:
        return next(self._counter)

    def request(
        self, method: str, path: str, headers: dict[str, str], **kwargs: Any
    ) -> httpx.Response:
        try:
            return self.http.request(
                method, path, headers=headers, follow_redirects=False, **kwargs
            )
        finally:
            self.http.cookies.clear()

    def headers(self, column: str, home: Side | None = None) -> dict[str, str]:
        """What a caller sends; `home` is the workspace it acts in (A unless told)."""
        home = home or self.a
        headers = {"Origin": self.base_url}
        bearer = {
            "revoked": self.revoked_token,
            "read": home.read_token,
            "full": home.full_token,
            "other": self.b.full_token,
            "other→A": self.b.full_token,
            "persisted": home.persisted_token,
            "write": home.write_token,
        }.get(column)
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        if column == "other→A" or column in SESSION_COLUMNS:
            headers["X-Workspace-Id"] = home.id
        if column in SESSION_COLUMNS:
            headers["Cookie"] = f"{SESSION_COOKIE}={self.sessions[column]}"
        return headers

    def fresh_session(self, column: str) -> str:
        return session_cookie(self.http, *self.accounts[column])

    def full_a(self, method: str, path: str, status: int, **kwargs: Any) -> Any:
        return _ok(self.request(method, path, self.headers("full"), **kwargs), status)

    # Fresh objects of A, one per cell that changes or removes what it names.

    def fresh_entry(self, type_name: str, state: str = "draft") -> str:
        body: dict[str, Any]
        if type_name == "site":
            body = {"values": {"name": f"site {self.a.tag}"}, "locale": self.fresh_locale()}
        else:
            body = {"values": {"title": f"{type_name} {self.a.tag} {self.unique()}"}}
        entry_id = str(self.full_a("POST", f"/api/v1/content/{type_name}", 201, json=body)["id"])
        self.a.ids.add(entry_id)
        path = f"/api/v1/content/{type_name}/{entry_id}"
        if state in ("published", "changed", "trashed"):
            self.full_a("POST", f"{path}/publish", 200)
        if state == "changed":
            field = "name" if type_name == "site" else "title"
            self.full_a("PATCH", path, 200, json={"values": {field: f"draft {self.unique()}"}})
        if state == "trashed":
            self.full_a("DELETE", path, 204)
        return entry_id

    def fresh_upload(self) -> str:
        """An upload of A sent to S3 through its presigned POST, not yet completed."""
        body = png()
        started = self.full_a(
            "POST",
            "/api/v1/assets/uploads",
            201,
            json={"fileName": "m.png", "contentType": "image/png", "size": len(body)},
        )
        assert post_form(started, body, "image/png").status_code == 204
        return str(started["uploadId"])

    def fresh_asset(self, state: str = "draft") -> str:
        """An asset of A: a `draft`, `published` or `trashed`."""
        made = self.full_a("POST", "/api/v1/assets", 201, json={"uploadId": self.fresh_upload()})
        asset_id = str(made["id"])
        self.a.ids.add(asset_id)
        if state in ("published", "trashed"):
            self.full_a("POST", f"/api/v1/assets/{asset_id}/publish", 200)
        if state == "trashed":
            self.full_a("DELETE", f"/api/v1/assets/{asset_id}", 204)
        return asset_id

    def fresh_schedule(self, type_name: str) -> tuple[str, str]:
        """A draft of A and a pending schedule of it: (entry id, schedule id)."""
        entry_id = self.fresh_entry(type_name)
        made = self.full_a(
            "POST", f"/api/v1/content/{type_name}/{entry_id}/schedules", 201, json=SCHEDULE
        )
        return entry_id, str(made["id"])

    def fresh_locale(self) -> str:
        """A locale no entry of the single type has yet (one record per locale)."""
        return "".join(next(self._locales))

    def fresh_type(self) -> str:
        name = f"t{self.unique()}_{uuid.uuid4().hex[:8]}"
        body = {"name": name, "fields": [{"name": "label", "type": "string"}]}
        self.full_a("POST", "/api/v1/content-types", 201, json=body)
        self.a.ids.add(name)
        return name

    def fresh_token(self) -> str:
        spec = TokenSpec(name=f"spare {self.a.tag}", workspace_id=self.a.id, access="read")
        _, info = create_token(spec)
        self.a.ids.add(info.id)
        return info.id

    def fresh_user(self) -> str:
        """A user of A (the e-mail carries A's tag) who may read there."""
        grants = {self.a.id: (RoleGrant(VIEWER),)}
        email = f"user-{self.a.tag}-{self.unique()}@example.com"
        user = create_user(runtime.settings(), email, "editor", PASSWORD, grants=grants)
        self.a.ids.add(user.id)
        return user.id

    def fresh_role(self) -> str:
        role = create_role(f"role {self.unique()}", "", (Rule(frozenset({READ})),), by=COMMAND_LINE)
        return role.id

    def fresh_failed_delivery(self) -> str:
        """A `failed` delivery of A's endpoint, its retry not yet due (for Retry now)."""
        (seeded,) = seed_rows(self.a.endpoint, FakeClock())
        mark_failed(seeded.id)
        self.a.ids.add(seeded.id)
        return seeded.id

    def fresh_endpoint(self) -> str:
        body = {"url": self.receiver.url(f"/spare-{self.a.tag}"), "workspaces": [self.a.id]}
        made = self.request("POST", "/api/webhooks", self.headers("admin"), json=body)
        endpoint_id = str(_ok(made, 201)["id"])
        self.a.ids.add(endpoint_id)
        return endpoint_id


def _ok(response: httpx.Response, status: int) -> Any:
    assert response.status_code == status, response.text
    return response.json() if response.content else None


def session_cookie(client: httpx.Client, email: str, password: str) -> str:
    """Signs the user in anew: the session cookie's value (the client keeps no cookie)."""
    try:
        sign_in(client, email, password)
        cookie = client.cookies.get(SESSION_COOKIE)
    finally:
        client.cookies.clear()
    assert cookie is not None
    return cookie


def _workspace(tag: str) -> Side:
    workspace = create_workspace(runtime.settings(), f"workspace {tag}", f"ws-{tag}")
    full, full_info = create_token(
        TokenSpec(name=f"full {tag}", workspace_id=workspace.id, access="full")
    )
    read, read_info = create_token(
        TokenSpec(name=f"read {tag}", workspace_id=workspace.id, access="read")
    )
    persisted, persisted_info = create_token(
        TokenSpec(
            name=f"persisted {tag}", workspace_id=workspace.id, access="full", persisted_only=True
        )
    )
    write, write_info = create_token(
        TokenSpec(
            name=f"write {tag}",
            workspace_id=workspace.id,
            access="full",
            scopes=(SCOPE_CONTENT_WRITE,),
        )
    )
    side = Side(
        tag=tag,
        id=workspace.id,
        full_token=full,
        read_token=read,
        persisted_token=persisted,
        write_token=write,
    )
    side.ids |= {workspace.id, full_info.id, read_info.id, persisted_info.id, write_info.id}
    return side


def _seed(http: httpx.Client, side: Side, admin: dict[str, str], receiver: Receiver) -> None:
    """Types, entries (one of them written by a user of this workspace's own), and a webhook
    endpoint that receives their events."""
    full = {"Authorization": f"Bearer {side.full_token}"}
    tag = side.tag
    body = {"url": receiver.url(f"/hook-{tag}"), "workspaces": [side.id]}
    side.endpoint = _ok(http.post("/api/webhooks", json=body, headers=admin), 201)["id"]
    side.ids.add(side.endpoint)
    pull = {**body, "url": f"http://localhost:3000/{tag}", "mode": "pull"}
    side.listener = _ok(http.post("/api/webhooks", json=pull, headers=admin), 201)["id"]
    side.ids.add(side.listener)
    recover = {"since": "2026-01-01T00:00:00Z"}
    made = http.post(f"/api/webhooks/{side.endpoint}/recover", json=recover, headers=admin)
    side.recovery = _ok(made, 202)["id"]
    side.ids.add(side.recovery)
    relation = {"type": "relation", "target": "post", "cardinality": "many-to-many"}
    for definition in (
        {
            "name": "post",
            "titleField": "title",
            "fields": [
                {"name": "title", "type": "string"},
                {"name": f"note_{tag}", "type": "string"},
                {"name": "related", **relation},
            ],
        },
        {
            "name": "site",
            "kind": "single",
            "localized": True,
            "fields": [{"name": "name", "type": "string"}],
        },
        {"name": f"only_{tag}", "fields": [{"name": "label", "type": "string"}]},
    ):
        _ok(http.post("/api/v1/content-types", json=definition, headers=full), 201)

    def entry(type_name: str, values: dict[str, Any], publish: bool = True, **more: Any) -> str:
        path = f"/api/v1/content/{type_name}"
        made = http.post(path, json={"values": values, **more}, headers=full)
        entry_id = str(_ok(made, 201)["id"])
        side.ids.add(entry_id)
        if publish:
            _ok(http.post(f"{path}/{entry_id}/publish", headers=full), 200)
        return entry_id

    target = entry("post", {"title": f"target {tag}", f"note_{tag}": f"note {tag}"})
    side.published_post = entry(
        "post", {"title": f"source {tag}"}, relations={"related": {"link": [target]}}
    )
    entry("post", {"title": f"draft {tag}"}, publish=False)
    entry("site", {"name": f"site {tag}"})
    entry(f"only_{tag}", {"label": f"label {tag}"})
    # A user writing here: the events (and so the deliveries) carry the e-mail as the actor.
    email = f"writer-{tag}@example.com"
    create_user(runtime.settings(), email, "editor", PASSWORD)
    writer = {
        "Cookie": f"{SESSION_COOKIE}={session_cookie(http, email, PASSWORD)}",
        "Origin": str(http.base_url).rstrip("/"),
        "X-Workspace-Id": side.id,
    }
    made = http.post(
        "/api/v1/content/post", json={"values": {"title": f"by {tag}"}}, headers=writer
    )
    http.cookies.clear()
    side.ids.add(_ok(made, 201)["id"])


@pytest.fixture(scope="module")
def world(stack: LocalStack, base_url: str, credentials: dict[str, Any]) -> Iterator[World]:
    with ExitStack() as cleanup:
        cleanup.enter_context(
            webhook_options(allow_private_networks=True, allow_insecure_urls=True)
        )
        receiver = cleanup.enter_context(Receiver())
        http = cleanup.enter_context(httpx.Client(base_url=base_url, timeout=30))
        admin_account = (credentials["admin"]["email"], credentials["admin"]["password"])
        editor_account = (f"editor-{uuid.uuid4().hex[:10]}@example.com", PASSWORD)
        create_user(runtime.settings(), editor_account[0], "editor", PASSWORD)
        sessions = {
            "admin": session_cookie(http, *admin_account),
            "editor": session_cookie(http, *editor_account),
        }
        admin = {"Cookie": f"{SESSION_COOKIE}={sessions['admin']}", "Origin": base_url}
        a, b, empty = (_workspace(f"mx{side}{uuid.uuid4().hex[:8]}") for side in "abe")
        revoked, revoked_info = create_token(
            TokenSpec(name=f"revoked {a.tag}", workspace_id=a.id, access="full")
        )
        revoke_token(revoked_info.id)
        a.ids.add(revoked_info.id)
        try:
            for side in (a, b):
                _seed(http, side, admin, receiver)
            stack.drain()  # fan the entries' events out to the two endpoints and deliver them
            for side in (a, b):
                log = http.get(f"/api/webhooks/{side.endpoint}/deliveries", headers=admin)
                rows = _ok(log, 200)["items"]
                assert rows, "the seeded entries' events reached no endpoint"
                side.delivery = rows[0]["id"]
                side.ids |= {row["id"] for row in rows}
            yield World(
                base_url=base_url,
                http=http,
                a=a,
                b=b,
                empty=empty,
                receiver=receiver,
                sessions=sessions,
                accounts={"admin": admin_account, "editor": editor_account},
                revoked_token=revoked,
            )
        finally:
            # The matrix's endpoints go first (its pull listeners too), so the final drain fans
            # the cells' writes out to nothing and finds the redeliveries' rows gone: no later
            # test meets any of it.
            listed = http.get("/api/webhooks", headers=admin).json()["items"]
            made_here = a.ids | b.ids
            for endpoint in listed:
                if endpoint["id"] in made_here or endpoint["url"].startswith(receiver.url("/")):
                    purge_endpoint(endpoint["id"])
            stack.drain()


# -- how each row's request is made ---------------------------------------------------------------

RouteRecipe = Callable[[World, str], Call]


def _path(template: str) -> RouteRecipe:
    """A fixed path; `{post}` is A's published post, `{endpoint}` and `{delivery}` A's,
    `{workspace}` A's id (the content pages' `?workspace=`)."""

    def recipe(w: World, _column: str) -> Call:
        return Call(
            template.format(
                post=w.a.published_post,
                endpoint=w.a.endpoint,
                delivery=w.a.delivery,
                workspace=w.a.id,
            )
        )

    return recipe


def _fresh_post(state: str, suffix: str = "", body: Any = None) -> RouteRecipe:
    def recipe(w: World, _column: str) -> Call:
        return Call(f"/api/v1/content/post/{w.fresh_entry('post', state)}{suffix}", json=body)

    return recipe


def _fresh_asset(state: str, suffix: str = "", body: Any = None) -> RouteRecipe:
    def recipe(w: World, _column: str) -> Call:
        return Call(f"/api/v1/assets/{w.fresh_asset(state)}{suffix}", json=body)

    return recipe


def _published_file(w: World, _column: str) -> Call:
    """A published asset's file URL: public, whatever token comes with it."""
    asset_id = w.fresh_asset()
    published = w.full_a("POST", f"/api/v1/assets/{asset_id}/publish", 200)
    return Call(str(published["url"]))


def _asset_page(w: World, _column: str) -> Call:
    return Call(f"/media/{w.fresh_asset('published')}?workspace={w.a.id}")


def _replace_file(w: World, _column: str) -> Call:
    asset_id = w.fresh_asset()
    return Call(f"/api/v1/assets/{asset_id}/file", json={"uploadId": w.fresh_upload()})


def _fresh_type(body: bool = False) -> RouteRecipe:
    def recipe(w: World, _column: str) -> Call:
        name = w.fresh_type()
        fields = [{"name": "label", "type": "string"}, {"name": "extra", "type": "string"}]
        return Call(
            f"/api/v1/content-types/{name}",
            json={"name": name, "fields": fields} if body else None,
        )

    return recipe


def _fresh_token(body: Any = None) -> RouteRecipe:
    return lambda w, _column: Call(f"/api/v1/tokens/{w.fresh_token()}", json=body)


def _new_type(w: World, _column: str) -> Call:
    name = f"n{w.unique()}_{uuid.uuid4().hex[:8]}"
    return Call("/api/v1/content-types", json={"name": name, "fields": []})


def _new_endpoint(w: World, _column: str) -> Call:
    body = {"url": w.receiver.url("/made-by-the-matrix"), "workspaces": [w.a.id]}
    return Call("/api/webhooks", json=body)


def _sign_in(w: World, _column: str) -> Call:
    email, password = w.accounts["editor"]
    return Call("/login", data={"email": email, "password": password})


def _sign_out(w: World, column: str) -> Call:
    call = Call("/logout")
    if column in SESSION_COLUMNS:  # signing out ends the session: this cell gets its own
        call.headers["Cookie"] = f"{SESSION_COOKIE}={w.fresh_session(column)}"
    return call


ROUTE_RECIPES: dict[str, RouteRecipe] = {
    "GET /healthz": _path("/healthz"),
    "GET /files/{workspace_id}/{asset_id}/{file_id}/{file_name}": _published_file,
    "GET /api/v1/openapi.json": _path("/api/v1/openapi.json"),
    "GET /static/{path}": _path("/static/app.css"),
    "GET /favicon.ico": _path("/favicon.ico"),
    "GET /": _path("/"),
    "GET /login": _path("/login"),
    "POST /login": _sign_in,
    "POST /logout": _sign_out,
    "GET /api/v1/me": _path("/api/v1/me"),
    "GET /api/v1/tokens": _path("/api/v1/tokens"),
    "POST /api/v1/tokens": lambda w, _column: Call(
        "/api/v1/tokens",
        json={"name": "made by the matrix", "workspaceId": w.a.id, "access": "read"},
    ),
    "PATCH /api/v1/tokens/{token_id}": _fresh_token({"contentTypes": ["post"]}),
    "DELETE /api/v1/tokens/{token_id}": _fresh_token(),
    "GET /api/v1/audit": _path("/api/v1/audit"),
    "GET /api/v1/roles": _path("/api/v1/roles"),
    "POST /api/v1/roles": lambda w, _column: Call(
        "/api/v1/roles", json={"name": "made by the matrix", "rules": [{"actions": ["read"]}]}
    ),
    "PATCH /api/v1/roles/{role_id}": lambda w, _column: Call(
        f"/api/v1/roles/{w.fresh_role()}", json={"description": "patched by the matrix"}
    ),
    "DELETE /api/v1/roles/{role_id}": lambda w, _column: Call(f"/api/v1/roles/{w.fresh_role()}"),
    "GET /api/v1/users": _path("/api/v1/users"),
    "POST /api/v1/users": lambda w, _column: Call(
        "/api/v1/users",
        json={
            "email": f"made-{w.a.tag}-{w.unique()}@example.com",
            "password": PASSWORD,
            "grants": {w.a.id: [{"role": "viewer"}]},
        },
    ),
    "PUT /api/v1/users/{user_id}/grants/{workspace_key}": lambda w, _column: Call(
        f"/api/v1/users/{w.fresh_user()}/grants/{w.a.id}", json={"grants": [{"role": "author"}]}
    ),
    "POST /api/v1/users/{user_id}/deactivate": lambda w, _column: Call(
        f"/api/v1/users/{w.fresh_user()}/deactivate"
    ),
    "GET /api/v1/content-types": _path("/api/v1/content-types"),
    "POST /api/v1/content-types": _new_type,
    "GET /api/v1/content-types/{name}": _fresh_type(),
    "PUT /api/v1/content-types/{name}": _fresh_type(body=True),
    "DELETE /api/v1/content-types/{name}": _fresh_type(),
    "GET /api/v1/content/{content_type}": _path("/api/v1/content/post"),
    "GET /api/v1/content/{content_type}/{entry_id}": _path("/api/v1/content/post/{post}"),
    "GET /api/v1/content/{content_type}/{entry_id}/relations/{field}": _path(
        "/api/v1/content/post/{post}/relations/related"
    ),
    "GET /api/v1/content/{content_type}/{entry_id}/links": _path(
        "/api/v1/content/post/{post}/links"
    ),
    "POST /api/v1/content/{content_type}": lambda w, _column: Call(
        "/api/v1/content/post", json={"values": {"title": "made by the matrix"}}
    ),
    "PATCH /api/v1/content/{content_type}/{entry_id}": _fresh_post(
        "draft", body={"values": {"title": "patched by the matrix"}}
    ),
    "POST /api/v1/content/{content_type}/{entry_id}/publish": _fresh_post("draft", "/publish"),
    "POST /api/v1/content/{content_type}/{entry_id}/unpublish": _fresh_post(
        "published", "/unpublish"
    ),
    "DELETE /api/v1/content/{content_type}/{entry_id}": _fresh_post("draft"),
    "POST /api/v1/content/{content_type}/{entry_id}/restore": _fresh_post("trashed", "/restore"),
    "DELETE /api/v1/content/{content_type}/{entry_id}/purge": _fresh_post("trashed", "/purge"),
    "POST /api/v1/content/{content_type}/{entry_id}/discard": _fresh_post("changed", "/discard"),
    "GET /api/v1/content/{content_type}/{entry_id}/versions": _path(
        "/api/v1/content/post/{post}/versions"
    ),
    "GET /api/v1/content/{content_type}/{entry_id}/versions/{number}": _path(
        "/api/v1/content/post/{post}/versions/1"
    ),
    "POST /api/v1/content/{content_type}/{entry_id}/versions/{number}/restore": _fresh_post(
        "published", "/versions/1/restore"
    ),
    "POST /api/v1/content/{content_type}/{entry_id}/schedules": _fresh_post(
        "draft", "/schedules", body=SCHEDULE
    ),
    "GET /api/v1/content/{content_type}/{entry_id}/schedules": _fresh_post("draft", "/schedules"),
    "DELETE /api/v1/content/{content_type}/{entry_id}/schedules/{schedule_id}": (
        lambda w, _column: Call(
            "/api/v1/content/post/{}/schedules/{}".format(*w.fresh_schedule("post"))
        )
    ),
    "GET /api/v1/sync": _path("/api/v1/sync?initial=true"),
    "GET /api/v1/assets": _path("/api/v1/assets"),
    "POST /api/v1/assets/uploads": lambda w, _column: Call(
        "/api/v1/assets/uploads",
        json={"fileName": "m.png", "contentType": "image/png", "size": 10},
    ),
    "POST /api/v1/assets": lambda w, _column: Call(
        "/api/v1/assets", json={"uploadId": w.fresh_upload()}
    ),
    "GET /api/v1/assets/{asset_id}": _fresh_asset("published"),
    "GET /api/v1/assets/{asset_id}/links": _fresh_asset("published", "/links"),
    "PATCH /api/v1/assets/{asset_id}": _fresh_asset("draft", body={"title": "by the matrix"}),
    "DELETE /api/v1/assets/{asset_id}": _fresh_asset("draft"),
    "POST /api/v1/assets/{asset_id}/file": _replace_file,
    "POST /api/v1/assets/{asset_id}/publish": _fresh_asset("draft", "/publish"),
    "POST /api/v1/assets/{asset_id}/unpublish": _fresh_asset("published", "/unpublish"),
    "POST /api/v1/assets/{asset_id}/restore": _fresh_asset("trashed", "/restore"),
    "GET /api/v1/assets/{asset_id}/versions": _fresh_asset("published", "/versions"),
    "GET /api/v1/assets/{asset_id}/versions/{number}": _fresh_asset("published", "/versions/1"),
    "POST /api/v1/graphql": lambda w, _column: Call(
        GRAPHQL, json={"query": "{ __typename }"}, graphql_field="__typename"
    ),
    "GET /api/v1/graphql": _path(GRAPHQL),
    "GET /api/v1/graphql/playground": _path(f"{GRAPHQL}/playground"),
    "GET /api/v1/docs": _path("/api/v1/docs"),
    "GET /api/webhook-events": _path("/api/webhook-events"),
    "GET /api/webhooks": _path("/api/webhooks"),
    "POST /api/webhooks": _new_endpoint,
    "GET /api/webhooks/{endpoint_id}": _path("/api/webhooks/{endpoint}"),
    "PATCH /api/webhooks/{endpoint_id}": lambda w, _column: Call(
        f"/api/webhooks/{w.a.endpoint}", json={"enabled": True, "rateLimit": 50}
    ),
    "DELETE /api/webhooks/{endpoint_id}": lambda w, _column: Call(
        f"/api/webhooks/{w.fresh_endpoint()}"
    ),
    "POST /api/webhooks/{endpoint_id}/rotate-secret": lambda w, _column: Call(
        f"/api/webhooks/{w.a.endpoint}/rotate-secret", json={"graceSeconds": 3600}
    ),
    "POST /api/webhooks/{endpoint_id}/test": _path("/api/webhooks/{endpoint}/test"),
    "GET /api/webhooks/{endpoint_id}/stats": _path("/api/webhooks/{endpoint}/stats"),
    "GET /api/webhooks/{endpoint_id}/deliveries": _path("/api/webhooks/{endpoint}/deliveries"),
    "GET /api/webhooks/{endpoint_id}/deliveries/{delivery_id}": _path(
        "/api/webhooks/{endpoint}/deliveries/{delivery}"
    ),
    "POST /api/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver": _path(
        "/api/webhooks/{endpoint}/deliveries/{delivery}/redeliver"
    ),
    "POST /api/webhooks/{endpoint_id}/deliveries/{delivery_id}/retry": lambda w, _column: Call(
        f"/api/webhooks/{w.a.endpoint}/deliveries/{w.fresh_failed_delivery()}/retry"
    ),
    "POST /api/webhooks/{endpoint_id}/recover": lambda w, _column: Call(
        f"/api/webhooks/{w.a.endpoint}/recover", json={"since": "2026-01-01T00:00:00Z"}
    ),
    "GET /api/webhooks/{endpoint_id}/recoveries/{recovery_id}": lambda w, _column: Call(
        f"/api/webhooks/{w.a.endpoint}/recoveries/{w.a.recovery}"
    ),
    "POST /api/webhooks/{endpoint_id}/pull": lambda w, _column: Call(
        f"/api/webhooks/{w.a.listener}/pull", json={"wait": 0}
    ),
    "GET /webhooks": _path("/webhooks"),
    "GET /webhooks/new": _path("/webhooks/new"),
    "GET /webhooks/{endpoint_id}/edit": _path("/webhooks/{endpoint}/edit"),
    "GET /webhooks/{endpoint_id}": _path("/webhooks/{endpoint}"),
    "GET /content": _path("/content?workspace={workspace}"),
    "GET /media": _path("/media?workspace={workspace}"),
    "GET /media/{asset_id}": _asset_page,
    "GET /content/{content_type}": _path("/content/post?workspace={workspace}"),
    "GET /content/{content_type}/new": _path("/content/post/new?workspace={workspace}"),
    "GET /content/{content_type}/{entry_id}": _path("/content/post/{post}?workspace={workspace}"),
    "GET /content-types": _path("/content-types?workspace={workspace}"),
    "GET /content-types/{name}": _path("/content-types/post?workspace={workspace}"),
    "GET /audit": _path("/audit?workspace={workspace}"),
    "GET /users": _path("/users"),
    "GET /roles": _path("/roles"),
}


@dataclass(frozen=True)
class TypeNames:
    """A content type's GraphQL names, as `GET /api/v1/content-types` reports them."""

    name: str
    single: bool
    object: str
    single_field: str
    list_field: str

    @classmethod
    def of(cls, described: dict[str, Any]) -> TypeNames:
        names = described["graphql"]
        return cls(
            described["name"],
            described["kind"] == "single",
            names["typeName"],
            names["singleField"],
            names["listField"],
        )


FieldRecipe = Callable[[World, TypeNames], tuple[str, str]]
"""One root field of one content type: (the field, a document selecting it), with fresh objects
where it writes."""


def _selection(t: TypeNames) -> str:
    return "id name" if t.single else "id title"


def _values(t: TypeNames) -> str:
    value = "name" if t.single else "title"
    return f'{{{value}: "made by the matrix"}}'


def _by_id(verb: str, state: str, selection: bool = True) -> FieldRecipe:
    def recipe(w: World, t: TypeNames) -> tuple[str, str]:
        root = f"{verb}{t.object}"
        picked = f" {{ {_selection(t)} }}" if selection else ""
        return root, f'mutation {{ {root}(id: "{w.fresh_entry(t.name, state)}"){picked} }}'

    return recipe


def _create(w: World, t: TypeNames) -> tuple[str, str]:
    root = f"create{t.object}"
    locale = f'locale: "{w.fresh_locale()}", ' if t.single else ""
    return root, f"mutation {{ {root}(input: {{{locale}values: {_values(t)}}}) {{ id }} }}"


def _update(w: World, t: TypeNames) -> tuple[str, str]:
    root = f"update{t.object}"
    entry_id = w.fresh_entry(t.name, "draft")
    return root, (
        f'mutation {{ {root}(id: "{entry_id}", input: {{values: {_values(t)}}}) '
        f"{{ {_selection(t)} }} }}"
    )


def _restore_version(w: World, t: TypeNames) -> tuple[str, str]:
    root = f"restore{t.object}Version"
    entry_id = w.fresh_entry(t.name, "published")
    return root, f'mutation {{ {root}(id: "{entry_id}", version: 1) {{ {_selection(t)} }} }}'


def _schedule(w: World, t: TypeNames) -> tuple[str, str]:
    root = f"schedule{t.object}"
    entry_id = w.fresh_entry(t.name)
    at = SCHEDULE["at"]
    return root, f'mutation {{ {root}(id: "{entry_id}", action: PUBLISH, at: "{at}") {{ id }} }}'


def _cancel_schedule(w: World, t: TypeNames) -> tuple[str, str]:
    root = f"cancel{t.object}Schedule"
    entry_id, schedule_id = w.fresh_schedule(t.name)
    return root, f'mutation {{ {root}(id: "{entry_id}", scheduleId: "{schedule_id}") }}'


def _one(w: World, t: TypeNames) -> tuple[str, str]:
    root = t.single_field
    return root, f'{{ {root}(id: "{w.a.published_post}") {{ {_selection(t)} }} }}'


def _list(w: World, t: TypeNames) -> tuple[str, str]:
    return t.list_field, f"{{ {t.list_field} {{ total items {{ {_selection(t)} }} }} }}"


def _single(w: World, t: TypeNames) -> tuple[str, str]:
    return t.single_field, f"{{ {t.single_field} {{ {_selection(t)} }} }}"


FIELD_RECIPES: dict[str, tuple[Callable[[TypeNames], bool], FieldRecipe]] = {
    "Query.<type>(id)": (lambda t: not t.single, _one),
    "Query.<types>(...)": (lambda t: not t.single, _list),
    "Query.<singleType>(locale)": (lambda t: t.single, _single),
    "Mutation.create<Type>": (lambda t: True, _create),
    "Mutation.update<Type>": (lambda t: True, _update),
    "Mutation.publish<Type>": (lambda t: True, _by_id("publish", "draft")),
    "Mutation.unpublish<Type>": (lambda t: True, _by_id("unpublish", "published")),
    "Mutation.delete<Type>": (lambda t: True, _by_id("delete", "draft", selection=False)),
    "Mutation.discard<Type>": (lambda t: True, _by_id("discard", "changed")),
    "Mutation.restore<Type>Version": (lambda t: True, _restore_version),
    "Mutation.schedule<Type>": (lambda t: True, _schedule),
    "Mutation.cancel<Type>Schedule": (lambda t: True, _cancel_schedule),
}
EMPTY_FIELD = "Query._empty"
"""Only in a schema with no visible type: run in a workspace without types."""


# -- running a cell -------------------------------------------------------------------------------


def _outcome(response: httpx.Response, graphql_field: str | None) -> str | None:
    if graphql_field is None or response.status_code != 200:
        return None
    body = response.json()
    if body.get("errors"):
        return "+".join(sorted({e["extensions"]["code"] for e in body["errors"]}))
    return "data" if graphql_field in body.get("data", {}) else "no data"


def _shown(status: int, outcome: str | None) -> str:
    return f"{status} {outcome}" if outcome else str(status)


REGISTRAR = UserCaller(id="matrix", email="matrix@example.com", role="admin")
"""Who registers the `persisted` column's documents: a signed-in user's are trusted."""


def _by_hash(call: Call, workspace_id: str) -> Call:
    """The GraphQL call as a `persistedOnly` token makes it: the document registered (trusted)
    beforehand, and only its hash sent."""
    query = call.json["query"]
    digest = document_hash(query)
    register(REGISTRAR, workspace_id, digest, query)
    persisted = {"persistedQuery": {"version": 1, "sha256Hash": digest}}
    return Call(call.path, json={"extensions": persisted}, graphql_field=call.graphql_field)


def _cell(
    w: World, method: str, call: Call, column: str, expected: Expected, home: Side | None = None
) -> list[str]:
    """The problems of one cell: a status or outcome other than documented, or a leak."""
    if column == "persisted" and call.graphql_field is not None:
        call = _by_hash(call, (home or w.a).id)
    headers = {**w.headers(column, home), **call.headers}
    response = w.request(method, call.path, headers, json=call.json, data=call.data)
    got = (response.status_code, _outcome(response, call.graphql_field))
    problems = []
    if got != (expected.status, expected.outcome):
        problems.append(
            f"{column}: {_shown(*got)}, documented {_shown(expected.status, expected.outcome)}"
            f" ({response.text[:160]!r})"
        )
    if not expected.all_workspaces:
        foreign = w.a if column in B_COLUMNS else w.b
        sent = json.dumps([call.path, call.json, call.data, headers])
        leaked = sorted(m for m in foreign.markers if m not in sent and m in response.text)
        if leaked:
            problems.append(f"{column}: the answer holds the other workspace's {leaked}")
    return problems


@pytest.mark.parametrize("route", list(ROUTE_ROWS))
def test_route(world: World, route: str) -> None:
    recipe = ROUTE_RECIPES.get(route)
    assert recipe is not None, f"no recipe for {route}: add one to ROUTE_RECIPES"
    method = route.split(" ", 1)[0]
    problems: list[str] = []
    for column in COLUMNS:
        problems += _cell(world, method, recipe(world, column), column, ROUTE_ROWS[route][column])
    assert not problems, f"{route}:\n" + "\n".join(problems)


def _types(world: World, home: Side) -> list[TypeNames]:
    listed = world.request("GET", "/api/v1/content-types", world.headers("admin", home))
    return [TypeNames.of(t) for t in _ok(listed, 200)["items"]]


@pytest.mark.parametrize("row", list(FIELD_ROWS))
def test_root_field(world: World, row: str) -> None:
    problems: list[str] = []
    if row == EMPTY_FIELD:
        for column in COLUMNS:
            call = Call(GRAPHQL, json={"query": "{ _empty }"}, graphql_field="_empty")
            problems += _cell(world, "POST", call, column, FIELD_ROWS[row][column], world.empty)
    else:
        assert row in FIELD_RECIPES, f"no recipe for {row}: add one to FIELD_RECIPES"
        applies, recipe = FIELD_RECIPES[row]
        shared = [t for t in _types(world, world.a) if t.name in SHARED_TYPES and applies(t)]
        assert shared, f"no shared content type has {row}"
        for t in shared:
            for column in COLUMNS:
                root, document = recipe(world, t)
                call = Call(GRAPHQL, json={"query": document}, graphql_field=root)
                problems += [
                    f"{t.name} {p}"
                    for p in _cell(world, "POST", call, column, FIELD_ROWS[row][column])
                ]
    assert not problems, f"{row}:\n" + "\n".join(problems)


def test_the_markers_show_where_they_belong(world: World) -> None:
    """The leak check is not vacuous: answers do carry their own workspace's markers, so the
    other workspace's would be seen."""
    for side, column in ((world.a, "read"), (world.b, "other")):
        # Oldest first: the seeded posts come before those the cells made since.
        oldest = "/api/v1/content/post?sort=createdAt&pageSize=100"
        posts = world.request("GET", oldest, world.headers(column)).text
        assert side.tag in posts
        assert side.published_post in posts
        assert f"note_{side.tag}" in world.request("GET", GRAPHQL, world.headers(column)).text
    delivery = f"/api/webhooks/{world.a.endpoint}/deliveries/{world.a.delivery}"
    assert world.a.tag in world.request("GET", delivery, world.headers("admin")).text
    everything = world.request("GET", "/api/webhooks", world.headers("admin")).text
    assert world.a.tag in everything
    assert world.b.tag in everything


# -- completeness ---------------------------------------------------------------------------------


def _served_routes(app: Any) -> set[str]:
    served: set[str] = set()
    for route in iter_route_contexts(app.routes):
        if isinstance(route.original_route, Mount):
            served.add(f"GET {route.path}/{{path}}")
            continue
        served |= {f"{method} {route.path}" for method in (route.methods or set()) - {"HEAD"}}
    return served


def _row_of(operation: str, name: str, types: list[TypeNames]) -> str:
    """The documented row a root field belongs to: per content type, by its derived names."""
    for t in types:
        if operation == "Query" and name == t.single_field:
            return "Query.<singleType>(locale)" if t.single else "Query.<type>(id)"
        if operation == "Query" and name == t.list_field and not t.single:
            return "Query.<types>(...)"
    if operation == "Mutation":
        for suffix in ("", "Version", "Schedule"):
            stem = name.removesuffix(suffix)
            owners = [t for t in types if stem.endswith(t.object) and stem != t.object]
            if owners and (suffix == "" or stem != name):
                owner = max(owners, key=lambda t: len(t.object))
                return f"Mutation.{stem.removesuffix(owner.object)}<Type>{suffix}"
    return f"{operation}.{name}"


def _served_root_fields(world: World) -> set[str]:
    rows: set[str] = set()
    for home in (world.a, world.empty):
        sdl = world.request("GET", GRAPHQL, world.headers("admin", home))
        schema = build_schema(_ok_text(sdl))
        types = _types(world, home)
        for operation in ("Query", "Mutation"):
            root = schema.get_type(operation)
            if isinstance(root, GraphQLObjectType):
                rows |= {_row_of(operation, name, types) for name in root.fields}
    return rows


def _ok_text(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    return response.text


def test_every_route_and_root_field_has_a_row(stack: LocalStack, world: World) -> None:
    """A route or root field without a row fails here, and so does a row for nothing."""
    assert stack.app is not None
    served = _served_routes(stack.app)
    assert served - set(ROUTE_ROWS) == set(), "routes without a row in docs/authorization.md"
    assert set(ROUTE_ROWS) - served == set(), "rows for routes the app does not serve"
    assert set(ROUTE_RECIPES) == set(ROUTE_ROWS)
    fields = _served_root_fields(world)
    assert fields - set(FIELD_ROWS) == set(), "root fields without a row"
    assert set(FIELD_ROWS) - fields == set(), "rows for root fields no schema has"
    assert set(FIELD_RECIPES) | {EMPTY_FIELD} == set(FIELD_ROWS)
