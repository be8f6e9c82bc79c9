"""`identity.roles`: rules, the built-in roles, grants narrowed to locales and the check that
names what is missing."""

from __future__ import annotations

import pytest

from content_service.errors import Forbidden, ValidationFailed
from content_service.identity.roles import (
    ACTIONS,
    BUILTIN_ROLES,
    CREATE,
    PUBLISH,
    READ,
    UPDATE,
    Permissions,
    Role,
    RoleGrant,
    Rule,
)


def _of(role: str, locales: frozenset[str] | None = None) -> Permissions:
    return Permissions.of([(BUILTIN_ROLES[role], RoleGrant(role, locales))])


def _message(permissions: Permissions, action: str, **kwargs: object) -> str:
    with pytest.raises(Forbidden) as refused:
        permissions.check(action, "post", **kwargs)  # type: ignore[arg-type]
    return refused.value.message


def test_the_five_built_in_roles_exist_and_only_the_administrator_administers() -> None:
    assert list(BUILTIN_ROLES) == ["administrator", "editor", "author", "translator", "viewer"]
    assert [r.id for r in BUILTIN_ROLES.values() if r.administrator] == ["administrator"]
    assert all(_of(role).allows(READ, "post") for role in BUILTIN_ROLES)
    assert all(_of("editor").allows(action, "post", own=False) for action in ACTIONS)


def test_an_author_creates_and_updates_its_own_entries_and_never_publishes() -> None:
    author = _of("author")
    author.check(CREATE, "post")
    author.check(UPDATE, "post", own=True)
    assert "someone else created" in _message(author, UPDATE, own=False)
    assert _message(author, PUBLISH, own=True) == "your role does not allow 'publish' on 'post'"


def test_a_translator_granted_a_locale_updates_entries_of_that_locale_and_reads_all() -> None:
    translator = _of("translator", frozenset({"de"}))
    translator.check(UPDATE, "post", locale="de", own=False)
    translator.check(READ, "post", locale="en", own=False)
    message = _message(translator, UPDATE, locale="en", own=False)
    assert message == "your role does not allow 'update' on 'post' in 'en'"


def test_a_change_to_a_field_no_covering_rule_lets_change_names_the_field() -> None:
    titles = Role("role-x", "Titles", "", (Rule(frozenset({UPDATE}), fields=frozenset({"t"})),))
    permissions = Permissions.of([(titles, RoleGrant(titles.id))])
    permissions.check(UPDATE, "post", changed_fields=["t"])
    message = _message(permissions, UPDATE, changed_fields=["t", "body", "alt"])
    assert message == "your role does not allow changing the field(s) 'alt', 'body' of 'post'"


def test_a_rule_reads_back_its_json_and_refuses_malformed_json() -> None:
    rule = Rule(frozenset({UPDATE, READ}), frozenset({"post"}), frozenset({"de"}), None, True)
    assert Rule.from_json(rule.to_json()) == rule
    malformed: list[dict[str, object]] = [
        {"actions": []},
        {"actions": ["fly"]},
        {"actions": ["read"], "extra": 1},
    ]
    for bad in malformed:
        with pytest.raises(ValidationFailed):
            Rule.from_json(bad)
