"""Hypothesis strategies for the JSON a hostile client sends, each example carrying what the
service must make of it (the oracle):

- objects that name a key twice (`{"a": 1, "a": 2}`), which Python's `json` would take;
- keys and strings holding a lone surrogate (`"\\ud800"`, sent as the escape JSON allows);
- nesting from shallow to far beyond any parser's recursion (`[[[[...`);
- sizes around the 1 MiB body cap, sent with a Content-Length or chunked.

`Doc.text` is the JSON text as sent (ASCII: non-ASCII and surrogates are `\\u` escapes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

MAX_BODY_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Doc:
    text: str
    duplicate: bool = False
    surrogate: bool = False
    depth: int = 0

    @property
    def refused(self) -> bool:
        """Whether the strict reading refuses it (a key twice, or a lone surrogate)."""
        return self.duplicate or self.surrogate


def _string(value: str) -> Doc:
    surrogate = any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    return Doc(json.dumps(value), surrogate=surrogate)


def _scalar(value: Any) -> Doc:
    return Doc(json.dumps(value))


lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
plain_text = st.text(max_size=8)
surrogate_text = st.builds(lambda a, s, b: a + s + b, plain_text, lone_surrogates, plain_text)
keys = st.sampled_from(["a", "b", "title", "values", "\u00e9"]) | plain_text | surrogate_text
strings = plain_text | surrogate_text

leaves = (
    st.none().map(_scalar)
    | st.booleans().map(_scalar)
    | st.integers(min_value=-(2**70), max_value=2**70).map(_scalar)
    | st.floats(allow_nan=False, allow_infinity=False).map(_scalar)
    | strings.map(_string)
)


def _array(items: list[Doc]) -> Doc:
    return Doc(
        "[" + ",".join(i.text for i in items) + "]",
        duplicate=any(i.duplicate for i in items),
        surrogate=any(i.surrogate for i in items),
        depth=1 + max((i.depth for i in items), default=0),
    )


def _object(pairs: list[tuple[str, Doc]]) -> Doc:
    names = [k for k, _ in pairs]
    return Doc(
        "{" + ",".join(json.dumps(k) + ":" + v.text for k, v in pairs) + "}",
        duplicate=len(set(names)) < len(names) or any(v.duplicate for _, v in pairs),
        surrogate=any(_string(k).surrogate or v.surrogate for k, v in pairs),
        depth=1 + max((v.depth for _, v in pairs), default=0),
    )


def _nested(depth: int, leaf: Doc, in_objects: bool) -> Doc:
    if in_objects:
        text = '{"a":' * depth + leaf.text + "}" * depth
    else:
        text = "[" * depth + leaf.text + "]" * depth
    return Doc(text, leaf.duplicate, leaf.surrogate, depth + leaf.depth)


values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4).map(_array)
        | st.lists(st.tuples(keys, inner), max_size=4).map(_object)
    ),
    max_leaves=12,
)
deep = st.builds(_nested, st.integers(min_value=1, max_value=5000), values, st.booleans())
"""Nesting from a few levels to thousands (json's decoder stops near 1,000)."""

documents = values | deep


def padded(doc: Doc, size: int) -> Doc:
    """`{"pad": "xxx...", "doc": doc}` of at least `size` bytes (0: the document alone)."""
    if size <= len(doc.text):
        return doc
    pad = "x" * (size - len(doc.text) - 20)
    return Doc(
        '{"pad":"' + pad + '","doc":' + doc.text + "}",
        doc.duplicate,
        doc.surrogate,
        doc.depth + 1,
    )


sizes = st.sampled_from([0, 0, 0, MAX_BODY_BYTES - 100, MAX_BODY_BYTES + 1, 3 * MAX_BODY_BYTES])
"""Mostly small, else just under, just over and far over the body cap."""


def chunks(body: bytes, piece: int = 32 * 1024) -> list[bytes]:
    """The body cut for a chunked upload (httpx sends an iterable chunked)."""
    return [body[i : i + piece] for i in range(0, len(body), piece)] or [b""]
