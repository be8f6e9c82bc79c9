"""The start tags of an HTML fragment, as a browser's tokenizer sees them: what the tests of
sanitised rich text look through for anything that runs or loads."""

from __future__ import annotations

from html.parser import HTMLParser

Attributes = list[tuple[str, str | None]]


class _StartTags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, Attributes]] = []

    def handle_starttag(self, tag: str, attrs: Attributes) -> None:
        self.found.append((tag, attrs))


def start_tags(html: str) -> list[tuple[str, Attributes]]:
    """Every start tag of `html` with its attributes, in document order."""
    parser = _StartTags()
    parser.feed(html)
    return parser.found
