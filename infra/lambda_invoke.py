"""Lambda's Invoke API for the template's functions, in front of moto (docs/decisions.md, D130).

moto's own Lambda runs a function's code in Docker, from a zip it was given; the local stack has
neither. Here `POST /2015-03-31/functions/<name>/invocations` for a function the local stack
registered (`register`) runs the handler the template names, in the emulator's process, through
`infra.lambda_runtime`: imported with the stack's environment on the first invoke (its cold
start), or at registration when the environment names the function; then each invocation on
the function's one thread with a fresh context, one at a time, as one execution environment
does. So the API invokes the media function locally exactly as on AWS, and the recording proxy
sees the call `lambda:InvokeFunction` authorises.

The answers are Lambda's: 200 with the handler's JSON result; a handler that raises, 200 with
`X-Amz-Function-Error: Unhandled` and `{"errorMessage", "errorType"}`; an unknown function, 404
`ResourceNotFoundException`; a request over Lambda's 6 MB, 413 `RequestTooLargeException`.
Only `RequestResponse` invocations are emulated (the service makes no other).
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from infra.lambda_runtime import FunctionRuntime, load_handler
from infra.template_model import Template

MAX_REQUEST_BYTES = 6 * 1024 * 1024
_PATH = re.compile(r"^/2015-03-31/functions/([^/]+)/invocations$")

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WsgiApp = Callable[[Environ, StartResponse], Iterable[bytes]]

log = logging.getLogger(__name__)


class _Function:
    """One registered function, run on its own thread: loaded there on its first invoke, or
    at once (in the background) when `warm`."""

    def __init__(
        self, template: Template, logical_id: str, prefix: str, region: str, warm: bool
    ) -> None:
        self._template = template
        self._spec = template.functions[logical_id]
        self._prefix = prefix
        self._region = region
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"lambda-{logical_id}")
        self._runtime: FunctionRuntime | None = None
        if warm:
            self._thread.submit(self._loaded)

    def invoke(self, event: Any) -> Any:
        return self._thread.submit(lambda: self._loaded().invoke(event)).result()

    def _loaded(self) -> FunctionRuntime:
        if self._runtime is None:
            path, attribute = self._spec.handler_location(self._template.root)
            module = "invoked_" + re.sub(r"\W", "_", f"{self._prefix}{self._spec.logical_id}")
            handler = load_handler(path, attribute, module)
            self._runtime = FunctionRuntime(
                self._spec, handler, region=self._region, prefix=self._prefix
            )
        return self._runtime


class FunctionInvocations:
    """WSGI middleware: Lambda invocations answered here, everything else passed to `app`."""

    def __init__(self, app: WsgiApp) -> None:
        self._app = app
        self._functions: dict[str, _Function] = {}
        self._lock = threading.Lock()

    def register(
        self,
        template_path: Path,
        prefix: str,
        region: str,
        environment: Mapping[str, str] | None,
    ) -> list[str]:
        """Makes every function of the template invocable by its local name (`<prefix><id>`);
        `environment`, when given, is applied to this process's for their handlers to read at
        import. One process holds them all, so a second stack's environment replaces the
        first's (their names differ, their options do not). A function the environment names
        (the API's `MEDIA_FUNCTION_NAME`) is imported at once, in the background, as
        provisioned concurrency would be: the first invoke does not wait for a cold start of
        seconds. Returns the names."""
        template = Template.load(template_path)
        named = set(environment.values()) if environment is not None else set()
        if environment is not None:
            os.environ.update(environment)
        with self._lock:
            for logical_id in template.functions:
                name = f"{prefix}{logical_id}"
                self._functions[name] = _Function(
                    template, logical_id, prefix, region, warm=name in named
                )
        return [f"{prefix}{logical_id}" for logical_id in template.functions]

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        match = _PATH.match(environ.get("PATH_INFO", ""))
        if match is None or environ.get("REQUEST_METHOD") != "POST":
            return self._app(environ, start_response)
        status, headers, body = self._answer(unquote(match.group(1)), environ)
        start_response(status, [("Content-Type", "application/json"), *headers])
        return [body]

    def _answer(self, name: str, environ: Environ) -> tuple[str, list[tuple[str, str]], bytes]:
        # A function's ARN ends in `function:<name>` (and maybe `:<qualifier>`).
        name = name.split(":function:", 1)[-1].split(":", 1)[0]
        with self._lock:
            function = self._functions.get(name)
        if function is None:
            return _error(
                "404 Not Found", "ResourceNotFoundException", f"Function not found: {name}"
            )
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if length > MAX_REQUEST_BYTES:
            return _error(
                "413 Request Entity Too Large",
                "RequestTooLargeException",
                f"Request must be smaller than {MAX_REQUEST_BYTES} bytes",
            )
        kind = environ.get("HTTP_X_AMZ_INVOCATION_TYPE", "RequestResponse")
        if kind != "RequestResponse":
            return _error(
                "400 Bad Request", "InvalidParameterValueException", f"{kind} is not emulated"
            )
        raw = environ["wsgi.input"].read(length) if length else b""
        try:
            event = json.loads(raw) if raw else {}
        except ValueError:
            return _error(
                "400 Bad Request",
                "InvalidRequestContentException",
                "Could not parse request body into json",
            )
        executed = [("X-Amz-Executed-Version", "$LATEST")]
        try:
            result = function.invoke(event)
        except Exception as error:  # the function's failure, reported as Lambda reports it
            log.exception("%s raised", name)
            failure = {"errorMessage": str(error), "errorType": type(error).__name__}
            return (
                "200 OK",
                [*executed, ("X-Amz-Function-Error", "Unhandled")],
                json.dumps(failure).encode(),
            )
        return "200 OK", executed, json.dumps(result).encode()


def _error(status: str, code: str, message: str) -> tuple[str, list[tuple[str, str]], bytes]:
    body = json.dumps({"Type": "User", "message": message}).encode()
    return status, [("x-amzn-ErrorType", code)], body
