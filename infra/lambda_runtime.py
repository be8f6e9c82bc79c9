"""Runs a template function's handler the way Lambda's Python runtime would.

The handler is imported from the file the template names (CodeUri + Handler), once, as a cold
start. Each invocation gets a fresh context object with the attributes Powertools'
`inject_lambda_context` reads. Invocations of one function are serialised, as one Lambda
execution environment handles one event at a time; different functions run concurrently.
"""

from __future__ import annotations

import importlib.util
import logging
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from content_service.observability import logger as service_logger
from infra.provisioning import DEFAULT_ACCOUNT_ID
from infra.template_model import FunctionSpec, Template, TemplateError

Handler = Callable[[Any, Any], Any]

log = logging.getLogger(__name__)


@dataclass
class LambdaContext:
    """The parts of `awslambdaric`'s context object handlers and Powertools use."""

    function_name: str
    function_version: str
    invoked_function_arn: str
    memory_limit_in_mb: int
    aws_request_id: str
    log_group_name: str
    log_stream_name: str
    deadline: float = field(repr=False)
    identity: Any = None
    client_context: Any = None
    tenant_id: str | None = None

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


def load_handler(path: Path, attribute: str, module_name: str) -> Handler:
    """Imports `path` under a unique module name and returns its handler callable.

    The code directory is on `sys.path` during the import, as `/var/task` is in Lambda, so a
    handler may import a sibling module.
    """
    if not path.is_file():
        raise TemplateError(f"handler file {path} does not exist")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise TemplateError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    code_dir = str(path.parent)
    sys.path.insert(0, code_dir)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    finally:
        sys.path.remove(code_dir)
    handler = getattr(module, attribute, None)
    if not callable(handler):
        raise TemplateError(f"{path} has no callable {attribute!r}")
    return handler  # type: ignore[no-any-return]


def lambda_context(
    function_name: str,
    *,
    arn: str | None = None,
    memory_mb: int = 1024,
    timeout_s: float = 29,
    region: str = "us-east-1",
) -> LambdaContext:
    """A context shaped like the one Lambda passes one invocation: a fresh request id and log
    stream, and a deadline `timeout_s` from now."""
    return LambdaContext(
        function_name=function_name,
        function_version="$LATEST",
        invoked_function_arn=arn
        or f"arn:aws:lambda:{region}:{DEFAULT_ACCOUNT_ID}:function:{function_name}",
        memory_limit_in_mb=memory_mb,
        aws_request_id=str(uuid.uuid4()),
        log_group_name=f"/aws/lambda/{function_name}",
        log_stream_name=time.strftime("%Y/%m/%d/[$LATEST]") + uuid.uuid4().hex,
        deadline=time.monotonic() + timeout_s,
    )


class FunctionRuntime:
    """One template function: its handler, its Lambda-like context, one invocation at a time."""

    def __init__(
        self,
        spec: FunctionSpec,
        handler: Handler,
        *,
        region: str,
        prefix: str = "",
        account_id: str = DEFAULT_ACCOUNT_ID,
    ) -> None:
        self.spec = spec
        self.handler = handler
        self.region = region
        self.function_name = f"{prefix}{spec.logical_id}"
        self.arn = f"arn:aws:lambda:{region}:{account_id}:function:{self.function_name}"
        self._lock = threading.Lock()

    @property
    def logical_id(self) -> str:
        return self.spec.logical_id

    def new_context(self) -> LambdaContext:
        return lambda_context(
            self.function_name,
            arn=self.arn,
            memory_mb=self.spec.memory_size,
            timeout_s=self.spec.timeout,
        )

    def invoke(self, event: Any) -> Any:
        """Calls the handler; its exceptions propagate to the poller, which logs them.

        Each Lambda function runs in its own process; here they share one, so the log keys a
        handler's Powertools Logger adds (function name, request id, cold start) are put back
        afterwards instead of leaking onto the API's log lines.
        """
        with self._lock:
            context = self.new_context()
            keys_before = dict(service_logger.get_current_keys())
            try:
                return self.handler(event, context)
            finally:
                added = set(service_logger.get_current_keys()) - set(keys_before)
                service_logger.remove_keys(added)
                service_logger.append_keys(**keys_before)
                if context.get_remaining_time_in_millis() == 0:
                    log.warning(
                        "%s ran past its %d s timeout; Lambda would have stopped it",
                        self.function_name,
                        self.spec.timeout,
                    )


def load_runtimes(
    template: Template,
    *,
    region: str,
    prefix: str = "",
    event_types: tuple[str, ...] = ("DynamoDB", "SQS", "Schedule"),
    overrides: Mapping[str, Handler] | None = None,
) -> dict[str, FunctionRuntime]:
    """A runtime per function with at least one event source the local stack polls.

    `overrides` replaces a function's handler by logical id (tests use it to observe what a
    poller delivers without running the real handler).
    """
    overrides = overrides or {}
    runtimes = {}
    for logical_id, spec in template.functions.items():
        if not any(e.type in event_types for e in spec.events.values()):
            continue
        if logical_id in overrides:
            handler = overrides[logical_id]
        else:
            path, attribute = spec.handler_location(template.root)
            module_name = "lambda_" + re.sub(r"\W", "_", f"{prefix}{logical_id}_{path.stem}")
            handler = load_handler(path, attribute, module_name)
        runtimes[logical_id] = FunctionRuntime(spec, handler, region=region, prefix=prefix)
    return runtimes
