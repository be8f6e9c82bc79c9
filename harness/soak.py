"""`make soak`: entry events fanned out to five endpoints with faults, then every row accounted for.

What runs (the product's own code throughout, on moto in server mode):

- **Events**: `--events` outbox events built by the content service's own builder
  (`content.writes.events.event_item`, the item a content write puts in its transaction), written
  into the EventsTable 25 per BatchWriteItem, `--wave` at a time; every kind, two content types.
- **Fan-out**: the template's stream poller and the real fan-out handler.
- **Delivery**: `--containers` instances of the delivery handler, each its own module (its own
  batch processor) with its own SQS poller, working the queue at once as Lambda's execution
  environments do, while the wave's fan-out runs. A share of the fan-out's messages is sent a
  second time (`--duplicate-rate`), as a standard queue may.
- **Receivers**: five real HTTP receivers (harness/receiver.py): `healthy`; `flaky` (a
  random 20 % of its answers are 500); `timeout` (never answers: the sender gives up after
  `timeoutMs`); `slow` (answers after `--slow-ms`, inside the timeout); `healthy-2`. Each
  endpoint subscribes to the soak's workspace, every kind.
- **Time**: the injected clock (`wiring.overridden(clock=...)`) stands still while the waves go
  through: every row gets its first attempt and nothing falls due. The retry messages the
  workers queue with an SQS delay (real seconds in moto) are purged after each wave, a lost
  message being a fault the design covers (the sweep hands a failed row out at `nextAttemptAt`
  + 60 s). Then each of `--ladder-steps` steps of the ladder: the clock moves past the step's
  longest jittered wait plus that grace, the real scheduler's sweep runs (`stack.tick("Sweep")`)
  and the queue is drained. `make soak` crosses none (at 25,000 rows one step costs more than
  the first pass: docs/webhooks.md, "Soak"); tests/integration/test_soak_quick.py runs this
  same `run_soak` with two dozen events through all five.

Checks (a failed one makes the exit status 1):

1. Rows: exactly one per (event written, endpoint), with the fan-out's id, endpoint and event;
   every request a receiver got names one of them. So the table's rows reconcile with the
   events written, and its requests with the attempts that reached the receivers.
2. States, by the rules: `succeeded` with a 2xx; `failed` with attempts left, `nextAttemptAt`
   after now and a `sweepAt` (scheduled); `dead` after a retryable failure of attempt
   `maxAttempts`, after a final 4xx, or unsent because its endpoint is disabled. Nothing left
   `pending` or `delivering`.
3. Attempts: the log numbers them 1..n and `attempts` is n. No receiver got one (delivery,
   attempt) twice; every request is a logged attempt and every answered attempt was received;
   each carries the row's frozen body and event id and a signature that verifies with the
   endpoint's secret.
4. Receivers: `healthy`, `slow`, `healthy-2` rows never dead, `timeout` rows never succeeded;
   an endpoint with `autoDisableAfter` rows dead of failures and no success is disabled.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from unittest import mock

from content_service import runtime
from content_service.clock import parse_iso_utc
from content_service.content.writes import EVENT_KINDS, event_item
from content_service.identity.principal import UserCaller
from content_service.identity.roles import EVERY_WORKSPACE, RoleGrant
from content_service.observability import logger as service_logger
from content_service.storage import aws, dynamo
from content_service.storage.json_values import plain
from content_service.webhooks import services, wiring
from content_service.webhooks.deliveries import DeliveryRow, fanout_delivery_id
from content_service.webhooks.sending import (
    JITTER,
    LADDER_SECONDS,
    RETRY_SWEEP_GRACE_SECONDS,
    SignatureVerificationError,
    verify_signature,
)
from harness.receiver import Answer, Received, Receiver
from harness.webhooks import FakeClock, store_endpoint
from infra.emulator import Emulator, EmulatorError
from infra.lambda_runtime import FunctionRuntime, load_handler
from infra.local_stack import LocalStack, LocalStackOptions
from infra.pollers import PollerOptions, SqsPoller, build_pollers

Behaviour = Literal["healthy", "flaky", "timeout", "slow"]
ENDPOINTS: tuple[tuple[str, Behaviour], ...] = (
    ("healthy", "healthy"),
    ("flaky", "flaky"),
    ("timeout", "timeout"),
    ("slow", "slow"),
    ("healthy-2", "healthy"),
)
NEVER_DEAD = ("healthy", "slow")
STATES = ("succeeded", "failed", "dead")  # what a row may end as
CONTENT_TYPES = ("article", "note")
ACTOR = UserCaller(
    id=str(uuid.uuid4()),
    email="soak@example.com",
    role="editor",
    role_grants={EVERY_WORKSPACE: (RoleGrant("editor"),)},
)
# moto refuses a second PurgeQueue within 60 s, as SQS does; the soak purges after every drain.
_ENVIRONMENT = {
    "MOTO_SQS_ENFORCE_STRICT_QUEUE_PURGE_BEHAVIOUR": "false",
    # Every container flushes the one Powertools metric set of this process: keep it quiet.
    "POWERTOOLS_METRICS_DISABLED": "true",
}


@dataclass(frozen=True)
class SoakConfig:
    events: int = 5000
    wave: int = 250
    containers: int = 8
    slow_ms: int = 50
    failure_rate: float = 0.2
    duplicate_rate: float = 0.05
    ladder_steps: int = 0
    seed: int = 20261122


@dataclass
class Tally:
    name: str
    states: Counter[str] = field(default_factory=Counter)
    requests: int = 0


@dataclass
class SoakResult:
    events: int
    endpoint_ids: list[str]
    tallies: list[Tally]
    violations: list[str]
    elapsed: float

    def table(self) -> str:
        header = ["endpoint", "rows", "succeeded", "failed (scheduled)", "dead", "requests"]
        body: list[list[Any]] = [
            [t.name, t.states.total(), *(t.states[s] for s in STATES), t.requests]
            for t in self.tallies
        ]
        body.append(["total", *(sum(line[i] for line in body) for i in range(1, 6))])
        cells = [header, *[[str(c) for c in line] for line in body]]
        widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
        out = ["  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)) for line in cells]
        out.insert(1, "-" * len(out[0]))
        out.append(f"{self.events} events, {len(self.tallies)} endpoints: {self.elapsed:.0f} s")
        out.append(
            f"checks: {len(self.violations) or 'all'} {'FAILED' if self.violations else 'passed'}"
        )
        out += [f"  - {v}" for v in self.violations[:40]]
        return "\n".join(out)


# -- the moving parts -----------------------------------------------------------------------


def _receiver(behaviour: Behaviour, config: SoakConfig, timeout_s: float) -> Receiver:
    receiver = Receiver()
    if behaviour == "flaky":
        rng = random.Random(config.seed + 1)
        plan = [
            Answer(500 if rng.random() < config.failure_rate else 200)
            for _ in range(2 * config.events)
        ]
        receiver.respond(*plan)
    elif behaviour == "timeout":
        receiver.always(Answer(hang_s=4 * timeout_s))
    elif behaviour == "slow":
        receiver.always(Answer(delay_s=config.slow_ms / 1000))
    return receiver


def delivery_containers(stack: LocalStack, count: int) -> list[SqsPoller]:
    """`count` instances of the delivery function, each its own module with its own poller,
    built as the stack builds its own (`build_pollers`)."""
    assert stack.provisioned is not None
    spec = stack.template.functions["DeliveryFunction"]
    path, attribute = spec.handler_location(stack.template.root)
    options = PollerOptions(delivery_interval_s=0.02, time_scale=stack.options.time_scale)
    containers = []
    for _ in range(count):
        runtime = FunctionRuntime(
            spec,
            load_handler(path, attribute, f"lambda_soak_delivery_{uuid.uuid4().hex}"),
            region=stack.emulator.region,
            prefix=stack.options.prefix,
        )
        pollers = build_pollers(
            stack.provisioned, stack.emulator, {spec.logical_id: runtime}, options
        )
        (container,) = pollers.queues
        containers.append(container)
    return containers


def work_together(containers: Sequence[SqsPoller], feed: Callable[[], None] = lambda: None) -> None:
    """Runs `feed` (the fan-out) and every container at once; each container stops once `feed`
    has returned and the queue showed it nothing twice in a row."""
    fed = threading.Event()
    errors: list[BaseException] = []

    def run_feed() -> None:
        try:
            feed()
        except BaseException as error:
            errors.append(error)
        finally:
            fed.set()

    def deliver(poller: SqsPoller) -> None:
        idle = 0
        try:
            while idle < 2:
                if poller.poll_once():
                    idle = 0
                else:  # an empty receive costs moto a walk over the queue: not too often
                    idle += fed.is_set()
                    time.sleep(0.1)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run_feed)]
    threads += [threading.Thread(target=deliver, args=(c,)) for c in containers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError(f"the soak's machinery failed: {errors[0]!r}") from errors[0]


def _step_wait(step: int) -> float:
    """Seconds that cover the longest jittered wait after attempt `step` plus the sweep's grace."""
    return math.ceil(LADDER_SECONDS[step - 1] * (1 + JITTER)) + RETRY_SWEEP_GRACE_SECONDS + 1


class Soak:
    def __init__(self, stack: LocalStack, config: SoakConfig, say: Callable[[str], None]) -> None:
        self.stack = stack
        self.config = config
        self.say = say
        self.settings = runtime.settings()
        self.rng = random.Random(config.seed)
        self.clock = FakeClock()
        self.workspace = str(uuid.uuid4())
        self.events: list[str] = []

    def run(self) -> SoakResult:
        with contextlib.ExitStack() as exits:
            return self._run(exits)

    def _run(self, exits: contextlib.ExitStack) -> SoakResult:
        started = time.perf_counter()
        config, stack = self.config, self.stack
        timeout_s = self.settings.webhooks.timeout_ms / 1000
        if not config.slow_ms / 1000 < timeout_s:
            raise ValueError(f"--slow-ms must be below the timeout ({timeout_s * 1000:.0f} ms)")
        exits.enter_context(mock.patch.dict(os.environ, _ENVIRONMENT))
        exits.enter_context(wiring.overridden(clock=self.clock, rng=random.Random(config.seed)))
        receivers = [exits.enter_context(_receiver(b, config, timeout_s)) for _, b in ENDPOINTS]
        endpoints = [
            store_endpoint(r.url(f"/soak/{name}"), workspaces=(self.workspace,)).id
            for (name, _), r in zip(ENDPOINTS, receivers, strict=True)
        ]
        self.endpoint_ids = endpoints
        containers = delivery_containers(stack, config.containers)
        for first in range(0, config.events, config.wave):
            written = self._write_events(min(config.wave, config.events - first))
            work_together(containers, functools.partial(self._fan_out, written))
            self._purge_delayed()
            self.say(f"events 1-{len(self.events)} fanned out, first attempts made")
        for step in range(1, config.ladder_steps + 1):
            self.clock.advance(_step_wait(step))
            stack.tick("Sweep")
            work_together(containers)
            self._purge_delayed()
            self.say(f"retry step {step} ({LADDER_SECONDS[step - 1]} s) crossed")
        violations: list[str] = []
        tallies = self._check(receivers, violations)
        elapsed = time.perf_counter() - started
        return SoakResult(len(self.events), endpoints, tallies, violations, elapsed)

    def _write_events(self, count: int) -> list[str]:
        items = [
            event_item(
                EVENT_KINDS[len(self.events) % len(EVENT_KINDS)],
                workspace_id=self.workspace,
                caller=ACTOR,
                entry_id=str(uuid.uuid4()),
                content_type=CONTENT_TYPES[number % 2],
                title=f"soak {number}",
                now=self.clock.now(),
            )
            for number in range(len(self.events), len(self.events) + count)
        ]
        client, table = aws.dynamodb(self.settings), self.settings.tables.events
        for start in range(0, count, 25):
            pending: Any = {
                table: [
                    {"PutRequest": {"Item": dynamo.encode(item)}}
                    for item in items[start : start + 25]
                ]
            }
            while pending:
                pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems")
        ids = [str(item["id"]) for item in items]
        self.events += ids
        return ids

    def _fan_out(self, event_ids: Sequence[str]) -> None:
        """The stream through the fan-out, then some of its messages a second time."""
        assert self.stack.pollers is not None
        while any([poller.poll_once() for poller in self.stack.pollers.streams]):
            pass
        again = [
            fanout_delivery_id(endpoint_id, event_id)
            for event_id in event_ids
            for endpoint_id in self.endpoint_ids
            if self.rng.random() < self.config.duplicate_rate
        ]
        services.delivery_queue(self.settings).enqueue(again)

    def _purge_delayed(self) -> None:
        """Drops the retry messages queued with a delay: nothing else is left on the queue."""
        queue_url = self.settings.tables.delivery_queue_url
        self.stack.emulator.sqs().purge_queue(QueueUrl=queue_url)

    # -- the checks ----------------------------------------------------------------------

    def _rows(self) -> dict[str, DeliveryRow]:
        """Every expected row that exists, read by id."""
        ids = [fanout_delivery_id(p, e) for e in self.events for p in self.endpoint_ids]
        items = dynamo.batch_get(self.settings.tables.deliveries, [{"id": {"S": i}} for i in ids])
        rows = (DeliveryRow.from_values({k: plain(v) for k, v in item.items()}) for item in items)
        return {row.id: row for row in rows}

    def _check(self, receivers: Sequence[Receiver], violations: list[str]) -> list[Tally]:
        rows = self._rows()
        options = self.settings.webhooks
        endpoint_store = services.endpoint_store(self.settings)
        now = self.clock.now()
        tallies = []
        for (name, behaviour), receiver, endpoint_id in zip(
            ENDPOINTS, receivers, self.endpoint_ids, strict=True
        ):
            endpoint = endpoint_store.get(endpoint_id)
            assert endpoint is not None
            requests: dict[str, list[Received]] = defaultdict(list)
            mine = [r for r in receiver.requests if r.path == f"/soak/{name}"]  # not a stray
            for request in mine:
                requests[request.header("X-Service-Delivery") or ""].append(request)
            tally = Tally(name, requests=len(mine))
            tallies.append(tally)
            exhausted = 0
            for event_id in self.events:
                delivery_id = fanout_delivery_id(endpoint_id, event_id)
                row = rows.get(delivery_id)
                got = requests.pop(delivery_id, [])
                if row is None or (row.endpoint_id, row.event_id) != (endpoint_id, event_id):
                    violations.append(f"{name}: row {delivery_id} (event {event_id}) lost")
                    continue
                tally.states[row.status] += 1
                problems = _state_problems(row, now, options.max_attempts, endpoint.enabled)
                problems += _request_problems(row, got, endpoint.signing_secret())
                violations += [f"{name} row {row.id}: {p}" for p in problems]
                exhausted += row.status == "dead" and row.attempts == options.max_attempts
            for delivery_id, extra in requests.items():
                violations.append(
                    f"{name}: {len(extra)} request(s) for no soak row ({delivery_id})"
                )
            if behaviour in NEVER_DEAD and tally.states["dead"]:
                violations.append(f"{name}: {tally.states['dead']} rows dead")
            if behaviour == "timeout" and tally.states["succeeded"]:
                violations.append(f"{name}: {tally.states['succeeded']} rows succeeded")
            dead_in_a_row = (
                exhausted >= options.auto_disable_after and not tally.states["succeeded"]
            )
            if dead_in_a_row and endpoint.enabled:
                violations.append(f"{name}: {exhausted} rows dead in a row, still enabled")
        return tallies


def _state_problems(row: DeliveryRow, now: float, max_attempts: int, enabled: bool) -> list[str]:
    problems = []
    logged = [entry.attempt for entry in row.attempt_log]
    if logged != list(range(1, len(logged) + 1)) or row.attempts != len(logged):
        problems.append(f"attempts {row.attempts}, log numbers {logged}")
    code = row.last_status_code
    if row.status == "succeeded":
        if code is None or not 200 <= code < 300:
            problems.append(f"succeeded with status {code}")
    elif row.status == "failed":
        due = row.next_attempt_at
        if due is None or parse_iso_utc(due) <= now or row.sweep_at is None:
            problems.append(f"failed, not scheduled (next {due}, sweep {row.sweep_at})")
        if row.attempts >= max_attempts:
            problems.append(f"failed after the last attempt ({row.attempts})")
    elif row.status == "dead":
        retryable = code is None or code >= 500 or 300 <= code < 400 or code in (408, 429)
        gave_up = row.attempts == max_attempts and retryable
        final = code is not None and 400 <= code < 500 and code not in (408, 429)
        disabled = (row.last_error or "").startswith("endpoint disabled") and not enabled
        if not (gave_up or final or disabled):
            problems.append(f"dead by no rule ({row.attempts}, {code}, {row.last_error})")
    else:
        problems.append(f"left {row.status}")
    return problems


def _request_problems(row: DeliveryRow, got: Sequence[Received], secret: str) -> list[str]:
    problems = []
    logged = {entry.attempt: entry for entry in row.attempt_log}
    seen = Counter(int(r.header("X-Service-Attempt") or 0) for r in got)
    if twice := [attempt for attempt, n in seen.items() if n > 1]:
        problems.append(f"attempt(s) {twice} received twice")
    if unlogged := set(seen) - set(logged):
        problems.append(f"attempt(s) {sorted(unlogged)} received, not logged")
    answered = {a for a, entry in logged.items() if entry.status_code is not None}
    if unseen := answered - set(seen):
        problems.append(f"answered attempt(s) {sorted(unseen)} never received")
    for request in got:
        entry = logged.get(int(request.header("X-Service-Attempt") or 0))
        try:
            verify_signature(
                request.body,
                request.header("X-Service-Signature") or "",
                secret,
                now=int(parse_iso_utc(entry.at)) if entry else None,
            )
        except SignatureVerificationError as error:
            problems.append(f"signature: {error}")
        if request.body != row.body_bytes or request.header("X-Service-Event-Id") != row.event_id:
            problems.append("a request's body or event id is not the row's")
    return problems


def run_soak(
    stack: LocalStack, config: SoakConfig, say: Callable[[str], None] = lambda _: None
) -> SoakResult:
    """Runs the soak on a started local stack whose pollers are built but not started, with
    settings that allow receivers on 127.0.0.1 over http. Its endpoints and rows stay."""
    return Soak(stack, config, say).run()


# -- the command ----------------------------------------------------------------------------

_MOTO = """
import os, sys
from infra.emulator import Emulator

emulator = Emulator()
emulator.start()
print(emulator.port, flush=True)
sys.stdin.read()  # until the soak closes it, or dies
os._exit(0)  # at once: tearing down a large moto state takes long
"""


class ProcessEmulator(Emulator):
    """infra.emulator's moto server in a process of its own, so the emulator and the handlers
    do not share one interpreter lock: on two cores, about twice the throughput."""

    def __init__(self) -> None:
        super().__init__()
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        if self._process is not None:
            return
        self._process = subprocess.Popen(
            [sys.executable, "-c", _MOTO],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
            env={**os.environ, **_ENVIRONMENT},
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline().strip()
        if not line.isdigit():
            self.stop()
            raise EmulatorError(f"moto did not start in its own process ({line!r})")
        self._port = int(line)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def compact(self, keep: int = 0) -> None:
        """moto's state lives in the other process; a soak is short enough not to need it."""


def main(argv: Sequence[str]) -> int:
    defaults = SoakConfig()
    parser = argparse.ArgumentParser(
        prog="python -m harness.soak", description=__doc__.split("\n")[0]
    )
    for name, value in vars(defaults).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    parser.add_argument("--timeout-ms", type=int, default=200, help="the sender's timeoutMs")
    args = vars(parser.parse_args(argv))
    timeout_ms = args.pop("timeout_ms")
    config = SoakConfig(**args)
    service_logger.setLevel("WARNING")  # the handlers log every message at INFO
    # Containers flush the one metric set of this process in turn: often someone else's empty.
    warnings.filterwarnings("ignore", "No application metrics to publish")

    def say(message: str) -> None:
        print(f"[soak {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    emulator = ProcessEmulator()
    emulator.start()
    try:
        with tempfile.TemporaryDirectory(prefix="soak-") as local:
            options = LocalStackOptions(
                local_dir=Path(local),
                port=0,
                api=False,
                bootstrap=False,
                # moto runs in its own process, out of reach of this process's journal;
                # `make crash` is what proves durability.
                durable=False,
                start_pollers=False,
                time_scale=0.01,
                emulator=emulator,
                user_env={
                    **os.environ,
                    "WEBHOOKS_TIMEOUT": str(timeout_ms),
                    "WEBHOOKS_ALLOW_PRIVATE_NETWORKS": "true",
                    "WEBHOOKS_ALLOW_INSECURE_URLS": "true",
                    "POWERTOOLS_TRACE_DISABLED": "true",
                },
            )
            say(f"{config}, timeoutMs {timeout_ms}")
            # Powertools prints a metric blob every hundred values, disabled or not.
            with (
                LocalStack(options) as stack,
                open(os.devnull, "w") as null,
                contextlib.redirect_stdout(null),
            ):
                result = run_soak(stack, config, say)
    finally:
        emulator.stop()
    print(result.table())
    return 0 if not result.violations else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
