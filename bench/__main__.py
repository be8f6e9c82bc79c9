"""`make bench`: starts one local stack, runs every suite against it, prints one table, and
renders `bench/results/latest.json` into docs/benchmarks.md.

A suite is a module exposing `run(stack: LocalStack) -> list[Row]`. Suites measure against
moto in server mode and local receivers and report medians of repeated runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

from bench.report import Row, render_table, update_doc, write_results
from content_service.observability import logger as service_logger
from infra.local_stack import LocalStack, LocalStackOptions, ensure_session_key

# Cold start and memory first, while the machine is still quiet.
SUITES: tuple[str, ...] = (
    "cold_start",
    "api_memory",
    "durability",
    "content_lists",
    "relations",
    "sync",
    "graphql_vs_rest",
    "edge_cache",
    "edge",
    "webhooks_delivery",
    "admin_pages",
    "local_mix",
    "image_engines",
    "assets",
    "audit_writes",
)


def main(selected: list[str]) -> int:
    # The service's logger was built on import, before the stack's LOG_LEVEL; requests the
    # suites send through this process's API would otherwise print one INFO line each.
    service_logger.setLevel("WARNING")
    suites = [s for s in SUITES if not selected or s in selected]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        local = Path(tmp)
        options = LocalStackOptions(
            local_dir=local,
            port=0,
            moto_port=0,
            start_pollers=False,
            record_storage=True,
            # The suites seed and toggle the journal in moto's memory (`Emulator.load`, the
            # durability suite): this stack keeps the emulator in this process. The mix
            # (`local_mix`) starts its own stacks, in both layouts.
            emulator_process=False,
            time_scale=0.01,
            user_env={
                "SESSION_KEY_FILE": str(ensure_session_key(local / "session.key")),
                "POWERTOOLS_TRACE_DISABLED": "true",
                "POWERTOOLS_METRICS_DISABLED": "true",
                "LOG_LEVEL": "WARNING",
                # Suites send bursts from one token; `edge_cache` gives its tokens a rate.
                "CONTENT_RATE_LIMIT": "0",
            },
        )
        with LocalStack(options) as stack:
            for name in suites:
                module = importlib.import_module(f"bench.{name}")
                print(f"running {name} ...", file=sys.stderr, flush=True)
                rows.extend(module.run(stack))
    print(render_table(rows))
    print(f"\nwritten to {write_results(rows, complete=len(suites) == len(SUITES))}")
    update_doc()
    return 0


def _arguments(argv: list[str]) -> list[str]:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Runs the named suites (all of them when none is named) against one local "
        "stack and prints one table.",
    )
    parser.add_argument("suites", nargs="*", metavar="SUITE", help=", ".join(SUITES))
    named: list[str] = parser.parse_args(argv).suites
    unknown = [name for name in named if name not in SUITES]
    if unknown:
        parser.error(f"no suite named {', '.join(unknown)}; the suites: {', '.join(SUITES)}")
    return named


if __name__ == "__main__":
    raise SystemExit(main(_arguments(sys.argv[1:])))
