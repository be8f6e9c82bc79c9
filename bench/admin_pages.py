"""The content pages' time to first byte, with 1,000 entries of one type.

An editor's session (signed in through `POST /login`, as a browser is) opens each page of the
content admin over HTTP against the local stack (uvicorn, moto in server mode): the overview
with its counts, the list of the type (newest first; filtered by state; searched by title,
which filters in memory over every entry), the editor of an entry with a relation expanded,
and a new entry's editor. The figure is the time until the answer's status line and headers
arrive (httpx returns the response then), the median of REPEAT requests after a warm-up, with
the page's DynamoDB requests; the target is 200 ms. Beside it, the same with the storage
answers replayed by the recording proxy (the service's own cost: session, templates, HTML),
since moto sorts the whole partition a Query reads on every call, which DynamoDB does not.
"""

from __future__ import annotations

import random
import statistics
import time
import uuid

import httpx

from bench.report import Row
from content_service import runtime
from content_service.clock import iso_utc
from content_service.content.schema import FieldSpec, TypeDefinition, create_type, get_type
from content_service.identity.principal import UserCaller
from content_service.identity.roles import EVERY_WORKSPACE, RoleGrant
from content_service.identity.users import create_user
from content_service.identity.workspaces import create_workspace
from harness.seeding import bulk_put, stored_entry
from infra.local_stack import LocalStack
from infra.request_recorder import RequestRecorder

BENCHMARK = "admin_pages"
ENTRIES = 1_000
REPEAT = 15
TARGET_MS = 200.0
PASSWORD = "bench-password-1"
BODY = "<p>" + "Some words of a post, with <strong>bold</strong> text. " * 20 + "</p>"


def _seed(stack: LocalStack) -> tuple[str, str, str]:
    """A workspace with `author` and `post` (1,000 entries, 80 % published); its slug, a post
    id and an editor's e-mail."""
    slug = f"bench-{uuid.uuid4().hex[:8]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    email = f"{slug}@example.com"
    create_user(runtime.settings(), email, "editor", PASSWORD)
    # The model is an administrator's to define; the pages are opened by the editor.
    caller = UserCaller(
        id=str(uuid.uuid4()),
        email="model@example.com",
        role="admin",
        role_grants={EVERY_WORKSPACE: (RoleGrant("administrator"),)},
    )
    create_type(
        caller, workspace.id, TypeDefinition("author", fields=(FieldSpec("name", "string"),))
    )
    create_type(
        caller,
        workspace.id,
        TypeDefinition(
            "post",
            title_field="title",
            fields=(
                FieldSpec("title", "string", required=True),
                FieldSpec("summary", "text"),
                FieldSpec("body", "richtext"),
                FieldSpec("views", "integer"),
                FieldSpec("published_on", "datetime"),
                FieldSpec("author", "relation", target="author", cardinality="many-to-one"),
            ),
        ),
    )
    authors = get_type(workspace.id, "author")
    posts = get_type(workspace.id, "post")
    assert authors is not None
    assert posts is not None
    base = 1_700_000_000.0
    writer = stored_entry(
        workspace.id,
        authors,
        {authors.fields[0].key: "Ada"},
        entry_id=str(uuid.uuid4()),
        stamp=iso_utc(base),
    )
    bulk_put(workspace.id, authors, [writer], emulator=stack.emulator)
    keys = {f.name: f.key for f in posts.fields}
    rng = random.Random(7)
    entries = [
        stored_entry(
            workspace.id,
            posts,
            {
                keys["title"]: f"Post {i:04d} " + rng.choice(["alpha", "gamma", "delta"]),
                keys["summary"]: "A summary.",
                keys["body"]: BODY,
                keys["views"]: i,
                keys["published_on"]: iso_utc(base + i),
            },
            entry_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            stamp=iso_utc(base + i),
            published=rng.random() < 0.8,
            links_by_key={keys["author"]: [writer.id]},
        )
        for i in range(ENTRIES)
    ]
    bulk_put(workspace.id, posts, entries, emulator=stack.emulator)
    return slug, entries[-1].id, email


def _first_byte_ms(client: httpx.Client, path: str) -> float:
    started = time.perf_counter()
    with client.stream("GET", path) as response:
        elapsed = time.perf_counter() - started
        assert response.status_code == 200, (path, response.status_code)
        response.read()
    return elapsed * 1000


def _page_rows(client: httpx.Client, recorder: RequestRecorder, case: str, path: str) -> list[Row]:
    _first_byte_ms(client, path)
    with recorder.capture() as calls:
        _first_byte_ms(client, path)
    live = statistics.median(_first_byte_ms(client, path) for _ in range(REPEAT))
    with recorder.replay(calls):
        replayed = statistics.median(_first_byte_ms(client, path) for _ in range(REPEAT))
    dynamodb = [c for c in calls if c.operation]
    return [
        Row(
            BENCHMARK,
            case,
            f"time to first byte against moto, median of {REPEAT}",
            live,
            "ms",
            target=f"{TARGET_MS:.0f} ms",
            meets_target=live < TARGET_MS,
        ),
        Row(BENCHMARK, case, "  DynamoDB requests", len(dynamodb), "requests"),
        Row(
            BENCHMARK,
            case,
            "  of which moto answering (1 run)",
            sum(c.elapsed for c in dynamodb) * 1000,
            "ms",
        ),
        Row(BENCHMARK, case, f"  storage replayed, median of {REPEAT}", replayed, "ms"),
    ]


def run(stack: LocalStack) -> list[Row]:
    assert stack.base_url is not None, "the bench needs the API"
    recorder = stack.recorder
    assert recorder is not None, "the bench counts requests with the stack's recorder"
    slug, post_id, email = _seed(stack)
    rows: list[Row] = []
    with httpx.Client(base_url=stack.base_url, timeout=30) as client:
        signed = client.post("/login", data={"email": email, "password": PASSWORD})
        assert signed.status_code in (200, 303), signed.status_code
        q = f"workspace={slug}"
        pages: dict[str, str] = {
            "the overview with counts (/content)": f"/content?{q}",
            "the list, newest 25 of 1,000": f"/content/post?{q}",
            "the list, published only": f"/content/post?{q}&state=published",
            "the list, searched by title (in memory)": f"/content/post?{q}&q=gamma",
            "an entry's editor, relation expanded": f"/content/post/{post_id}?{q}",
            "a new entry's editor": f"/content/post/new?{q}",
        }
        for case, path in pages.items():
            rows.extend(_page_rows(client, recorder, case, path))
    return rows
