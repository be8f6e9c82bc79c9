"""Rich text is HTML, and what is stored is only HTML from an allow-list (docs/content.md,
"Rich text").

Every write of a `richtext` value, REST or GraphQL, passes through `sanitise` before it is
stored: ammonia (through its Python binding `nh3`, an HTML5 parser) keeps the tags and
attributes below and drops everything else. `<script>` and `<style>` go with their content;
any other tag outside the list goes but keeps its text; event handler attributes
(`onerror=`), `style` and `class` go; a link keeps `href` only with a scheme below (or a
relative URL) and always gets `rel="noopener noreferrer"`. Text is re-serialised, so a bare
`<` or `&` comes back as `&lt;` or `&amp;`: a rich text value is HTML, never plain text.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import nh3

ALLOWED_TAGS = frozenset(
    {
        *("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6"),
        *("strong", "b", "em", "i", "u", "s", "del", "ins", "sub", "sup", "code"),
        *("a", "ul", "ol", "li", "blockquote", "pre"),
    }
)
ALLOWED_ATTRIBUTES: dict[str, frozenset[str]] = {
    "a": frozenset({"href", "title"}),
    "ol": frozenset({"start"}),
}
URL_SCHEMES = frozenset({"http", "https", "mailto", "tel"})
LINK_REL = "noopener noreferrer"


@functools.cache
def _cleaner() -> nh3.Cleaner:
    # Imported when the first rich text is written: most API instances never pay for it.
    import nh3

    return nh3.Cleaner(
        tags=set(ALLOWED_TAGS),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
    )


def sanitise(html: str) -> str:
    """`html` reduced to the allow-list; the same input always gives the same output, and
    sanitising the output again changes nothing."""
    return _cleaner().clean(html)
