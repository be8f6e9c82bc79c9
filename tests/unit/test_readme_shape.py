"""The README stays a newcomer's page (at most 180 lines: what it is, the two commands, the
quickstart, where to go next), and its quickstart is read block by block from its section."""

from __future__ import annotations

import pytest

from tests.support import readme

SAMPLE = """# Title

## Quickstart

```sh
A=1 make run
```

```sh
echo '{"a": 1}'
```
```json
{"a": 1}
```

## Next

```sh
not a step
```
"""


def test_the_readme_is_at_most_180_lines_with_its_four_parts() -> None:
    text = readme.README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 180
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## The two commands", "## Quickstart", "## Where to go next"]


def test_the_quickstart_is_the_blocks_of_its_section_in_order() -> None:
    parsed = readme.parse(SAMPLE)
    assert parsed.server_env == {"A": "1"}
    assert [(s.commands, s.answer, s.answer_kind) for s in parsed.steps] == [
        ("echo '{\"a\": 1}'", '{"a": 1}', "json")
    ]


@pytest.mark.parametrize(
    "broken",
    [
        SAMPLE.replace("A=1 make run", "A=1 make test"),
        SAMPLE.replace("```json", "```yaml"),
        SAMPLE.replace('```json\n{"a": 1}\n```', '```json\n{"a": 1}\n```\n```text\nx\n```'),
        SAMPLE.replace("## Quickstart", "## Start"),
    ],
)
def test_a_quickstart_that_cannot_be_run_as_written_is_refused(broken: str) -> None:
    with pytest.raises(AssertionError):
        readme.parse(broken)
