"""Roles: storage, grants and their enforcement in the content service, over real HTTP.

The role x action expectation lives only in docs/authorization.md (`## Roles and actions`): this
module parses that table and acts every cell out in REST and in GraphQL as a user holding the
role, so the document and the behaviour cannot drift. The other tests cover a custom role with
locale and field limits, own entries, a refused write writing nothing but its audit record, a
deactivated user and a token given a role.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from content_service import runtime
from content_service.audit.records import COMMAND_LINE
from content_service.clock import iso_utc
from content_service.errors import Conflict, ValidationFailed
from content_service.identity.permissions import forget_roles
from content_service.identity.role_store import (
    create_role,
    delete_role,
    get_role,
    list_roles,
    update_role,
)
from content_service.identity.roles import (
    ACTIONS,
    BUILTIN_ROLES,
    EVERY_WORKSPACE,
    READ,
    UPDATE,
    RoleGrant,
    Rule,
)
from content_service.identity.tokens import TokenSpec, create_token
from content_service.identity.users import (
    Grants,
    create_user,
    deactivate_user,
    get_user,
    set_grants,
)
from content_service.identity.workspaces import create_workspace
from infra.local_stack import LocalStack
from tests.support.clients import sign_in
from tests.support.content import WRITES, Storage
from tests.support.graphql import post as graphql
from tests.support.roles_table import GRANTED_LOCALE, OTHER_LOCALE, ROLE_COLUMNS, roles_table

PASSWORD = "roles-password-1"
SCHEDULE_AT = iso_utc(time.time() + 30 * 24 * 3600)


TABLE = roles_table()


def _email(tag: str) -> str:
    return f"{tag}-{uuid.uuid4().hex[:8]}@roles.example"


@dataclass
class World:
    """A workspace with a localized `post` type, its full token, the bootstrap admin and one
    signed-in user per built-in role, each acting in the workspace."""

    base_url: str
    workspace_id: str
    full: httpx.Client
    admin: httpx.Client
    users: dict[str, httpx.Client] = field(default_factory=dict)

    def client(self, headers: dict[str, str] | None = None) -> httpx.Client:
        base = {"Origin": self.base_url, "X-Workspace-Id": self.workspace_id}
        return httpx.Client(base_url=self.base_url, headers={**base, **(headers or {})}, timeout=30)

    def entry(self, state: str, locale: str, by: httpx.Client | None = None) -> str:
        """A fresh `post` entry in `state` (draft, published, trashed), made by `by` (default:
        the full token, so nobody's own) and brought to that state by the full token."""
        body = {"values": {"title": "made", "body": "text"}, "locale": locale}
        made = (by or self.full).post("/api/v1/content/post", json=body)
        assert made.status_code == 201, made.text
        entry_id = str(made.json()["id"])
        if state in ("published", "changed"):
            ok(self.full.post(f"/api/v1/content/post/{entry_id}/publish"))
        if state == "trashed":
            ok(self.full.delete(f"/api/v1/content/post/{entry_id}"))
        return entry_id

    def refusals(self, entry_id: str) -> list[dict[str, Any]]:
        response = self.admin.get(
            "/api/v1/audit", params={"target": f"entry:{entry_id}", "action": "entry.refused"}
        )
        items: list[dict[str, Any]] = ok(response)["items"]
        return items


def ok(response: httpx.Response) -> Any:
    assert response.status_code in (200, 201, 204), response.text
    return response.json() if response.status_code != 204 else None


def _grants(role: str, workspace_id: str) -> dict[str, tuple[RoleGrant, ...]]:
    if role == "administrator":
        return {EVERY_WORKSPACE: (RoleGrant(role),)}
    locales = frozenset({GRANTED_LOCALE}) if BUILTIN_ROLES[role].takes_locales else None
    return {workspace_id: (RoleGrant(role, locales),)}


def signed_in(world: World, grants: Grants, tag: str) -> httpx.Client:
    email = _email(tag)
    create_user(runtime.settings(), email, "editor", PASSWORD, grants=grants)
    return sign_in(world.client(), email, PASSWORD)


@pytest.fixture(scope="module")
def world(stack: LocalStack, base_url: str, credentials: dict[str, Any]) -> Iterator[World]:
    slug = f"ws-{uuid.uuid4().hex[:12]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    token, _ = create_token(TokenSpec(name="full", workspace_id=workspace.id, access="full"))
    with ExitStack() as cleanup:
        full = cleanup.enter_context(
            httpx.Client(
                base_url=base_url,
                headers={"Origin": base_url, "Authorization": f"Bearer {token}"},
                timeout=30,
            )
        )
        headers = {"Origin": base_url, "X-Workspace-Id": workspace.id}
        admin = cleanup.enter_context(httpx.Client(base_url=base_url, headers=headers, timeout=30))
        sign_in(admin, credentials["admin"]["email"], credentials["admin"]["password"])
        world = World(base_url, workspace.id, full, admin)
        definition = {
            "name": "post",
            "localized": True,
            "titleField": "title",
            "fields": [{"name": "title", "type": "string"}, {"name": "body", "type": "string"}],
        }
        ok(full.post("/api/v1/content-types", json=definition))
        for role in ROLE_COLUMNS:
            client = signed_in(world, _grants(role, workspace.id), role)
            world.users[role] = cleanup.enter_context(closing(client))
        yield world


# -- the role x action matrix ---------------------------------------------------------------------


@dataclass(frozen=True)
class Recipe:
    """How one action is made: the state its entry needs (None: no entry), its REST request
    and its GraphQL document (None: GraphQL has no such mutation)."""

    state: str | None
    rest: Callable[[str, str], tuple[str, str, Any]]
    graphql: Callable[[str, str], str] | None


def _path(entry_id: str, suffix: str = "") -> str:
    return f"/api/v1/content/post/{entry_id}{suffix}"


RECIPES: dict[str, Recipe] = {
    "read": Recipe(
        "published",
        lambda e, _: ("GET", _path(e), None),
        lambda e, _: f'{{ post(id: "{e}") {{ id }} }}',
    ),
    "create": Recipe(
        None,
        lambda _, loc: (
            "POST",
            "/api/v1/content/post",
            {"values": {"title": "new"}, "locale": loc},
        ),
        lambda _, loc: (
            f'mutation {{ createPost(input: {{locale: "{loc}", values: {{title: "new"}}}}) '
            "{ id } }"
        ),
    ),
    "update": Recipe(
        "draft",
        lambda e, _: ("PATCH", _path(e), {"values": {"title": "changed"}}),
        lambda e, _: (
            f'mutation {{ updatePost(id: "{e}", input: {{values: {{title: "changed"}}}}) '
            "{ id } }"
        ),
    ),
    "publish": Recipe(
        "draft",
        lambda e, _: ("POST", _path(e, "/publish"), None),
        lambda e, _: f'mutation {{ publishPost(id: "{e}") {{ id }} }}',
    ),
    "unpublish": Recipe(
        "published",
        lambda e, _: ("POST", _path(e, "/unpublish"), None),
        lambda e, _: f'mutation {{ unpublishPost(id: "{e}") {{ id }} }}',
    ),
    "trash": Recipe(
        "draft",
        lambda e, _: ("DELETE", _path(e), None),
        lambda e, _: f'mutation {{ deletePost(id: "{e}") }}',
    ),
    "restore": Recipe("trashed", lambda e, _: ("POST", _path(e, "/restore"), None), None),
    "schedule": Recipe(
        "draft",
        lambda e, _: (
            "POST",
            _path(e, "/schedules"),
            {"action": "publish", "at": SCHEDULE_AT},
        ),
        lambda e, _: (
            f'mutation {{ schedulePost(id: "{e}", action: PUBLISH, at: "{SCHEDULE_AT}") {{ id }} }}'
        ),
    ),
    "manage versions": Recipe(
        "published",
        lambda e, _: ("POST", _path(e, "/versions/1/restore"), None),
        lambda e, _: f'mutation {{ restorePostVersion(id: "{e}", version: 1) {{ id }} }}',
    ),
    "manage assets": Recipe(
        None,
        lambda *_: (
            "POST",
            "/api/v1/assets/uploads",
            {"fileName": "a.png", "contentType": "image/png", "size": 100},
        ),
        None,
    ),
}
CASES: dict[str, list[tuple[bool, str, bool]]] = {
    "yes": [(False, GRANTED_LOCALE, True)],
    "no": [(False, GRANTED_LOCALE, False)],
    "own": [(True, GRANTED_LOCALE, True), (False, GRANTED_LOCALE, False)],
    "locales": [(False, GRANTED_LOCALE, True), (False, OTHER_LOCALE, False)],
}
"""A cell's cases: (on the user's own entry, the entry's locale, allowed)."""


def _allowed(client: httpx.Client, recipe: Recipe, protocol: str, entry: str, locale: str) -> bool:
    """Whether the role's request succeeded; a refusal must be the role's 403."""
    if protocol == "graphql":
        assert recipe.graphql is not None
        result = graphql(client, recipe.graphql(entry, locale))
        if not result.get("errors"):
            return True
        (error,) = result["errors"]
        assert error["extensions"]["code"] == "FORBIDDEN", result
        assert "your role does not allow" in error["message"], result
        return False
    method, path, body = recipe.rest(entry, locale)
    response = client.request(method, path, json=body)
    if response.status_code == 403:
        assert "your role does not allow" in response.json()["error"]["message"], response.text
        return False
    assert response.status_code in (200, 201, 204), response.text
    return True


PROTOCOL_ACTIONS = [
    (protocol, action)
    for protocol in ("rest", "graphql")
    for action in ACTIONS
    if protocol == "rest" or RECIPES[action].graphql is not None
]
"""Each action in each protocol that has it: GraphQL has no mutation for a trashed entry's
restore or for assets, so those two are REST's alone."""


@pytest.mark.parametrize("role", ROLE_COLUMNS)
@pytest.mark.parametrize(("protocol", "action"), PROTOCOL_ACTIONS)
def test_each_built_in_role_does_what_the_table_says(
    world: World, action: str, role: str, protocol: str
) -> None:
    recipe = RECIPES[action]
    client = world.users[role]
    for own, locale, allowed in CASES[TABLE[action][role]]:
        entry = ""
        if recipe.state is not None:
            entry = world.entry(recipe.state, locale, client if own else None)
        got = _allowed(client, recipe, protocol, entry, locale)
        whose = "own" if own else "another's"
        assert got == allowed, f"{role} {action} on {whose} entry in {locale!r}: {got}"


# -- custom roles, own entries, refusals, deactivation, tokens ------------------------------------


def test_a_custom_role_limited_to_a_locale_and_a_field_is_refused_the_rest(
    world: World, storage: Storage
) -> None:
    rules = (
        Rule(frozenset({READ})),
        Rule(frozenset({UPDATE}), frozenset({"post"}), frozenset({"de"}), frozenset({"title"})),
    )
    role = create_role("Title editor " + uuid.uuid4().hex[:6], "", rules, by=COMMAND_LINE)
    with closing(signed_in(world, {world.workspace_id: (RoleGrant(role.id),)}, "titles")) as client:
        german, english = world.entry("draft", "de"), world.entry("draft", "en")
        ok(client.patch(_path(german), json={"values": {"title": "Titel"}}))
        before = storage.entry_item(world.workspace_id, german)
        refused = client.patch(_path(german), json={"values": {"title": "x", "body": "Text"}})
        assert refused.status_code == 403, refused.text
        assert "'body'" in refused.json()["error"]["message"]
        assert storage.entry_item(world.workspace_id, german) == before
        result = graphql(
            client,
            f'mutation {{ updatePost(id: "{german}", input: {{values: {{body: "y"}}}}) {{ id }} }}',
        )
        assert result["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        assert "'body'" in result["errors"][0]["message"]
        in_english = client.patch(_path(english), json={"values": {"title": "Title"}})
        assert in_english.status_code == 403, in_english.text
        assert "in 'en'" in in_english.json()["error"]["message"]
        assert client.post(_path(german, "/publish")).status_code == 403


def test_an_author_updates_their_own_entries_only(world: World) -> None:
    author = world.users["author"]
    own = world.entry("draft", "de", by=author)
    ok(author.patch(_path(own), json={"values": {"title": "mine"}}))
    theirs = world.entry("draft", "de")
    refused = author.patch(_path(theirs), json={"values": {"title": "yours"}})
    assert refused.status_code == 403, refused.text
    assert "someone else created" in refused.json()["error"]["message"]


def test_a_refused_write_writes_nothing_but_one_refusal_record(
    world: World, storage: Storage, stack: LocalStack
) -> None:
    entry = world.entry("draft", "de")
    before = storage.state(world.workspace_id)
    assert stack.recorder is not None
    with stack.recorder.capture() as calls:
        refused = world.users["viewer"].post(_path(entry, "/publish"))
    assert refused.status_code == 403, refused.text
    missing = refused.json()["error"]["message"]
    assert missing == "your role does not allow 'publish' on 'post' in 'de'"
    assert storage.state(world.workspace_id) == before  # the entry, its claims, no event
    writes = [c for c in calls if c.operation in WRITES and c.status == 200]
    audit_table = runtime.settings().tables.audit
    assert [(c.operation, c.tables) for c in writes] == [("TransactWriteItems", [audit_table])]
    (record,) = world.refusals(entry)
    assert record["changes"] == {"missing": missing}
    assert record["target"] == {"kind": "entry", "id": entry, "contentType": "post"}
    assert record["actor"]["kind"] == "user"


def test_a_deactivated_user_is_refused_at_once_and_cannot_sign_in(world: World) -> None:
    email = _email("leaving")
    user = create_user(
        runtime.settings(), email, "editor", PASSWORD, grants=_grants("editor", world.workspace_id)
    )
    with closing(sign_in(world.client(), email, PASSWORD)) as client:
        assert client.get("/api/v1/content/post").status_code == 200
        deactivate_user(user.id, by=COMMAND_LINE)
        assert client.get("/api/v1/content/post").status_code == 401
    with world.client() as again:
        failed = again.post("/login", data={"email": email, "password": PASSWORD})
        assert failed.status_code == 401


def test_a_user_without_a_role_in_the_workspace_is_refused_there(world: World) -> None:
    elsewhere = {str(uuid.uuid4()): (RoleGrant("editor"),)}
    with closing(signed_in(world, elsewhere, "elsewhere")) as client:
        assert client.get("/api/v1/content/post").status_code == 403
        assert client.get("/api/v1/me").json()["permissions"]["roles"] == []


def test_a_token_given_the_author_role_acts_as_an_author(world: World) -> None:
    spec = TokenSpec(
        name="author bot", workspace_id=world.workspace_id, access="full", role=RoleGrant("author")
    )
    token, info = create_token(spec)
    assert info.to_json()["role"] == {"role": "author", "locales": None}
    with world.client({"Authorization": f"Bearer {token}"}) as bot:
        assert ok(bot.get("/api/v1/me"))["permissions"]["roles"] == ["author"]
        own = ok(bot.post("/api/v1/content/post", json={"values": {"title": "by the bot"}}))
        ok(bot.patch(_path(own["id"]), json={"values": {"title": "again"}}))
        assert bot.post(_path(own["id"], "/publish")).status_code == 403
        theirs = world.entry("draft", "de")
        assert bot.patch(_path(theirs), json={"values": {"title": "x"}}).status_code == 403
    with pytest.raises(ValidationFailed):
        create_token(
            TokenSpec(
                name="no admin",
                workspace_id=world.workspace_id,
                access="full",
                role=RoleGrant("administrator"),
            )
        )


def test_me_tells_a_translator_what_it_may_do(world: World) -> None:
    permissions = ok(world.users["translator"].get("/api/v1/me"))["permissions"]
    assert permissions["administrator"] is False
    assert permissions["roles"] == ["translator"]
    writing = [rule for rule in permissions["rules"] if "update" in rule["actions"]]
    assert [rule["locales"] for rule in writing] == [["de"]]


# -- storage ---------------------------------------------------------------------------------------


def test_custom_roles_are_stored_listed_changed_and_deleted_once_nobody_holds_them(
    world: World,
) -> None:
    rules = (Rule(frozenset({READ})), Rule(frozenset({UPDATE}), frozenset({"post"})))
    role = create_role("Proof-reader " + uuid.uuid4().hex[:6], "reads", rules, by=COMMAND_LINE)
    assert role.id.startswith("role-")
    assert get_role(role.id) == role
    listed = [r.id for r in list_roles()]
    assert listed[:5] == list(BUILTIN_ROLES)
    assert role.id in listed
    changed = update_role(role.id, description="reads and fixes", by=COMMAND_LINE)
    assert get_role(role.id).description == "reads and fixes" == changed.description
    with pytest.raises(Conflict):
        update_role("editor", name="Chief", by=COMMAND_LINE)
    with pytest.raises(Conflict):
        delete_role("viewer", by=COMMAND_LINE)
    grants = {EVERY_WORKSPACE: (RoleGrant(role.id),)}
    user = create_user(runtime.settings(), _email("p"), "editor", PASSWORD, grants=grants)
    assert user.role == "editor"
    assert get_user(user.id).grants == grants
    with pytest.raises(Conflict):
        delete_role(role.id, by=COMMAND_LINE)
    set_grants(user.id, EVERY_WORKSPACE, [], by=COMMAND_LINE)
    delete_role(role.id, by=COMMAND_LINE)
    forget_roles()
    assert role.id not in [r.id for r in list_roles()]
    service_log = world.admin.get(
        "/api/v1/audit", params={"scope": "service", "target": f"role:{role.id}"}
    )
    actions = [record["action"] for record in ok(service_log)["items"]]
    assert actions == ["role.deleted", "role.updated", "role.created"]


def test_administrator_is_granted_only_in_every_workspace(stack: LocalStack) -> None:
    grants: dict[str, Any] = {"some-workspace": (RoleGrant("administrator"),)}
    with pytest.raises(ValidationFailed):
        create_user(runtime.settings(), _email("a"), "editor", PASSWORD, grants=grants)
    with pytest.raises(ValidationFailed):
        create_user(
            runtime.settings(), _email("n"), "editor", PASSWORD, grants={"*": (RoleGrant("nope"),)}
        )
