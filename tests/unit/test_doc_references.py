"""Every file the docs, the README or a docstring name in backticks exists in the repository,
and nothing cites a document the repository does not hold, the product's specification
included: a text states the rule itself or points to the docs page that does.

A name matches a file when it is the file's path from the repository's root or its tail (docs
name modules from their package, `sending/signing.py`). Not checked: files the running stack
writes under `.local/`, URL paths, and the files of third-party packages named as they ship.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from infra import REPO_ROOT

EXTENSIONS = "py|md|yaml|yml|json|js|css|html|toml|txt|sh|png|cfg|ini"
NAMED = re.compile(rf"`([\w./-]+\.(?:{EXTENSIONS}))`")
# Files of the vendored or installed packages, as the packages name them.
THIRD_PARTY = frozenset(
    {
        "dist/quill.js",  # Quill's npm package; vendored as static/vendor/quill/quill.js
        "umd/react.production.min.js",  # React's; vendored under static/graphiql/
        "umd/react-dom.production.min.js",
        "axe.min.js",  # read from the installed axe-playwright-python package
    }
)
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules"})
MISSING_DOCUMENTS = re.compile(r"ARCHITECTURE\.md|LESSONS\.md")
# "spec 6.4.4", "spec table 2.2", "the spec's rules"; a named public one ("GraphQL spec 7.1.2") is
# a document anyone can read.
SPEC_CITATION = re.compile(
    r"(?<!GraphQL )\b(?:the spec(?:ification)?\b"
    r"|spec(?:ification)?(?:'s)?\s+(?:sections?\s+|table\s+|§\s*)?\d)",
    re.IGNORECASE,
)


def _repository_files() -> list[str]:
    found = []
    for folder, dirs, names in os.walk(REPO_ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS]
        found += [Path(folder, n).relative_to(REPO_ROOT).as_posix() for n in names]
    return found


FILES = _repository_files()
TEXTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))] + [
    REPO_ROOT / f for f in FILES if f.endswith(".py")
]


def _exists(name: str) -> bool:
    name = name.removeprefix("./")
    return any(f == name or f.endswith(f"/{name}") for f in FILES)


def test_every_file_named_in_backticks_exists() -> None:
    missing = [
        f"{text.relative_to(REPO_ROOT)}:{number}: {name}"
        for text in TEXTS
        for number, line in enumerate(text.read_text(encoding="utf-8").splitlines(), start=1)
        for name in NAMED.findall(line)
        if not name.startswith((".local/", "/")) and name not in THIRD_PARTY and not _exists(name)
    ]
    assert missing == []


def test_nothing_cites_a_document_the_repository_does_not_hold() -> None:
    citing = [
        str(text.relative_to(REPO_ROOT))
        for text in TEXTS
        if MISSING_DOCUMENTS.search(text.read_text(encoding="utf-8"))
    ]
    assert citing == []


def _spec_citations(text: Path) -> list[str]:
    """Each citation as `path:line: 'text'`."""
    body = text.read_text(encoding="utf-8")
    citations = []
    for found in SPEC_CITATION.finditer(body):
        line = body.count("\n", 0, found.start()) + 1
        citations.append(f"{text.relative_to(REPO_ROOT)}:{line}: {found[0]!r}")
    return citations


def test_nothing_cites_a_section_of_the_product_specification() -> None:
    checked = [text for text in TEXTS if text != Path(__file__)]  # this file spells the patterns
    assert [citation for text in checked for citation in _spec_citations(text)] == []
