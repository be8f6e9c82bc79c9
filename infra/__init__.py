"""The local stack behind `make run`, reusable by the tests.

Everything here reads `template.yaml` (the source of truth for tables, indexes, streams, queues
and schedules) and builds the same resources in an embedded moto server, then drives the
template's handlers with Lambda-shaped events.
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_PATH = REPO_ROOT / "template.yaml"
