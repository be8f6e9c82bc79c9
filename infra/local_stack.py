"""The local stack: emulator, tables and queues from the template, API, pollers, durable state.

`make run` runs this module (`python -m infra.local_stack`); test fixtures use `LocalStack`
directly with port 0, a prefix, and the parts they do not need switched off. The start order
matters and is documented on `LocalStack.start`.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from content_service.settings import Settings, SettingsError
from infra import TEMPLATE_PATH, local_edge, request_check
from infra.api_workers import ThreadServer, WorkerProcesses
from infra.child_process import configure_logging
from infra.emulator import DEFAULT_PORT, DEFAULT_REGION, Emulator, EmulatorError
from infra.emulator_process import EmulatorProcess
from infra.lambda_runtime import Handler, load_runtimes
from infra.pollers import PollerOptions, Pollers, build_pollers
from infra.provisioning import Provisioned, provision
from infra.request_recorder import RequestRecorder
from infra.running import Running
from infra.template_model import Template, TemplateError

if TYPE_CHECKING:
    from harness.varnish_edge import VarnishEdge
    from infra.durable_state import DurableState

AppFactory = Callable[[Settings], Any]
Bootstrapper = Callable[[Settings, str, Path], Any]
Resumer = Callable[[Settings], Any]

LAYOUTS = ("processes", "one-process")
# Measured on 2 cores (docs/decisions.md, D81): the emulator takes one, the API the other.
DEFAULT_API_WORKERS = 1

log = logging.getLogger("infra.local_stack")


def default_app_factory(settings: Settings) -> Any:
    """`content_service.api.app:create_app`, imported when the API is started."""
    return importlib.import_module("content_service.api.app").create_app(settings)


def default_bootstrapper(settings: Settings, base_url: str, local_dir: Path) -> Any:
    """`content_service.identity.bootstrap:ensure_bootstrap`, with storage bound first."""
    importlib.import_module("content_service.runtime").configure(settings)
    module = importlib.import_module("content_service.identity.bootstrap")
    return module.ensure_bootstrap(settings, base_url, local_dir)


def default_resumer(settings: Settings) -> Any:
    """`content_service.webhooks.deliveries:resume_after_restart`, with storage bound first; and
    the upgrade of entries a release before versions stored (`lists reindex`, legacy ones)."""
    importlib.import_module("content_service.runtime").configure(settings)
    upgraded = importlib.import_module("content_service.content.lists").reindex_stored(
        legacy_only=True
    )
    module = importlib.import_module("content_service.webhooks.deliveries")
    return {"entriesUpgraded": upgraded, "resume": module.resume_after_restart(settings)}


LOCAL_CACHE_SECONDS = "60"


def with_local_cache_default(user_env: Mapping[str, str]) -> dict[str, str]:
    """The user's environment, with `CONTENT_CACHE_SECONDS` at 60 unless they chose one.

    The template's default is a day with the edge on, as the local stack has it, because
    CloudFront is purged on every change; the emulator's distribution caches nothing and purges
    nothing, so a shared cache put in front of the local stack by hand would keep answers a day
    with nobody purging them. `EDGE=varnish make run` chooses a day itself (it purges).
    """
    env = dict(user_env)
    if not env.get("CONTENT_CACHE_SECONDS", "").strip():
        env["CONTENT_CACHE_SECONDS"] = LOCAL_CACHE_SECONDS
    return env


@dataclass
class LocalStackOptions:
    """What to run and where. The defaults are `make run`'s; tests use port 0 and a prefix.

    `emulator` shares an already started emulator (one per test module, say; give each stack
    its own `prefix`); the stack then leaves it running on stop. Otherwise the stack starts
    one: with `emulator_process` in a process of its own, with the journal
    (`infra.emulator_process`), else on threads of this process. `api_workers` 0 serves the
    API on a thread of this process (tests observe and reconfigure the app there); N serves it
    from N worker processes (`infra.api_workers`), whose app is built by `app_factory`, which
    must then be a module-level function. `user_env` is the
    environment the user started with (None: `os.environ` at start); its
    variables win over parameter defaults. `apply_environment` writes the resolved variables
    into `os.environ` for the life of the stack (restored on stop), which is what the API and
    the handlers read. `durable` keeps the tables under `local_dir` (snapshot and journal);
    `journal_fsync` False skips the fsync (a killed process still loses nothing, a power cut
    may). `resumer` runs after a restore, before the pollers start (None: nothing runs).
    `progress` hears one short line per set-up step (`make run` prints them).
    `request_check` holds every AWS request the app makes to AWS's own rules
    (`AWS_REQUEST_CHECK`; `AWS_REQUEST_CHECK=off` in the user's environment turns it off).
    """

    local_dir: Path = field(default_factory=lambda: Path(".local").resolve())
    host: str = "127.0.0.1"
    port: int = 8000
    moto_port: int = DEFAULT_PORT
    region: str = DEFAULT_REGION
    prefix: str = ""
    template_path: Path = TEMPLATE_PATH
    api: bool = True
    emulator_process: bool = True
    api_workers: int = 0
    pollers: bool = True
    start_pollers: bool = True
    durable: bool = True
    journal_fsync: bool = True
    bootstrap: bool = True
    apply_environment: bool = True
    record_storage: bool = False
    request_check: bool = True
    user_env: Mapping[str, str] | None = None
    housekeeping_interval_s: float = 30.0
    time_scale: float = 1.0
    stream_poll_interval_s: float = 0.25
    stream_retry_base_s: float = 0.5
    handler_overrides: Mapping[str, Handler] | None = None
    emulator: Emulator | None = None
    app_factory: AppFactory = default_app_factory
    bootstrapper: Bootstrapper = default_bootstrapper
    resumer: Resumer | None = default_resumer
    progress: Callable[[str], None] | None = None


class LocalStack(Running):
    """Starts and stops everything `make run` needs; also a context manager for fixtures."""

    def __init__(self, options: LocalStackOptions | None = None) -> None:
        self.options = options or LocalStackOptions()
        self.template = Template.load(self.options.template_path)
        self._owns_emulator = self.options.emulator is None
        kind = EmulatorProcess if self.options.emulator_process else Emulator
        self.emulator = self.options.emulator or kind(
            port=self.options.moto_port, region=self.options.region
        )
        self.provisioned: Provisioned | None = None
        self.environment: dict[str, str] = {}
        self.settings: Settings | None = None
        self.pollers: Pollers | None = None
        self._durable = False
        self.credentials: dict[str, Any] | None = None
        self.restored_items = 0
        self.recorder: RequestRecorder | None = None
        self.base_url: str | None = None
        self._server: ThreadServer | WorkerProcesses | None = None
        self._listener: socket.socket | None = None
        self._saved_env: dict[str, str | None] = {}
        self._housekeeping_stop = threading.Event()
        self._housekeeping: threading.Thread | None = None
        self._started = False

    @property
    def local_dir(self) -> Path:
        return self.options.local_dir

    @property
    def app(self) -> Any:
        """The ASGI app served on a thread of this process (None before the API starts,
        without it, or when worker processes serve it)."""
        return self._server.app if isinstance(self._server, ThreadServer) else None

    @property
    def durable_state(self) -> DurableState | None:
        """The journal and snapshot of this stack's tables, when the emulator runs in this
        process (None when it runs in its own, or without `durable`)."""
        return self.emulator.durable.get(self.options.local_dir) if self._durable else None

    @property
    def api_pids(self) -> list[int]:
        """The API's worker processes (empty when a thread of this process serves it)."""
        return self._server.pids if isinstance(self._server, WorkerProcesses) else []

    def problem(self) -> str | None:
        """What has died that the stack cannot run without; None while all is well."""
        if self._owns_emulator and self._started and not self.emulator.running:
            return "the AWS emulator has stopped"
        return self._server.problem() if self._server is not None else None

    def start(self) -> None:
        """Starts everything, in an order that matters.

        1. Emulator, then provisioning from the template, then the resolved environment
           applied, so handlers imported later (their cold start) read it.
        2. Saved state restored (snapshot plus journal) before any poller exists, and
           journaling on from then; stream pollers then take their iterators at once, at the
           stream's end when something was restored, so the restore itself is never fed to
           the fan-out. The resumer then fans out the restored events whose fan-out never
           completed and re-queues unfinished deliveries (the emulator's queues start empty).
        3. The API socket is bound, and its worker processes spawned to build their app,
           before the restore, so the bootstrap knows the base URL, even for port 0, and the
           workers' imports overlap the restore; the API serves only once the bootstrap is
           done.
        4. Pollers last: nothing is delivered before the API and the storage are ready.
        """
        if self._started:
            return
        self._started = True
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        options = self.options
        self._housekeeping_stop.clear()
        options.local_dir.mkdir(parents=True, exist_ok=True)
        request_check.hook_into_app_clients()
        user_env = with_local_cache_default(
            os.environ if options.user_env is None else options.user_env
        )

        if self._owns_emulator:
            self._progress(f"starting the AWS emulator (moto) on port {options.moto_port}")
        self.emulator.start()
        provisioned = self._provision(user_env)
        # Before the recording proxy: invoked handlers reach the emulator directly. A child
        # process gets the environment the API's workers get.
        separate = isinstance(self.emulator, EmulatorProcess)
        self.emulator.serve_functions(
            options.template_path,
            options.prefix,
            {**user_env, **self.environment} if separate else None,
        )
        if options.record_storage:
            self.recorder = RequestRecorder(self.emulator.endpoint_url).start()
            self.environment["AWS_ENDPOINT_URL"] = self.recorder.url
        if options.apply_environment:
            self._apply_environment(self.environment)
        settings = Settings.from_env({**user_env, **self.environment})
        self.settings = settings
        self._mirror_session_key(settings)

        listener = self._listener = _bind(options.host, options.port) if options.api else None
        if listener is not None:
            self.base_url = f"http://{options.host}:{listener.getsockname()[1]}"
            self._spawn_workers({**user_env, **self.environment}, listener)
        self._restore(provisioned)
        restored = self.restored_items > 0
        if options.pollers:
            self._build_pollers(provisioned, settings, restored)

        if options.bootstrap:
            first = not (options.local_dir / "bootstrap.json").exists()
            self._progress(
                "bootstrapping: workspace default, an admin and two API tokens"
                if first
                else "bootstrapping: reading the credentials of the first start"
            )
            base_url = settings.public_base_url or self.base_url or f"http://{options.host}"
            self.credentials = options.bootstrapper(settings, base_url, options.local_dir)
        if listener is not None:
            self._progress(f"starting the API on {self.base_url}")
            self._serve(settings, listener)

        if self.pollers is not None and options.start_pollers:
            self.pollers.start()
        self._housekeeping = threading.Thread(
            target=self._housekeep, name="local-stack-housekeeping", daemon=True
        )
        self._housekeeping.start()

    def _restore(self, provisioned: Provisioned) -> None:
        """Replays the saved state into the emulator, when the stack is durable."""
        options = self.options
        if not options.durable:
            return
        self._progress(f"restoring the saved state from {options.local_dir}")
        self.restored_items = self.emulator.open_durable(
            options.local_dir, provisioned.tables, options.journal_fsync, provisioned.buckets
        )
        self._durable = True
        if self.restored_items:
            log.info("restored %d item(s) from %s", self.restored_items, options.local_dir)

    def _build_pollers(self, provisioned: Provisioned, settings: Settings, restored: bool) -> None:
        """The pollers of the template's event sources (streams read from LATEST after a
        restore), prepared but not started."""
        options = self.options
        runtimes = load_runtimes(
            self.template,
            region=self.emulator.region,
            prefix=options.prefix,
            overrides=options.handler_overrides,
        )
        self.pollers = build_pollers(
            provisioned,
            self.emulator,
            runtimes,
            PollerOptions(
                delivery_interval_s=settings.webhooks.delivery_interval_ms / 1000,
                time_scale=options.time_scale,
                stream_poll_interval_s=options.stream_poll_interval_s,
                stream_retry_base_s=options.stream_retry_base_s,
                stream_starting_position="LATEST" if restored else None,
            ),
        )
        self.pollers.prepare()
        if restored and options.resumer is not None:
            log.info("after the restore: %s", options.resumer(settings))

    def _provision(self, user_env: Mapping[str, str]) -> Provisioned:
        """Keys, tables and queues from the template (the emulator's keys as the last run left
        them, when state is kept), and the environment the app gets."""
        options = self.options
        self._progress(f"provisioning the tables and queues of {options.template_path.name}")
        keys_file = options.local_dir / "kms-keys.json"
        if options.durable:
            self.emulator.restore_keys(keys_file)
        provisioned = provision(
            self.emulator, self.template, prefix=options.prefix, user_env=user_env
        )
        self.provisioned = provisioned
        if options.durable:
            self.emulator.save_keys(keys_file, provisioned.keys.values())
        self.environment = {**self.emulator.aws_environment(), **provisioned.environment}
        if options.request_check and user_env.get(request_check.SWITCH, "").lower() != "off":
            self.environment.update(_request_check_environment(provisioned))
        return provisioned

    def _progress(self, step: str) -> None:
        if self.options.progress is not None:
            self.options.progress(step)

    def stop(self) -> None:
        """Stops everything; safe to call twice and after a failed start.

        The API stops first; the pollers finish their current invocation; the journal is then
        folded into a last snapshot.
        """
        if not self._started:
            return
        self._started = False
        self._housekeeping_stop.set()
        if self._housekeeping is not None:
            self._housekeeping.join(10)
            self._housekeeping = None
        self._stop_server()
        if self.pollers is not None:
            self.pollers.stop()
        if self._durable:
            self._durable = False
            try:
                count = self.emulator.close_durable(self.options.local_dir)
                log.info("saved %d item(s) to %s", count, self.options.local_dir / "state.json")
            except (OSError, RuntimeError):
                log.exception("could not compact the journal; the next start replays it")
        if self._owns_emulator:
            self.emulator.stop()
        if self.recorder is not None:
            self.recorder.stop()
            self.recorder = None
        self._restore_environment()

    def tick(self, schedule: str) -> Any:
        """Fires a schedule now (for tests); see `SchedulePoller.tick`."""
        if self.pollers is None:
            raise RuntimeError("pollers are not running")
        return self.pollers.tick(schedule)

    def drain(self, max_rounds: int = 100) -> int:
        """Runs the stream and queue pollers in this thread until none has work left.

        With `start_pollers=False` this is how tests and benchmarks move events through the
        fan-out and delivery handlers deterministically, instead of waiting for threads.
        Returns the number of busy rounds.
        """
        if self.pollers is None:
            raise RuntimeError("pollers are not built")
        for rounds in range(max_rounds):
            busy = False
            for poller in (*self.pollers.streams, *self.pollers.queues):
                busy = poller.poll_once() or busy
            if not busy:
                return rounds
        raise RuntimeError(f"still busy after {max_rounds} rounds")

    def _spawn_workers(self, environment: Mapping[str, str], listener: socket.socket) -> None:
        """API worker processes build their app while the state is restored (their imports take
        seconds); they serve from `_serve` on."""
        workers = self.options.api_workers
        if workers > 0:
            server = WorkerProcesses(workers, listener, environment, self.options.app_factory)
            self._server = server
            server.spawn()

    def _serve(self, settings: Settings, listener: socket.socket) -> None:
        server = self._server
        if server is None:
            server = self._server = ThreadServer(self.options.app_factory(settings), listener)
        server.start()
        log.info("API listening on %s", self.base_url)

    def _stop_server(self) -> None:
        server, listener = self._server, self._listener
        self._server = self._listener = None
        if server is not None:
            server.stop()
        if listener is not None:
            listener.close()

    def _housekeep(self) -> None:
        """Journal compaction when a segment has grown, and the emulator's own compaction."""
        while not self._housekeeping_stop.wait(self.options.housekeeping_interval_s):
            try:
                self.emulator.housekeep()
            except Exception:
                log.exception("housekeeping failed; will try again")

    def _apply_environment(self, environment: Mapping[str, str]) -> None:
        for name, value in environment.items():
            if name not in self._saved_env:
                self._saved_env[name] = os.environ.get(name)
            os.environ[name] = value

    def _restore_environment(self) -> None:
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._saved_env = {}

    def _mirror_session_key(self, settings: Settings) -> None:
        """Puts the local key file into the emulator's SSM under the template's parameter name.

        Whichever of the two the app reads (the file locally, the SSM parameter on AWS), it
        finds the same key.
        """
        key_file, parameter = settings.session_key_file, settings.session_key_parameter
        if key_file is None or not parameter or not key_file.is_file():
            return
        try:
            value = key_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return
        if value:
            self.emulator.ssm().put_parameter(
                Name=parameter, Value=value, Type="SecureString", Overwrite=True
            )


def _request_check_environment(provisioned: Provisioned) -> dict[str, str]:
    """The request check switched on, with these tables' keys added to those of any other
    stack running in this process (a test module's own stack beside the session's)."""
    tables = {
        **request_check.tables(),
        **{t.name: t.schema() for t in provisioned.tables.values()},
    }
    return {request_check.SWITCH: "on", request_check.TABLES: request_check.tables_json(tables)}


def _bind(host: str, port: int) -> socket.socket:
    # IPPROTO_TCP given explicitly: asyncio sets TCP_NODELAY on accepted connections only for
    # sockets whose protocol says TCP; without it every kept-alive request after the first
    # waits ~40 ms for a delayed ACK.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise OSError(f"cannot listen on {host}:{port} ({error.strerror}); set PORT") from None
    listener.listen(128)
    listener.setblocking(False)
    return listener


def ensure_session_key(path: Path) -> Path:
    """Creates a random session-signing key readable by the owner only, unless one exists."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(secrets.token_hex(32) + "\n")
    return path


def _write_json_atomically(path: Path, document: Mapping[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _banner(stack: LocalStack, local_dir: Path) -> str:
    base = stack.base_url or ""
    lines = [
        "",
        "Content service is running. Ctrl-C stops it (state is kept).",
        f"  API        {base}  (REST under /api/v1/content)",
        f"  GraphQL    {base}/api/v1/graphql",
    ]
    if stack.settings is not None and stack.settings.api_reference_enabled:
        lines += [
            f"  REST docs  {base}/api/v1/docs",
            f"  Playground {base}/api/v1/graphql/playground",
        ]
    else:
        lines.append("  REST docs and GraphQL playground: off (API_REFERENCE_ENABLED=false)")
    lines += [
        f"  Webhooks   {base}/webhooks",
        f"  Login      {base}/login",
        f"  Health     {base}/healthz",
        f"  AWS (moto) {stack.emulator.endpoint_url}  region {stack.emulator.region}",
        f"  State      {local_dir / 'state.json'} and {local_dir / 'journal'}/",
    ]
    if stack.credentials:
        lines.append(f"Credentials (also in {local_dir / 'bootstrap.json'}):")
        lines.extend("  " + line for line in json.dumps(stack.credentials, indent=2).splitlines())
    lines.append("")
    return "\n".join(lines)


def _print_progress(step: str) -> None:
    print(f"==> {step}", flush=True)


def options_from_environment() -> LocalStackOptions | None:
    """`make run`'s options from its variables (None, after saying why, when one is wrong);
    fills in the variables the app reads that a developer's machine leaves unset."""
    try:
        host = os.environ.get("HOST", "127.0.0.1")
        port = int(os.environ.get("PORT", "8000"))
        moto_port = int(os.environ.get("MOTO_PORT", str(DEFAULT_PORT)))
        workers = int(os.environ.get("API_WORKERS", str(DEFAULT_API_WORKERS)))
    except ValueError as error:
        log.error("PORT, MOTO_PORT and API_WORKERS must be integers (%s)", error)
        return None
    journal = os.environ.get("LOCAL_JOURNAL", "on").strip().lower()
    if journal not in ("on", "off"):
        log.error("LOCAL_JOURNAL must be on (keep every write) or off (keep nothing)")
        return None
    layout = os.environ.get("LOCAL_LAYOUT", "processes").strip().lower()
    if layout not in LAYOUTS or workers < 1:
        log.error("LOCAL_LAYOUT must be processes or one-process, API_WORKERS at least 1")
        return None
    local_dir = Path(os.environ.get("LOCAL_DIR", ".local")).resolve()
    # An empty value (as the template's default leaves it) means "not set" here too.
    if port and not os.environ.get("PUBLIC_BASE_URL"):
        os.environ["PUBLIC_BASE_URL"] = f"http://{host}:{port}"
        # The origin guard then ignores Host: name the other spelling of this machine too.
        if host == "127.0.0.1" and not os.environ.get("ALLOWED_ORIGINS"):
            os.environ["ALLOWED_ORIGINS"] = f"http://localhost:{port}"
    if not os.environ.get("SESSION_KEY_FILE"):
        os.environ["SESSION_KEY_FILE"] = str(ensure_session_key(local_dir / "session.key"))
    # On a developer's machine the API reference and the playground are on unless turned off
    # (on AWS the template's ApiReferenceEnabled parameter decides, off by default).
    if not os.environ.get("API_REFERENCE_ENABLED"):
        os.environ["API_REFERENCE_ENABLED"] = "true"
    return LocalStackOptions(
        local_dir=local_dir,
        host=host,
        port=port,
        moto_port=moto_port,
        durable=journal == "on",
        emulator_process=layout == "processes",
        api_workers=workers if layout == "processes" else 0,
        progress=_print_progress,
    )


def _announce(stack: LocalStack, edge: VarnishEdge | None, stack_file: Path) -> None:
    """Writes `.local/stack.json` and the edge's URL, and prints the banner."""
    local_dir = stack.options.local_dir
    _write_json_atomically(
        stack_file,
        {
            "baseUrl": stack.base_url,
            "awsEndpointUrl": stack.emulator.endpoint_url,
            "region": stack.emulator.region,
            "env": stack.environment,
        },
    )
    local_edge.record_edge_url(local_dir, edge.url if edge else None)
    print(_banner(stack, local_dir), flush=True)
    if edge is not None:
        print(f"  Edge       {edge.url}  (Varnish, purged on publish)\n", flush=True)


def _serve_until_stopped(
    stack: LocalStack, edge: VarnishEdge | None, stop_requested: threading.Event
) -> bool:
    """Waits for a stop request; False when something the stack needs died first."""
    while not stop_requested.wait(1.0):
        problem = stack.problem() or local_edge.problem(edge)
        if problem is not None:
            log.error("%s: stopping the stack (the journal keeps every write)", problem)
            return False
    return True


def main() -> int:
    """`make run`: everything on 127.0.0.1, until Ctrl-C or SIGTERM; exit code 0 on a clean stop,
    1 when it could not start or a process it needs died (the journal keeps every write)."""
    configure_logging()
    stop_requested = threading.Event()
    first_signal_at: list[float] = []

    def request_stop(signum: int, frame: FrameType | None) -> None:
        if not first_signal_at:
            first_signal_at.append(time.monotonic())
            print("\nStopping (press Ctrl-C again to force)...", file=sys.stderr, flush=True)
            stop_requested.set()
        elif time.monotonic() - first_signal_at[0] > 1.0:
            # A second signal within a second is the same request delivered twice (a wrapper
            # signalling the whole process group); a later one is the user insisting.
            print("\nStopping now (the journal keeps every write).", file=sys.stderr, flush=True)
            os._exit(130)

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)

    options = options_from_environment()
    if options is None:
        return 2
    local_dir = options.local_dir
    try:
        edge = local_edge.edge_from_environment(local_dir, options.host, options.port)
    except local_edge.EdgeError as error:
        log.error("%s", error)
        return 2
    stack = LocalStack(options)
    stack_file = local_dir / "stack.json"
    try:
        try:
            local_edge.start_edge(edge)
            stack.start()
        except (
            EmulatorError,
            TemplateError,
            SettingsError,
            ImportError,
            OSError,
            RuntimeError,
        ) as error:
            log.error("the local stack did not start: %s", error)
            return 1
        _announce(stack, edge, stack_file)
        if not _serve_until_stopped(stack, edge, stop_requested):
            return 1
    finally:
        stack.stop()
        if edge is not None:
            edge.stop()
        stack_file.unlink(missing_ok=True)
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
