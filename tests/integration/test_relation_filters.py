"""Filters on relation fields, in REST and GraphQL, for a full token (latest versions) and a
read token (published versions) while drafts link other entries than their published versions:
to-one `eq`, `ne`, `in`, `nin`, `isNull`; to-many `contains`, `containsAny`, `containsAll`,
`isNull`; and the refusals."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from infra.local_stack import LocalStack
from tests.support.blog import NAME, define_authored_posts, relink
from tests.support.cli import run_cli
from tests.support.clients import WorkspaceAccess
from tests.support.content import Storage, assert_error, capture, create, define, publish
from tests.support.graphql import post as graphql_post

Links = tuple[str | None, frozenset[str]]
"""What one version of a post links: its author (or None) and its tags."""


@dataclass
class Posts:
    access: WorkspaceAccess
    ids: dict[str, str]
    latest: dict[str, Links]
    published: dict[str, Links]


@pytest.fixture
def posts(new_workspace: Callable[..., WorkspaceAccess]) -> Posts:
    ws = new_workspace()
    ids = define_authored_posts(ws.full, [NAME, {"name": "city", "type": "string"}])

    def new_post(title: str, author: str | None, tags: tuple[str, ...]) -> str:
        relations: dict[str, Any] = {"tags": {"link": [ids[t] for t in tags]}}
        if author:
            relations["author"] = {"link": [ids[author]]}
        ids[title] = create(ws.full, "post", {"title": title}, relations=relations)["id"]
        return ids[title]

    p1 = new_post("p1", "ada", ("t1", "t2"))
    publish(ws.full, "post", p1)
    relink(
        ws.full,
        p1,
        {
            "author": {"link": [ids["grace"]], "unlink": [ids["ada"]]},
            "tags": {"link": [ids["t3"]], "unlink": [ids["t1"], ids["t2"]]},
        },
    )
    publish(ws.full, "post", new_post("p2", "grace", ("t2",)))
    publish(ws.full, "post", new_post("p3", None, ()))
    new_post("p4", "ada", ("t1",))
    ids["hidden-tag"] = create(ws.full, "tag", {"name": "t2"})["id"]  # a draft: never published
    for name, city in (("ada", "Berlin"), ("grace", "London")):
        response = ws.full.patch(
            f"/api/v1/content/author/{ids[name]}", json={"values": {"city": city}}
        )
        assert response.status_code == 200, response.text
        publish(ws.full, "author", ids[name])
    moved = ws.full.patch(
        f"/api/v1/content/author/{ids['grace']}", json={"values": {"city": "Berlin"}}
    )
    assert moved.status_code == 200, moved.text
    ada, grace = ids["ada"], ids["grace"]
    t1, t2, t3 = ids["t1"], ids["t2"], ids["t3"]
    return Posts(
        access=ws,
        ids=ids,
        latest={
            "p1": (grace, frozenset({t3})),
            "p2": (grace, frozenset({t2})),
            "p3": (None, frozenset()),
            "p4": (ada, frozenset({t1})),
        },
        published={
            "p1": (ada, frozenset({t1, t2})),
            "p2": (grace, frozenset({t2})),
            "p3": (None, frozenset()),
        },
    )


def _cases(ids: dict[str, str]) -> list[tuple[dict[str, Any], Callable[[Links], bool]]]:
    ada, grace, t1, t2, t3 = (ids[n] for n in ("ada", "grace", "t1", "t2", "t3"))
    return [
        ({"field": "author", "op": "eq", "value": ada}, lambda v: v[0] == ada),
        ({"field": "author", "op": "ne", "value": ada}, lambda v: v[0] != ada),
        ({"field": "author", "op": "in", "value": [ada, grace]}, lambda v: v[0] in (ada, grace)),
        ({"field": "author", "op": "nin", "value": [grace]}, lambda v: v[0] != grace),
        ({"field": "author", "op": "isNull", "value": True}, lambda v: v[0] is None),
        ({"field": "author", "op": "isNull", "value": False}, lambda v: v[0] is not None),
        ({"field": "tags", "op": "contains", "value": t2}, lambda v: t2 in v[1]),
        (
            {"field": "tags", "op": "containsAny", "value": [t1, t3]},
            lambda v: bool({t1, t3} & v[1]),
        ),
        ({"field": "tags", "op": "containsAll", "value": [t1, t2]}, lambda v: {t1, t2} <= v[1]),
        ({"field": "tags", "op": "isNull", "value": True}, lambda v: not v[1]),
        ({"field": "tags", "op": "isNull", "value": False}, lambda v: bool(v[1])),
        (
            {
                "and": [
                    {"field": "author", "op": "eq", "value": grace},
                    {"field": "tags", "op": "contains", "value": t2},
                ]
            },
            lambda v: v[0] == grace and t2 in v[1],
        ),
    ]


def _rest_titles(
    client: httpx.Client, condition: dict[str, Any], kind: str = "post", locale: str = "en"
) -> tuple[set[str], int]:
    params = {"filter": json.dumps(condition), "locale": locale}
    response = client.get(f"/api/v1/content/{kind}", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    return {item["values"]["title"] for item in body["items"]}, body["total"]


def _graphql_titles(
    client: httpx.Client, condition: dict[str, Any], kind: str = "post", locale: str = "en"
) -> tuple[set[str], int]:
    result = graphql_post(
        client,
        f"query ($f: Filter, $l: String) {{ {kind}s(filter: $f, locale: $l) "
        "{ total items { title } } }",
        {"f": condition, "l": locale},
    )
    assert "errors" not in result, result
    found = result["data"][f"{kind}s"]
    return {item["title"] for item in found["items"]}, found["total"]


def test_every_relation_operator_in_both_protocols_and_both_views(posts: Posts) -> None:
    callers = (
        (posts.access.full, posts.latest, "full token, latest versions"),
        (posts.access.read, posts.published, "read token, published versions"),
    )
    for condition, matches in _cases(posts.ids):
        for client, model, who in callers:
            expected = {title for title, links in model.items() if matches(links)}
            for read in (_rest_titles, _graphql_titles):
                titles, total = read(client, condition)
                assert titles == expected, (read.__name__, who, condition)
                assert total == len(expected), (read.__name__, who, condition)


def test_a_draft_link_does_not_match_for_a_read_token_until_published(posts: Posts) -> None:
    grace = posts.ids["grace"]
    condition = {"field": "author", "op": "eq", "value": grace}
    assert _rest_titles(posts.access.read, condition)[0] == {"p2"}
    publish(posts.access.full, "post", posts.ids["p1"])
    assert _rest_titles(posts.access.read, condition)[0] == {"p1", "p2"}


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ({"field": "author", "op": "contains", "value": "ID:ada"}, "takes eq, ne, in, nin, isNull"),
        ({"field": "tags", "op": "eq", "value": "ID:t1"}, "takes contains, containsAny"),
        ({"field": "author", "op": "gt", "value": "ID:ada"}, "to-one relation"),
        (
            {"field": "author", "op": "eq", "value": "not an id"},
            "filter: eq on 'author' takes an entry id ('author' is a to-one relation "
            "(many-to-one); it takes eq, ne, in, nin, isNull)",
        ),
        ({"field": "author", "op": "eq", "value": 7}, "takes an entry id"),
        ({"field": "author", "op": "in", "value": []}, "list of 1 to 100 entry ids"),
        ({"field": "tags", "op": "containsAll", "value": "ID:t1"}, "list of 1 to 100"),
        ({"field": "tags", "op": "containsAny", "value": ["ID:t1", 3]}, "entry ids only"),
        (
            {"field": "tags", "op": "isNull", "value": "yes"},
            "isNull takes true or false ('tags' is a to-many relation (many-to-many); it takes "
            "contains, containsAny, containsAll, isNull)",
        ),
        ({"field": "title", "op": "containsAny", "value": ["a"]}, "to-many relation fields"),
    ],
)
def test_a_wrong_operator_or_value_on_a_relation_is_a_readable_400(
    posts: Posts, condition: dict[str, Any], message: str
) -> None:
    value = condition["value"]
    resolve = {f"ID:{name}": entry_id for name, entry_id in posts.ids.items()}
    if isinstance(value, list):
        condition = {**condition, "value": [resolve.get(v, v) for v in value]}
    elif isinstance(value, str):
        condition = {**condition, "value": resolve.get(value, value)}
    response = posts.access.full.get(
        "/api/v1/content/post", params={"filter": json.dumps(condition)}
    )
    error = assert_error(response, 400)
    assert message in error["message"], error
    _assert_graphql_400(posts.access.full, condition, message)


def test_a_linked_entrys_field_filters_with_the_callers_view_of_the_targets(posts: Posts) -> None:
    """Grace's draft moved her to Berlin: the full token's Berlin authors are Ada and Grace,
    the read token's only Ada (and only published posts' published links count for it)."""
    berlin = {"field": "author.city", "op": "eq", "value": "Berlin"}
    named_t2 = {"field": "tags.name", "op": "eq", "value": "t2"}
    cases: list[tuple[httpx.Client, dict[str, Any], set[str]]] = [
        (posts.access.full, berlin, {"p1", "p2", "p4"}),
        (posts.access.read, berlin, {"p1"}),
        (posts.access.full, named_t2, {"p2"}),
        (posts.access.read, named_t2, {"p1", "p2"}),
        (posts.access.read, {"field": "author.city", "op": "eq", "value": "Paris"}, set()),
        # p3 links no author: a linked-field condition never matches it, `ne` included.
        (posts.access.read, {"field": "author.city", "op": "ne", "value": "Berlin"}, {"p2"}),
        (posts.access.full, {"field": "author.city", "op": "ne", "value": "Berlin"}, set()),
        (
            posts.access.full,
            {"and": [berlin, {"field": "tags", "op": "isNull", "value": False}]},
            {"p1", "p2", "p4"},
        ),
        (posts.access.read, {"or": [berlin, named_t2]}, {"p1", "p2"}),
    ]
    for client, condition, expected in cases:
        for read in (_rest_titles, _graphql_titles):
            titles, total = read(client, condition)
            assert titles == expected, (read.__name__, condition)
            assert total == len(expected)


def test_a_linked_field_filter_matching_over_100_targets_is_400(posts: Posts) -> None:
    for _ in range(101):
        create(posts.access.full, "tag", {"name": "bulk"})
    condition = {"field": "tags.name", "op": "eq", "value": "bulk"}
    response = posts.access.full.get(
        "/api/v1/content/post", params={"filter": json.dumps(condition)}
    )
    message = "matches 101 tag entries, more than 100; narrow the condition on 'name'"
    assert message in assert_error(response, 400)["message"]
    _assert_graphql_400(posts.access.full, condition, message)


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ({"field": "title.x", "op": "eq", "value": "a"}, "has no relation field 'title'"),
        ({"field": "nope.x", "op": "eq", "value": "a"}, "has no relation field 'nope'"),
        ({"field": "author.nope", "op": "eq", "value": "a"}, "'author.nope': filter: content"),
        ({"field": "author.city", "op": "gt", "value": [1]}, "single value"),
        ({"field": "author.city.x", "op": "eq", "value": "a"}, "one level deep"),
    ],
)
def test_a_bad_linked_field_filter_is_a_readable_400(
    posts: Posts, condition: dict[str, Any], message: str
) -> None:
    response = posts.access.full.get(
        "/api/v1/content/post", params={"filter": json.dumps(condition)}
    )
    error = assert_error(response, 400)
    assert message in error["message"], error
    _assert_graphql_400(posts.access.full, condition, message)


def _assert_graphql_400(client: httpx.Client, condition: dict[str, Any], message: str) -> None:
    result = graphql_post(
        client, "query ($f: Filter) { posts(filter: $f) { total } }", {"f": condition}
    )
    (error,) = result["errors"]
    assert message in error["message"], error
    assert error["extensions"]["status"] == 400


def test_a_linked_field_filter_finds_targets_in_any_locale_and_only_those_the_caller_sees(
    new_workspace: Callable[..., WorkspaceAccess], make_client: Callable[..., httpx.Client]
) -> None:
    """A `de` talk links the one `en` venue (venues are not localized) and matches
    `venue.title`; a speaker of another audience never matches for a read token; for a token
    not granted the speaker type, `speaker.city` matches nothing (200, not an error) and
    `speaker` reads as linking nothing."""
    from content_service.identity.tokens import TokenSpec, create_token

    ws = new_workspace(read_audiences=("members",))

    def token(**spec: Any) -> httpx.Client:
        made, _ = create_token(TokenSpec(workspace_id=ws.id, **spec))
        return make_client(made)

    writer = token(name="w", access="full", audiences=("members", "staff"))
    talks_only = token(name="t", access="read", content_types=("talk", "venue"))
    define(ws.full, "venue", [{"name": "title", "type": "string"}], titleField="title")
    define(
        ws.full,
        "speaker",
        [{"name": "title", "type": "string"}, {"name": "city", "type": "string"}],
        titleField="title",
        audienceGated=True,
    )
    to_one = {"type": "relation", "cardinality": "many-to-one"}
    define(
        ws.full,
        "talk",
        [
            {"name": "title", "type": "string"},
            {"name": "venue", "target": "venue", **to_one},
            {"name": "speaker", "target": "speaker", **to_one},
        ],
        titleField="title",
        localized=True,
    )
    # Checked against the target type even before it holds any entry to look up.
    nope = {"field": "speaker.nope", "op": "eq", "value": "x"}
    refused = writer.get("/api/v1/content/talk", params={"filter": json.dumps(nope)})
    message = "'speaker.nope': filter: content type 'speaker' has no field 'nope'"
    assert message in assert_error(refused, 400)["message"]
    hall = create(writer, "venue", {"title": "Hall"})["id"]
    publish(writer, "venue", hall)
    speakers = []
    for audience in ("members", "staff"):
        speaker = create(
            writer, "speaker", {"title": audience, "city": "Berlin"}, audiences=[audience]
        )
        links = {"speaker": {"link": [speaker["id"]]}, "venue": {"link": [hall]}}
        for locale in ("en", "de"):
            title = f"{audience}-{locale}"
            talk = create(writer, "talk", {"title": title}, relations=links, locale=locale)
            publish(writer, "talk", talk["id"])
        publish(writer, "speaker", speaker["id"])
        speakers.append(speaker["id"])
    everyone = {"members-en", "staff-en"}
    in_hall = {"field": "venue.title", "op": "eq", "value": "Hall"}
    in_berlin = {"field": "speaker.city", "op": "eq", "value": "Berlin"}
    cases: list[tuple[httpx.Client, dict[str, Any], str, set[str]]] = [
        (ws.read, in_hall, "de", {"members-de", "staff-de"}),
        (writer, in_hall, "de", {"members-de", "staff-de"}),
        (ws.read, in_berlin, "de", {"members-de"}),
        (ws.read, in_berlin, "en", {"members-en"}),
        (writer, in_berlin, "en", {"members-en", "staff-en"}),
        (talks_only, in_berlin, "en", set()),
        (talks_only, in_hall, "en", {"members-en", "staff-en"}),
        # A relation to a type the token is not granted reads as linking nothing.
        (talks_only, {"field": "speaker", "op": "isNull", "value": True}, "en", everyone),
        (talks_only, {"field": "speaker", "op": "isNull", "value": False}, "en", set()),
        (talks_only, {"field": "speaker", "op": "eq", "value": speakers[0]}, "en", set()),
        (talks_only, {"field": "speaker", "op": "nin", "value": speakers}, "en", everyone),
        (ws.read, {"field": "speaker", "op": "isNull", "value": True}, "en", set()),
    ]
    for client, condition, locale, expected in cases:
        for read in (_rest_titles, _graphql_titles):
            titles, total = read(client, condition, "talk", locale)
            assert titles == expected, (read.__name__, condition, locale)
            assert total == len(expected)


def test_lists_reindex_gives_summaries_written_before_links_were_kept_their_links(
    posts: Posts, storage: Storage
) -> None:
    """Summaries stored before they carried links read as linking nothing, until `lists
    reindex` rewrites them (docs/development.md, "Upgrading"). (`in`: an `eq` alone is served
    from the reverse-link items, which never needed the summaries' links.)"""
    by_grace = {"field": "author", "op": "in", "value": [posts.ids["grace"]]}
    tagged = {"field": "tags", "op": "isNull", "value": False}
    for item in storage.content_items(posts.access.id):
        summary = json.loads(item.get("summary", "{}"))
        if summary.pop("r", None) is not None:
            storage.client.update_item(
                TableName=storage.tables.content,
                Key={"pk": {"S": item["pk"]}, "sk": {"S": item["sk"]}},
                UpdateExpression="SET summary = :s",
                ExpressionAttributeValues={":s": {"S": json.dumps(summary)}},
            )
    assert _rest_titles(posts.access.read, by_grace) == (set(), 0)
    assert _rest_titles(posts.access.full, tagged) == (set(), 0)
    assert run_cli("lists", "reindex", "--workspace", posts.access.slug) == 0
    assert _rest_titles(posts.access.read, by_grace) == ({"p2"}, 1)
    assert _rest_titles(posts.access.full, by_grace) == ({"p1", "p2"}, 2)
    assert _rest_titles(posts.access.full, tagged) == ({"p1", "p2", "p4"}, 3)


def test_a_linked_field_filter_costs_what_the_docs_count(posts: Posts, stack: LocalStack) -> None:
    """docs/content.md: `3 + ⌈S·(330 + 40·l) / 1 MB⌉ + k·(1 + L·(2 + target reads))`; here one
    Query page of posts, one condition, authors in one locale, read in one Query."""
    source = ["GetItem", "BatchGetItem", "Query", "BatchGetItem"]
    lookup = ["GetItem", "BatchGetItem", "Query", "BatchGetItem"]
    condition = {"field": "author.city", "op": "eq", "value": "Berlin"}
    for client in (posts.access.read, posts.access.full):
        with capture(stack) as captured:
            _rest_titles(client, condition)
        assert sorted(captured.operations()) == sorted(source + lookup)
        # The lookup runs between the source's type read and its summaries.
        assert captured.operations()[2:6] == lookup


_LINKED_FROM = """
query ($author: ID!, $tag: ID!, $f: Filter) {
  author(id: $author) {
    name
    linkedFrom {
      postsByAuthor(pageSize: 5, sort: "title") { total items { title } }
      only: postsByAuthor(filter: $f) { total items { title } }
    }
  }
  tag(id: $tag) { linkedFrom { postsByTags { total items { title } } } }
}
"""


def _linked_from(client: httpx.Client, posts: Posts, author: str, tag: str) -> Any:
    result = graphql_post(
        client,
        _LINKED_FROM,
        {
            "author": posts.ids[author],
            "tag": posts.ids[tag],
            "f": {"field": "title", "op": "eq", "value": "p1"},
        },
    )
    assert "errors" not in result, result
    return result["data"]


def _titles(page: dict[str, Any]) -> tuple[int, list[str]]:
    return page["total"], [item["title"] for item in page["items"]]


def test_linked_from_lists_the_linking_entries_in_the_callers_view(posts: Posts) -> None:
    """The full token reads latest links (p1's draft moved it from Ada to Grace and from
    t1, t2 to t3), the read token published ones; each field is a list with filter and sort."""
    full = _linked_from(posts.access.full, posts, "grace", "t2")
    assert _titles(full["author"]["linkedFrom"]["postsByAuthor"]) == (2, ["p1", "p2"])
    assert _titles(full["author"]["linkedFrom"]["only"]) == (1, ["p1"])
    assert _titles(full["tag"]["linkedFrom"]["postsByTags"]) == (1, ["p2"])
    read = _linked_from(posts.access.read, posts, "grace", "t2")
    assert _titles(read["author"]["linkedFrom"]["postsByAuthor"]) == (1, ["p2"])
    assert _titles(read["author"]["linkedFrom"]["only"]) == (0, [])
    assert _titles(read["tag"]["linkedFrom"]["postsByTags"]) == (2, ["p2", "p1"])  # newest first
    ada_full = _linked_from(posts.access.full, posts, "ada", "t1")
    assert _titles(ada_full["author"]["linkedFrom"]["postsByAuthor"]) == (1, ["p4"])
    ada_read = _linked_from(posts.access.read, posts, "ada", "t1")
    assert _titles(ada_read["author"]["linkedFrom"]["postsByAuthor"]) == (1, ["p1"])
    assert _titles(ada_read["tag"]["linkedFrom"]["postsByTags"]) == (1, ["p1"])


def test_linked_from_pages_are_counted_and_bounded_like_lists(posts: Posts) -> None:
    too_big = graphql_post(
        posts.access.full,
        "query ($id: ID!) { author(id: $id) { linkedFrom { postsByAuthor(pageSize: 101) "
        "{ total } } } }",
        {"id": posts.ids["ada"]},
    )
    (error,) = too_big["errors"]
    assert "pageSize" in error["message"]
    assert error["extensions"]["status"] == 400
    untyped = graphql_post(
        posts.access.full,
        "query ($id: ID!) { tag(id: $id) { linkedFrom { postsByAuthor { total } } } }",
        {"id": posts.ids["t1"]},
    )
    assert "postsByAuthor" in untyped["errors"][0]["message"]
