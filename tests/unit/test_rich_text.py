"""The rich text allow-list (content/rich_text.py), without HTTP: what stays, what goes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from content_service.content import values
from content_service.content.rich_text import ALLOWED_TAGS, sanitise
from content_service.content.schema import FieldDef
from tests.support.start_tags import start_tags

BODY = FieldDef(name="body", type="richtext", key="f1")


@pytest.mark.parametrize(
    ("given_html", "stored"),
    [
        ("<p>First post</p>", "<p>First post</p>"),
        ("<p>x<script>window.__pwned=1</script></p>", "<p>x</p>"),
        ("<p><img src=x onerror=window.__pwned=2>y</p>", "<p>y</p>"),
        ('<p onclick="go()" style="color:red" class="c">z</p>', "<p>z</p>"),
        ("<style>p{}</style><p>s</p>", "<p>s</p>"),
        ("<iframe src=https://example.com></iframe><p>f</p>", "<p>f</p>"),
        ('<a href="javascript:alert(1)">j</a>', '<a rel="noopener noreferrer">j</a>'),
        (
            '<a href="https://example.com/a" title="t" target="_blank">l</a>',
            '<a href="https://example.com/a" title="t" rel="noopener noreferrer">l</a>',
        ),
        ('<a href="/relative">r</a>', '<a href="/relative" rel="noopener noreferrer">r</a>'),
        ('<ol start="3"><li>a</li></ol>', '<ol start="3"><li>a</li></ol>'),
        ("<h2>H</h2><blockquote>q</blockquote><pre>c\n</pre>", None),
        ("<ul><li><strong>b</strong> <em>i</em> <u>u</u> <s>s</s></li></ul>", None),
        ("<svg><script>x()</script></svg><p>k</p>", "<p>k</p>"),
        ("a < b & c", "a &lt; b &amp; c"),
    ],
)
def test_the_allow_list(given_html: str, stored: str | None) -> None:
    assert values.to_storage(BODY, given_html) == (given_html if stored is None else stored)


def test_every_allowed_tag_survives() -> None:
    for tag in sorted(ALLOWED_TAGS - {"a", "br", "hr"}):
        html = f"<{tag}>x</{tag}>"
        assert sanitise(html) == html, tag


def test_the_length_is_checked_before_and_after_sanitising() -> None:
    with pytest.raises(values.InvalidValue, match="200,000 characters"):
        values.to_storage(BODY, "r" * 200_001)
    # 60,000 bare `<` are within the limit as typed, but not once each is `&lt;`.
    with pytest.raises(values.InvalidValue, match="once sanitised"):
        values.to_storage(BODY, "<" * 60_000)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(
    st.lists(
        st.sampled_from(
            [
                "<p>",
                "</p>",
                "<script>",
                "</script>",
                "<img src=x onerror=alert(1)>",
                '<a href="javascript:x">',
                "</a>",
                "<b>",
                "<svg onload=y>",
                "text",
                "<",
                "&",
                '"',
                "<!--",
                "-->",
            ]
        ),
        max_size=20,
    ).map("".join)
)
def test_sanitised_html_is_stable_and_inert(html: str) -> None:
    once = sanitise(html)
    assert sanitise(once) == once
    for tag, attributes in start_tags(once):
        assert tag in ALLOWED_TAGS, once
        for name, value in attributes:
            assert not name.startswith("on"), once
            assert not (value or "").lower().startswith("javascript:"), once
