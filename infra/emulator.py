"""The embedded AWS emulator: moto in server mode, a real HTTP endpoint.

boto3 and PynamoDB talk to it over the wire exactly as they talk to AWS, so the code under test
exercises the same serialisation and error paths. Tests use port 0 (any free port); `make run`
uses a fixed port (4566, `MOTO_PORT`) so other processes, such as the CLI, can find it.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config

from infra.running import Running

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient
    from mypy_boto3_kms import KMSClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_ssm import SSMClient

    from infra.durable_state import DurableState
    from infra.emulator_server import EmulatorServer
    from infra.provisioning import ProvisionedBucket, ProvisionedKey, ProvisionedTable

DEFAULT_PORT = 4566
DEFAULT_REGION = "us-east-1"
FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
}
# moto keeps every stream shard iterator it ever issued; a poller issues one per poll.
_KEPT_STREAM_ITERATORS = 1000

log = logging.getLogger(__name__)


class EmulatorError(RuntimeError):
    """The emulator could not start (typically: its port is taken)."""


class Emulator(Running):
    """A moto server on 127.0.0.1 plus boto3 clients wired to it with fake credentials."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, region: str = DEFAULT_REGION
    ) -> None:
        self.host = host
        self.requested_port = port
        self.region = region
        self._server: EmulatorServer | None = None
        self._port: int | None = None
        self._session: boto3.Session | None = None
        self.durable: dict[Path, DurableState] = {}
        """The durable states journaling this emulator's tables, by local directory."""
        self.durable_objects: dict[Path, DurableState] = {}
        """The durable states journaling this emulator's bucket objects, by local directory."""

    def start(self) -> None:
        if self._server is not None:
            return
        # moto is imported here, not with this module: a stack whose emulator runs in a process
        # of its own (`infra.emulator_process`) never loads it in the parent.
        from infra import moto_journal, moto_s3_journal, moto_speedups, moto_transactions
        from infra.emulator_server import EmulatorServer

        moto_transactions.install()
        moto_journal.install()
        moto_s3_journal.install()
        moto_speedups.install()
        if self.requested_port:
            _check_port_free(self.host, self.requested_port)
        server = EmulatorServer(self.host, self.requested_port)
        server.start()
        self._server = server
        self._port = server.port
        log.info("AWS emulator (moto) listening on %s", self.endpoint_url)

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def serve_functions(
        self, template_path: Path, prefix: str, environment: Mapping[str, str] | None
    ) -> list[str]:
        """Answers Lambda invokes of the template's functions by running their handlers
        (`infra.lambda_invoke`), which read `environment` (None: this process's own, which the
        local stack sets up); returns the functions' names."""
        if self._server is None:
            raise EmulatorError("the emulator is not running")
        return self._server.invocations.register(template_path, prefix, self.region, environment)

    def open_durable(
        self,
        local_dir: Path,
        tables: Mapping[str, ProvisionedTable],
        fsync: bool = True,
        buckets: Mapping[str, ProvisionedBucket] | None = None,
    ) -> int:
        """Restores `local_dir`'s snapshot and journal into these tables (and its objects into
        these buckets) and journals every write to them from now on (`infra.durable_state`,
        `infra.durable_objects`); returns the items and keys restored."""
        from infra.durable_objects import ObjectState
        from infra.durable_state import DurableState

        client = self.dynamodb()
        state = DurableState(local_dir, tables, fsync=fsync)
        restored = state.open(client)
        self.durable[local_dir] = state
        if buckets:
            objects = ObjectState(local_dir, buckets, fsync=fsync)
            restored += objects.open(client)
            self.durable_objects[local_dir] = objects
        return restored

    def close_durable(self, local_dir: Path) -> int:
        """Stops journaling `local_dir`'s tables and objects after a last compaction; returns
        the items and keys saved (0 when it was not open)."""
        saved = 0
        for states in (self.durable, self.durable_objects):
            state = states.pop(local_dir, None)
            saved += state.close() if state is not None else 0
        return saved

    def save_keys(self, path: Path, keys: Iterable[ProvisionedKey]) -> None:
        """Writes the provisioned KMS keys' ids, aliases and material (`infra.kms_keys`)."""
        from infra import kms_keys

        kms_keys.save(path, self.region, list(keys))

    def restore_keys(self, path: Path) -> int:
        """Puts keys saved by `save_keys` back into moto; how many (`infra.kms_keys`)."""
        from infra import kms_keys

        return kms_keys.restore(path, self.region)

    def housekeep(self) -> None:
        """Folds a journal segment that has grown into its snapshot, and forgets old stream
        iterators (`compact`)."""
        for state in [*self.durable.values(), *self.durable_objects.values()]:
            if state.needs_compaction():
                state.compact_aside()
        self.compact()

    @property
    def running(self) -> bool:
        """False once the emulator is gone (a process of its own can die on its own)."""
        return self._server is not None

    @property
    def port(self) -> int:
        if self._port is None:
            raise EmulatorError("the emulator is not started")
        return self._port

    @property
    def endpoint_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def aws_environment(self) -> dict[str, str]:
        """What a process needs in its environment for boto3 to use this emulator."""
        return {
            **FAKE_CREDENTIALS,
            "AWS_ENDPOINT_URL": self.endpoint_url,
            "AWS_REGION": self.region,
            "AWS_DEFAULT_REGION": self.region,
        }

    def session(self) -> boto3.Session:
        if self._session is None:
            self._session = boto3.Session(
                aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
                aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
                aws_session_token=FAKE_CREDENTIALS["AWS_SESSION_TOKEN"],
                region_name=self.region,
            )
        return self._session

    def _config(self) -> Config:
        # A local server answers at once or is broken: fail fast instead of backing off.
        return Config(retries={"max_attempts": 2, "mode": "standard"}, connect_timeout=5)

    def dynamodb(self) -> DynamoDBClient:
        return self.session().client(
            "dynamodb", endpoint_url=self.endpoint_url, config=self._config()
        )

    def dynamodbstreams(self) -> DynamoDBStreamsClient:
        return self.session().client(
            "dynamodbstreams", endpoint_url=self.endpoint_url, config=self._config()
        )

    def sqs(self) -> SQSClient:
        return self.session().client("sqs", endpoint_url=self.endpoint_url, config=self._config())

    def ssm(self) -> SSMClient:
        return self.session().client("ssm", endpoint_url=self.endpoint_url, config=self._config())

    def kms(self) -> KMSClient:
        return self.session().client("kms", endpoint_url=self.endpoint_url, config=self._config())

    def cloudfront(self) -> Any:
        return self.session().client(
            "cloudfront", endpoint_url=self.endpoint_url, config=self._config()
        )

    def s3(self) -> S3Client:
        """Presigns with SigV4, as S3 requires of new buckets (botocore's default for S3 in
        us-east-1 is still SigV2, which the emulator refuses: `infra.s3_uploads`)."""
        config = self._config().merge(Config(signature_version="s3v4"))
        return self.session().client("s3", endpoint_url=self.endpoint_url, config=config)

    def load(self, table: str, items: Iterable[Mapping[str, Any]]) -> int:
        """Stores `items` (DynamoDB JSON) in one of this process's moto tables, each through
        moto's own `put_item` (what BatchWriteItem runs for every item), without HTTP and JSON:
        a benchmark seeds a million items in a couple of minutes instead of ten. Only possible
        because the server runs in this process. Returns how many were stored."""
        from moto.core.models import DEFAULT_ACCOUNT_ID
        from moto.dynamodb.models import dynamodb_backends

        target = dynamodb_backends[DEFAULT_ACCOUNT_ID][self.region].get_table(table)
        stored = 0
        for item in items:
            target.put_item(dict(item))
            stored += 1
        return stored

    def unload(self, table: str, pk_contains: str) -> int:
        """Deletes, through moto's own `delete_item`, every item of one of this process's moto
        tables whose `pk` contains `pk_contains`: a test that seeded thousands of items with
        `load` takes them away again, so later full-table reads of a shared stack stay small.
        Returns how many were deleted."""
        from moto.core.models import DEFAULT_ACCOUNT_ID
        from moto.dynamodb.models import dynamodb_backends

        target = dynamodb_backends[DEFAULT_ACCOUNT_ID][self.region].get_table(table)
        doomed = [item for item in target.all_items() if pk_contains in str(item.hash_key.value)]
        for item in doomed:
            target.delete_item(item.hash_key, item.range_key)
        return len(doomed)

    def compact(self, keep: int = _KEPT_STREAM_ITERATORS) -> None:
        """Forgets old stream shard iterators that moto would otherwise keep forever.

        Only possible because the server runs in this process, and moto's state is the whole
        process's (every emulator in it). The newest `keep` iterators (those the pollers hold)
        are kept; a poller whose iterator vanished anyway re-acquires one from its checkpoint.
        """
        try:
            from moto.dynamodbstreams.models import dynamodbstreams_backends
        except ImportError:  # pragma: no cover - moto without streams support
            return
        for account in list(dynamodbstreams_backends.values()):
            for backend in list(account.values()):
                iterators = backend.shard_iterators
                keys = list(iterators)
                for key in keys[: max(0, len(keys) - keep)]:
                    iterators.pop(key, None)


def _check_port_free(host: str, port: int) -> None:
    """moto's server thread dies silently on a taken port and `start()` then waits forever."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise EmulatorError(
                f"port {port} on {host} is in use ({error.strerror}); set MOTO_PORT to a free port"
            ) from None
