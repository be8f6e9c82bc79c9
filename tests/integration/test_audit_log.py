"""The audit log over real HTTP: each change leaves exactly one record naming who made it (the
token or the signed-in user), what it changed (action, target, changed fields and values),
the request's correlation id and source address; a refused write leaves none; no record
holds a secret; `GET /api/v1/audit` is the administrators', filtered and paged newest first.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from content_service import runtime
from content_service.clock import iso_utc
from content_service.content.writes import run_due
from content_service.identity.tokens import TokenInfo, TokenSpec, create_token
from content_service.identity.users import create_user
from content_service.identity.workspaces import create_workspace
from harness.webhooks import FakeClock
from tests.support.assets import new_asset, png
from tests.support.audit_log import every_record
from tests.support.cli import run_cli
from tests.support.clients import ClientFactory, sign_in
from tests.support.content import assert_error, create, define

FIELDS: list[dict[str, Any]] = [
    {"name": "title", "type": "string", "required": True},
    {"name": "rank", "type": "integer"},
]


class Site:
    """A fresh workspace, a full token (with its record) and the admin acting in it."""

    def __init__(self, make_client: ClientFactory, admin: httpx.Client) -> None:
        slug = f"ws-{uuid.uuid4().hex[:12]}"
        self.workspace = create_workspace(runtime.settings(), slug, slug)
        self.token, self.info = create_token(
            TokenSpec(name="editor-bot", workspace_id=self.workspace.id, access="full")
        )
        self.full = make_client(self.token)
        self.admin = admin
        admin.headers["X-Workspace-Id"] = self.workspace.id

    def log(self, **params: Any) -> list[dict[str, Any]]:
        """Every record the filters match, newest first."""
        return every_record(self.admin, **params)


@pytest.fixture
def site(make_client: ClientFactory, admin: httpx.Client) -> Site:
    return Site(make_client, admin)


def _token_actor(info: TokenInfo) -> dict[str, str]:
    return {"kind": "token", "id": info.id, "name": info.name}


def _url(entry_id: str, tail: str = "") -> str:
    return f"/api/v1/content/article/{entry_id}{tail}"


def _ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


def test_each_entry_change_leaves_one_record_with_its_actor_and_changes(site: Site) -> None:
    define(site.full, "article", FIELDS)
    entry_id = create(site.full, "article", {"title": "Draft", "rank": 1})["id"]
    updated = site.full.patch(
        _url(entry_id),
        json={"values": {"title": "Final"}},
        headers={"X-Correlation-Id": "audit-update-1"},
    )
    _ok(updated)
    _ok(site.full.post(_url(entry_id, "/publish")))
    _ok(site.full.post(_url(entry_id, "/unpublish")))
    at = iso_utc(FakeClock().now() + 3600)
    schedule = _ok(
        site.full.post(_url(entry_id, "/schedules"), json={"action": "publish", "at": at}), 201
    )
    _ok(site.full.delete(_url(entry_id, f"/schedules/{schedule['id']}")), 204)
    _ok(site.full.delete(_url(entry_id)), 204)
    _ok(site.full.post(_url(entry_id, "/restore")))
    _ok(site.full.delete(_url(entry_id)), 204)
    _ok(site.full.delete(_url(entry_id, "/purge")), 204)

    records = site.log(target=f"entry:{entry_id}")
    assert [r["action"] for r in reversed(records)] == [
        "entry.created",
        "entry.updated",
        "entry.published",
        "entry.unpublished",
        "schedule.created",
        "schedule.cancelled",
        "entry.deleted",
        "entry.restored",
        "entry.deleted",
        "entry.purged",
    ]
    assert {json.dumps(r["actor"]) for r in records} == {json.dumps(_token_actor(site.info))}
    assert {r["sourceAddress"] for r in records} == {"127.0.0.1"}
    assert all(
        r["target"] == {"kind": "entry", "id": entry_id, "contentType": "article"} for r in records
    )
    by_action = {r["action"]: r for r in records}
    assert by_action["entry.created"]["changes"] == {
        "fields": ["rank", "title"],
        "values": {"rank": 1, "title": "Draft"},
    }
    assert by_action["entry.updated"]["changes"] == {
        "fields": ["title"],
        "values": {"title": "Final"},
    }
    assert by_action["entry.updated"]["correlationId"] == "audit-update-1"
    assert by_action["entry.published"]["changes"] is None
    assert by_action["schedule.created"]["changes"]["values"] == {
        "schedule": schedule["id"],
        "action": "publish",
        "at": schedule["at"],
    }


def test_a_signed_in_user_is_the_actor_of_what_they_change(
    site: Site, credentials: dict[str, Any]
) -> None:
    _ok(site.admin.post("/api/v1/content-types", json={"name": "article", "fields": FIELDS}), 201)
    entry_id = _ok(
        site.admin.post("/api/v1/content/article", json={"values": {"title": "Mine"}}), 201
    )["id"]

    (record,) = site.log(target=f"entry:{entry_id}")
    admin = credentials["admin"]
    assert record["actor"]["kind"] == "user"
    assert record["actor"]["email"] == admin["email"]
    (type_record,) = site.log(target="content_type:article")
    assert type_record["action"] == "contentType.created"
    assert type_record["actor"] == record["actor"]
    assert type_record["changes"]["fields"] == ["rank", "title"]
    assert site.log(actor=f"user:{record['actor']['id']}") == [record, type_record]


def test_a_schedule_that_runs_is_recorded_as_its_creator_and_the_schedule(site: Site) -> None:
    define(site.full, "article", FIELDS)
    entry_id = create(site.full, "article", {"title": "Launch"})["id"]
    clock = FakeClock()
    at = iso_utc(clock.now() + 120)
    schedule = _ok(
        site.full.post(_url(entry_id, "/schedules"), json={"action": "publish", "at": at}), 201
    )
    clock.advance(180)
    run_due(lambda: False, clock)

    (ran,) = site.log(target=f"entry:{entry_id}", action="entry.published")
    assert ran["actor"] == _token_actor(site.info)
    assert ran["scheduleId"] == schedule["id"]


def test_asset_changes_are_recorded_as_assets(site: Site) -> None:
    asset = new_asset(site.full, png(), "logo.png", "image/png", title="Logo")
    _ok(site.full.patch(f"/api/v1/assets/{asset['id']}", json={"title": "Mark"}))
    _ok(site.full.post(f"/api/v1/assets/{asset['id']}/publish"))

    records = site.log(target=f"asset:{asset['id']}")
    assert [r["action"] for r in records] == [
        "entry.published",
        "entry.updated",
        "entry.created",
    ]
    assert records[1]["changes"]["values"] == {"title": "Mark"}
    assert all(r["actor"] == _token_actor(site.info) for r in records)


def test_content_type_changes_are_recorded_with_the_fields_they_change(site: Site) -> None:
    define(site.full, "article", FIELDS)
    replaced = site.full.put(
        "/api/v1/content-types/article",
        json={"name": "article", "fields": [*FIELDS, {"name": "summary", "type": "string"}]},
    )
    _ok(replaced)
    _ok(site.full.delete("/api/v1/content-types/article"), 204)

    records = site.log(target="content_type:article")
    assert [r["action"] for r in records] == [
        "contentType.deleted",
        "contentType.replaced",
        "contentType.created",
    ]
    assert records[1]["changes"]["fields"] == ["summary"]
    assert records[1]["changes"]["values"]["summary"]["type"] == "string"
    assert all(r["actor"] == _token_actor(site.info) for r in records)


def test_token_changes_are_recorded_without_the_token(site: Site) -> None:
    made = _ok(
        site.admin.post(
            "/api/v1/tokens",
            json={"name": "reader", "workspaceId": site.workspace.id, "access": "read"},
        ),
        201,
    )
    _ok(site.admin.patch(f"/api/v1/tokens/{made['id']}", json={"contentTypes": ["article"]}))
    _ok(site.admin.delete(f"/api/v1/tokens/{made['id']}"), 204)

    records = site.log(target=f"token:{made['id']}")
    assert [r["action"] for r in records] == ["token.revoked", "token.updated", "token.created"]
    assert records[1]["changes"] == {
        "fields": ["contentTypes"],
        "values": {"contentTypes": ["article"]},
    }
    assert all(r["actor"]["kind"] == "user" for r in records)
    everything = json.dumps(site.log())
    assert made["token"] not in everything
    assert site.token not in everything


def test_users_and_sign_ins_are_recorded_without_passwords_or_sessions(
    site: Site, make_client: ClientFactory
) -> None:
    email, password = f"audit-{uuid.uuid4().hex[:8]}@example.com", "a long password 1"
    user = create_user(runtime.settings(), email, "editor", password)
    wrong = make_client().post("/login", data={"email": email, "password": "not the password"})
    assert wrong.status_code == 401
    signed_in = sign_in(make_client(), email, password)

    made, succeeded = reversed(site.log(scope="service", target=f"user:{user.id}"))
    assert (made["action"], made["actor"]) == ("user.created", {"kind": "system", "id": "cli"})
    assert made["changes"]["values"] == {
        "email": email,
        "role": "editor",
        "grants": {"*": [{"role": "editor", "locales": None}]},
    }
    assert succeeded["action"] == "signIn.succeeded"
    assert succeeded["actor"] == {"kind": "user", "id": user.id, "email": email}
    assert succeeded["sourceAddress"] == "127.0.0.1"
    (failed,) = site.log(scope="service", target=f"sign_in:{email}")
    assert failed["action"] == "signIn.failed"
    assert failed["changes"]["values"] == {"email": email}
    everything = json.dumps(site.log(scope="service"))
    assert password not in everything
    assert "not the password" not in everything
    assert "scrypt" not in everything
    session = signed_in.cookies.get("cs_session")
    assert session is not None
    assert session not in everything


def test_a_refused_write_leaves_no_record_and_no_change(site: Site) -> None:
    define(site.full, "article", FIELDS)
    entry_id = create(site.full, "article", {"title": "Kept"})["id"]
    before = site.log()

    assert_error(site.full.patch(_url(entry_id), json={"values": {"rank": "many"}}), 422)
    assert_error(
        site.full.patch(_url(entry_id), json={"version": 7, "values": {"title": "x"}}), 409
    )
    assert_error(site.full.post(_url(entry_id, "/unpublish")), 409)
    assert_error(
        site.full.post("/api/v1/tokens", json={"name": "x", "workspaceId": "w", "access": "read"}),
        403,
    )
    assert_error(site.full.delete("/api/v1/content-types/article"), 409)

    assert site.log() == before
    assert site.full.get(_url(entry_id)).json()["values"]["title"] == "Kept"


def test_the_log_is_filtered_and_paged_newest_first(site: Site) -> None:
    define(site.full, "article", FIELDS)
    ids = [create(site.full, "article", {"title": f"n{i}"})["id"] for i in range(5)]
    _ok(site.full.post(_url(ids[0], "/publish")))

    everything = site.log()
    assert len(everything) == 8  # the token made for the test, the type, 5 creates, 1 publish
    times = [r["occurredAt"] for r in everything]
    assert times == sorted(times, reverse=True)
    paged = site.log(limit=2)
    assert [r["id"] for r in paged] == [r["id"] for r in everything]
    created = site.log(action="entry.created", limit=2)
    assert [r["target"]["id"] for r in created] == list(reversed(ids))
    assert (
        site.log(action="entry.published", actor=f"token:{site.info.id}", target=f"entry:{ids[0]}")[
            0
        ]["target"]["id"]
        == ids[0]
    )
    middle = everything[3]["occurredAt"]
    window = site.log(since=middle, until=middle)
    assert middle in {r["occurredAt"] for r in window}
    assert all(r["occurredAt"] == middle for r in window)
    assert site.log(until="2000-01-01T00:00:00Z") == []

    first = site.admin.get("/api/v1/audit", params={"limit": 1}).json()
    assert_error(
        site.admin.get(
            "/api/v1/audit", params={"action": "entry.created", "cursor": first["nextCursor"]}
        ),
        400,
    )
    assert_error(site.admin.get("/api/v1/audit", params={"since": "yesterday"}), 400)


def test_only_signed_in_administrators_read_the_log(site: Site, make_client: ClientFactory) -> None:
    assert_error(site.full.get("/api/v1/audit"), 403)
    assert_error(make_client().get("/api/v1/audit"), 401)


def test_audit_export_writes_the_window_as_json_lines(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    define(site.full, "article", FIELDS)
    entry_id = create(site.full, "article", {"title": "Exported"})["id"]
    newest = site.log(limit=1)
    since = site.log()[-1]["occurredAt"]

    argv = ["audit", "export", "--workspace", site.workspace.slug, "--since", since]
    assert run_cli(*argv, "--until", newest[0]["occurredAt"]) == 0
    lines = capsys.readouterr().out.splitlines()
    exported = [json.loads(line) for line in lines]
    assert exported == site.log()
    assert exported[0]["target"]["id"] == entry_id
    assert run_cli(*argv[:-2], "--until", "2000-01-01T00:00:00Z") == 0
    assert capsys.readouterr().out == ""
