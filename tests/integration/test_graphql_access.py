"""Who may use the GraphQL adapter and what schema they see: tokens and sessions as for REST,
the SDL per grant set (and equal to introspection), the schema cache and revocation, the
playground."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from graphql import build_client_schema, build_schema, get_introspection_query, print_schema

from content_service import runtime
from content_service.graphql.cache import schemas
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.clients import ClientFactory, WorkspaceAccess
from tests.support.content import capture, create, define, publish
from tests.support.field_types import relation
from tests.support.graphql import (
    PATH,
    data,
    errors,
    only_error,
    post,
    service_calls,
)
from tests.support.settings import settings_changed

NewWorkspace = Callable[..., WorkspaceAccess]


@pytest.fixture
def shop(new_workspace: NewWorkspace) -> WorkspaceAccess:
    workspace = new_workspace()
    define(workspace.full, "brand", [{"name": "name", "type": "string"}])
    define(workspace.full, "secret", [{"name": "code", "type": "string"}])
    define(
        workspace.full,
        "product",
        [
            {"name": "name", "type": "string"},
            relation("brand", "brand", "many-to-one"),
            relation("secrets", "secret", "many-to-many"),
        ],
    )
    return workspace


def grant(
    admin: httpx.Client, make_client: ClientFactory, workspace: WorkspaceAccess, **spec: Any
) -> tuple[str, httpx.Client]:
    """A new token of the workspace (id, client) made over the tokens API."""
    body = {"name": "t", "workspaceId": workspace.id, "access": "read", **spec}
    response = admin.post("/api/v1/tokens", json=body)
    assert response.status_code == 201, response.text
    made = response.json()
    return made["id"], make_client(made["token"])


def introspected_sdl(client: httpx.Client) -> str:
    result = data(client, get_introspection_query(descriptions=True))
    return print_schema(build_client_schema(result))


def test_the_sdl_is_the_grant_sets_schema_and_equals_introspection(
    shop: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory
) -> None:
    _, narrow = grant(admin, make_client, shop, contentTypes=["product", "brand"])
    full_sdl = shop.read.get(PATH)
    narrow_sdl = narrow.get(PATH)
    for response in (full_sdl, narrow_sdl):
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/plain")
    assert full_sdl.text != narrow_sdl.text
    assert "type Secret " in full_sdl.text
    assert "secrets(page: Int, pageSize: Int): [Secret!]!" in full_sdl.text
    assert "Secret" not in narrow_sdl.text
    assert "secret" not in narrow_sdl.text.lower()
    assert "brand: Brand" in narrow_sdl.text
    for client, sdl in ((shop.read, full_sdl.text), (narrow, narrow_sdl.text)):
        round_tripped = print_schema(build_schema(sdl))
        assert round_tripped == sdl
        assert introspected_sdl(client) == round_tripped


def test_the_sdl_route_is_authenticated_like_introspection(
    shop: WorkspaceAccess, make_client: ClientFactory, admin: httpx.Client
) -> None:
    anonymous = make_client()
    assert anonymous.get(PATH).status_code == 401
    assert make_client("cs_" + "x" * 43).get(PATH).status_code == 401
    assert make_client("nonsense").get(PATH).status_code == 401
    only_error(post(anonymous, "{ __schema { queryType { name } } }"), "UNAUTHENTICATED", 401)
    # No content:read scope: refused on both.
    _, blind = grant(admin, make_client, shop, access="full", scopes=["content:write"])
    assert blind.get(PATH).status_code == 403
    only_error(post(blind, "{ __typename }"), "FORBIDDEN", 403)
    # A signed-in user sees every type of the workspace it picks.
    admin.headers["X-Workspace-Id"] = shop.id
    assert "type Secret " in admin.get(PATH).text
    assert data(admin, "{ products { total } }") == {"products": {"total": 0}}


def test_authentication_failures_answer_200_with_errors(
    shop: WorkspaceAccess, make_client: ClientFactory, admin: httpx.Client, new_workspace: Any
) -> None:
    query = "{ products { total } }"
    cases = [
        make_client(),
        make_client("cs_" + "A" * 43),
        make_client("not-a-token"),
        make_client(**{"Authorization": "Basic dXNlcjpwYXNz"}),
    ]
    with service_calls() as calls:
        for client in cases:
            only_error(post(client, query), "UNAUTHENTICATED", 401)
    assert calls.calls == []
    token_id, revoked = grant(admin, make_client, shop)
    assert data(revoked, query)
    assert admin.delete(f"/api/v1/tokens/{token_id}").status_code == 204
    only_error(post(revoked, query), "UNAUTHENTICATED", 401)
    # A token is bound to its workspace bucket: naming another one is refused.
    other = new_workspace()
    shop.read.headers["X-Workspace-Id"] = other.id
    only_error(post(shop.read, query), "FORBIDDEN", 403)
    del shop.read.headers["X-Workspace-Id"]
    # Another workspace's token sees its own (empty) schema, never this one's types.
    validation = post(other.full, query)
    assert {e["extensions"]["code"] for e in errors(validation)} == {"GRAPHQL_VALIDATION_FAILED"}


def test_naming_an_ungranted_type_or_absent_field_runs_no_resolver(
    shop: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory, stack: LocalStack
) -> None:
    assert stack.settings is not None
    create(shop.full, "secret", {"code": "s"})
    _, narrow = grant(admin, make_client, shop, contentTypes=["product", "brand"], access="full")
    data(narrow, "{ __typename }")  # the schema is built and cached
    documents = [
        "{ secrets { total } }",
        '{ secret(id: "00000000-0000-4000-8000-000000000000") { code } }',
        "{ products { items { secrets { code } } } }",
        "{ products { items { nope } } }",
        "{ Secret { code } }",
        'mutation { createSecret(input: {values: {code: "x"}}) { id } }',
        "{ products { items { name } } secrets { total } }",
    ]
    for document in documents:
        with service_calls() as calls, capture(stack) as captured:
            result = post(narrow, document)
        assert calls.calls == [], document
        assert captured.on(stack.settings.tables.content) == [], document
        assert "data" not in result
        found = errors(result)
        assert {e["extensions"]["code"] for e in found} == {"GRAPHQL_VALIDATION_FAILED"}
        assert {e["extensions"]["status"] for e in found} == {400}


def test_a_revoked_type_in_a_cached_schema_reads_nothing(
    shop: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory, stack: LocalStack
) -> None:
    assert stack.settings is not None
    secret = publish(shop.full, "secret", create(shop.full, "secret", {"code": "s"})["id"])
    token_id, client = grant(admin, make_client, shop)
    query = "{ secrets { items { code } } }"
    assert data(client, query)["secrets"]["items"] == [{"code": "s"}]
    # Revoke the type within the TTL (60 s): the next query reads nothing.
    patched = admin.patch(f"/api/v1/tokens/{token_id}", json={"contentTypes": ["product"]})
    assert patched.status_code == 200, patched.text
    with capture(stack) as captured:
        result = post(client, query)
    assert captured.on(stack.settings.tables.content) == []
    assert {e["extensions"]["code"] for e in errors(result)} == {"GRAPHQL_VALIDATION_FAILED"}
    assert "data" not in result
    # Even a schema that still describes the type (cached before the revocation, served under
    # the new grant set here on purpose) cannot read it: the resolvers ask the service with
    # the live caller.
    stale = schemas.schema_for(
        _caller_with_all_types(client), shop.id, runtime.settings().graphql.schema_cache_ttl_seconds
    )
    assert "secrets" in stale.schema.query_type.fields  # type: ignore[union-attr]
    with _serving(stale), capture(stack) as captured:
        both = "{ secrets { items { code } } secret(id: $id) { code } }".replace(
            "$id", f'"{secret["id"]}"'
        )
        result = post(client, both)
    assert captured.on(stack.settings.tables.content) == []
    assert result["data"] is None or result["data"].get("secret") is None
    assert {e["extensions"]["status"] for e in errors(result)} == {404}
    assert {e["extensions"]["code"] for e in errors(result)} == {"NOT_FOUND"}
    # A relation to the revoked type, through a cached schema that still has it: an error too.
    brand = publish(shop.full, "brand", create(shop.full, "brand", {"name": "b"})["id"])
    publish(
        shop.full,
        "product",
        create(
            shop.full,
            "product",
            {"name": "p"},
            relations={"brand": {"link": [brand["id"]]}, "secrets": {"link": [secret["id"]]}},
        )["id"],
    )
    with _serving(stale), capture(stack) as captured:
        result = post(client, "{ products { items { name secrets { code } } } }")
    assert secret["id"].encode() not in b"".join(c.raw_response for c in captured.calls)
    assert result["data"] is None
    # The service refuses the relation exactly as REST refuses `expand=secrets` now.
    assert {e["extensions"]["code"] for e in errors(result)} <= {"BAD_USER_INPUT", "NOT_FOUND"}
    rest = client.get("/api/v1/content/product", params={"expand": "secrets"})
    assert rest.status_code == errors(result)[0]["extensions"]["status"]


def _caller_with_all_types(client: httpx.Client) -> Any:
    from content_service.identity.tokens import authenticate_token

    token = client.headers["Authorization"].removeprefix("Bearer ")
    return dataclasses.replace(authenticate_token(token), content_types=frozenset({"*"}))


class _serving:  # noqa: N801 (a context manager used like a function)
    """Makes the route serve `built` whatever the caller's key (a schema gone stale)."""

    def __init__(self, built: Any) -> None:
        self.built = built
        self.patch = pytest.MonkeyPatch()

    def __enter__(self) -> None:
        built = self.built
        self.patch.setattr(schemas, "schema_for", lambda *_args, **_kw: built)

    def __exit__(self, *_exc: object) -> None:
        self.patch.undo()


@pytest.fixture
def schema_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The schema cache's clock, moving only when told."""
    fake = FakeClock(float(round(time.monotonic())))  # whole seconds: exact steps below
    monkeypatch.setattr(schemas, "clock", fake.now)
    return fake


def test_a_token_s_schema_follows_a_type_change_on_the_next_request_at_no_extra_request(
    new_workspace: NewWorkspace, stack: LocalStack, schema_clock: FakeClock
) -> None:
    """The schema version is read beside the token, in its BatchGetItem: a type made or deleted
    through REST is in (or out of) the schema on the very next query, whatever the TTL."""
    assert stack.settings is not None
    schema_table = stack.settings.tables.schema
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    define(workspace.full, "draft_note", [{"name": "text", "type": "string"}])
    assert data(workspace.full, "{ draftNotes { total } notes { total } }")
    with capture(stack) as captured:
        assert data(workspace.full, "{ notes { total } }")
    calls = captured.on(schema_table)
    assert {c.operation for c in calls} == {"BatchGetItem"}  # no GetItem of the version alone
    asked = [k["sk"]["S"] for k in calls[0].body["RequestItems"][schema_table]["Keys"]]
    assert sorted(asked) == ["SCHEMA", "TOKEN"]
    assert workspace.full.delete("/api/v1/content-types/draft_note").status_code == 204
    define(workspace.full, "memo", [{"name": "text", "type": "string"}])
    assert data(workspace.full, "{ memos { total } }") == {"memos": {"total": 0}}
    result = post(workspace.full, "{ draftNotes { total } }")
    assert only_error(result, "GRAPHQL_VALIDATION_FAILED", 400)
    sdl = workspace.full.get(PATH).text
    assert "type Memo " in sdl
    assert "DraftNote" not in sdl


def test_a_signed_in_user_s_cached_schema_follows_after_the_ttl_and_reads_no_deleted_type(
    new_workspace: NewWorkspace, stack: LocalStack, schema_clock: FakeClock, admin: httpx.Client
) -> None:
    """A user's request reads no token: the snapshot is trusted for the TTL, and a type deleted
    within it is described but never read (every resolver asks the service, which says 404)."""
    assert stack.settings is not None
    ttl = stack.settings.graphql.schema_cache_ttl_seconds
    workspace = new_workspace()
    admin.headers["X-Workspace-Id"] = workspace.id
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    define(workspace.full, "draft_note", [{"name": "text", "type": "string"}])
    assert data(admin, "{ draftNotes { total } notes { total } }")
    assert workspace.full.delete("/api/v1/content-types/draft_note").status_code == 204
    define(workspace.full, "memo", [{"name": "text", "type": "string"}])
    with capture(stack) as captured:
        result = post(admin, "{ draftNotes { total } }")
    assert captured.on(stack.settings.tables.content) == []
    only_error(result, "NOT_FOUND", 404)
    schema_clock.advance(ttl - 1)
    assert "memo" not in admin.get(PATH).text  # still within the TTL
    schema_clock.advance(1)
    sdl = admin.get(PATH).text
    assert "type Memo " in sdl
    assert "DraftNote" not in sdl


def test_one_schema_is_built_per_grant_set_and_reused(
    shop: WorkspaceAccess, admin: httpx.Client, make_client: ClientFactory
) -> None:
    _, one = grant(admin, make_client, shop, contentTypes=["product"])
    _, same = grant(admin, make_client, shop, contentTypes=["product"])
    _, writer = grant(admin, make_client, shop, contentTypes=["product"], access="full")
    data(one, "{ products { total } }")
    builds = schemas.builds
    for client in (one, same, one):
        data(client, "{ products { total } }")
    assert schemas.builds == builds  # same grant set, same version: the cached build
    data(shop.read, "{ products { total } }")  # every type: another grant set
    assert schemas.builds == builds + 1
    # A caller who may write has a Mutation type, so the same grant set is another schema.
    builds = schemas.builds
    for client in (writer, writer):
        data(client, "{ products { total } }")
    assert schemas.builds == builds + 1


@pytest.fixture
def reference_disabled() -> Iterator[None]:
    with settings_changed(lambda s: dataclasses.replace(s, api_reference_enabled=False)):
        yield


def test_the_playground_is_served_from_the_apps_own_files(make_client: ClientFactory) -> None:
    client = make_client()
    page = client.get(f"{PATH}/playground")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    scripts = [
        "/static/graphiql/react.production.min.js",
        "/static/graphiql/react-dom.production.min.js",
        "/static/graphiql/graphiql.min.js",
        "/static/graphiql/playground.js",
    ]
    for asset in (*scripts, "/static/graphiql/graphiql.min.css"):
        assert asset in page.text
        assert client.get(asset).status_code == 200, asset
    assert "http://" not in page.text
    assert "https://" not in page.text


def test_the_playground_is_absent_unless_the_api_reference_is_enabled(
    make_client: ClientFactory, reference_disabled: None
) -> None:
    response = make_client().get(f"{PATH}/playground")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_audience_gated_entries_follow_the_tokens_audiences(
    new_workspace: NewWorkspace, admin: httpx.Client
) -> None:
    workspace = new_workspace(read_audiences=("vip",))
    define(workspace.full, "offer", [{"name": "name", "type": "string"}], audienceGated=True)
    admin.headers["X-Workspace-Id"] = workspace.id  # a signed-in user may set any audiences
    for name, audiences in (("for vips", ["vip"]), ("for staff", ["staff"]), ("for all", [])):
        made = create(admin, "offer", {"name": name}, audiences=audiences)
        publish(admin, "offer", made["id"])
    query = '{ offers(sort: "name") { total items { name audiences } } }'
    seen = data(workspace.read, query)["offers"]
    rest = workspace.read.get("/api/v1/content/offer", params={"sort": "name"}).json()
    assert seen["total"] == rest["total"]
    assert seen["items"] == [
        {"name": e["values"]["name"], "audiences": e["audiences"]} for e in rest["items"]
    ]
    assert [e["name"] for e in seen["items"]] == ["for vips"]
    assert "audiences: [String!]!" in workspace.read.get(PATH).text
