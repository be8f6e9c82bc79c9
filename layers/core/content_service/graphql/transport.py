"""What a GraphQL request says, over either transport (GraphQL over HTTP):

- POST: a JSON object `{query?, variables?, operationName?, extensions?}`, read strictly
  (`content_service.strict_json`: UTF-8, no key twice, no lone surrogate);
- GET: the same four as URL parameters, `variables` and `extensions` JSON-encoded.

`extensions.persistedQuery` `{version: 1, sha256Hash}` names a persisted document (Apollo's
automatic persisted queries); `query` may then be left out. Refusals are BAD_REQUEST errors.
The answer's media type follows `Accept`: `application/graphql-response+json` when the client
asks for it, `application/json` otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.message import Message as MimeMessage
from typing import Any

from content_service import strict_json
from content_service.graphql.errors import RequestError

MAX_VARIABLE_DEPTH = 64
MAX_VARIABLE_NODES = 100_000
GRAPHQL_PARAMETERS = ("query", "variables", "operationName", "extensions")
GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Incoming:
    """One request's parameters; `query` None when only a persisted document is named."""

    query: str | None
    variables: dict[str, Any] | None
    operation_name: str | None
    persisted_hash: str | None = None


@dataclass(frozen=True)
class GraphQLRequest:
    """The request the pipeline runs (`graphql.execution`): the document's text in hand."""

    query: str
    variables: dict[str, Any] | None
    operation_name: str | None
    read_only: bool = False
    """Sent with GET: a mutation is refused (405)."""
    persist_as: str | None = None
    """The SHA-256 to persist the document under once it passed the checks."""


def parse_body(raw: bytes) -> Incoming:
    """The POST body."""
    try:
        body = strict_json.loads(raw)
    except strict_json.JsonRefused as refused:
        raise RequestError(
            "BAD_REQUEST", f"the request body is refused: {refused}", details=refused.details()
        ) from None
    if not isinstance(body, dict):
        raise RequestError("BAD_REQUEST", "the request body must be a JSON object")
    return _incoming(body, "the request body")


def parse_params(params: Sequence[tuple[str, str]]) -> Incoming:
    """The URL parameters of a GET; each may be given once."""
    found: dict[str, Any] = {}
    for name, value in params:
        if name not in GRAPHQL_PARAMETERS:
            continue
        if name in found:
            raise RequestError("BAD_REQUEST", f"the URL gives `{name}` more than once")
        found[name] = _json_parameter(name, value) if name in ("variables", "extensions") else value
    return _incoming(found, "the URL")


def is_graphql_request(params: Sequence[tuple[str, str]]) -> bool:
    """Whether a GET carries a request (else it asks for the SDL)."""
    return any(name in GRAPHQL_PARAMETERS for name, _ in params)


def _json_parameter(name: str, value: str) -> Any:
    try:
        return strict_json.loads(value, where=name)
    except strict_json.JsonRefused as refused:
        raise RequestError(
            "BAD_REQUEST", f"`{name}` is not JSON: {refused}", details=refused.details()
        ) from None


def _incoming(body: Mapping[str, Any], where: str) -> Incoming:
    persisted_hash = _persisted_hash(body.get("extensions"))
    query = body.get("query")
    if query is not None and not isinstance(query, str):
        raise RequestError("BAD_REQUEST", f"{where} needs `query`, a string")
    if query is None and persisted_hash is None:
        raise RequestError(
            "BAD_REQUEST",
            f"{where} needs `query`, a string (or `extensions.persistedQuery` naming a "
            "persisted document)",
        )
    variables = body.get("variables")
    if variables is not None and not isinstance(variables, dict):
        raise RequestError("BAD_REQUEST", "`variables` must be a JSON object")
    if variables is not None:
        check_variables(variables)
    operation_name = body.get("operationName")
    if operation_name is not None and not isinstance(operation_name, str):
        raise RequestError("BAD_REQUEST", "`operationName` must be a string")
    return Incoming(query, variables, operation_name or None, persisted_hash)


def _persisted_hash(extensions: Any) -> str | None:
    """`extensions.persistedQuery.sha256Hash` (lower-case hex), or None when not given."""
    if extensions is None:
        return None
    if not isinstance(extensions, dict):
        raise RequestError("BAD_REQUEST", "`extensions` must be a JSON object")
    persisted = extensions.get("persistedQuery")
    if persisted is None:
        return None
    if not isinstance(persisted, dict) or persisted.get("version") != 1:
        raise RequestError(
            "BAD_REQUEST", "`extensions.persistedQuery` must be {version: 1, sha256Hash}"
        )
    digest = persisted.get("sha256Hash")
    if not isinstance(digest, str) or not _SHA256.match(digest):
        raise RequestError(
            "BAD_REQUEST", "`extensions.persistedQuery.sha256Hash` must be 64 lower-case hex digits"
        )
    return digest


def check_variables(variables: Mapping[str, Any]) -> None:
    """Refuses variables nested deeper than MAX_VARIABLE_DEPTH or with more than
    MAX_VARIABLE_NODES values (an iterative walk: hostile nesting cannot exhaust the stack)."""
    stack: list[tuple[Any, int]] = [(variables, 1)]
    nodes = 0
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > MAX_VARIABLE_NODES:
            raise RequestError(
                "BAD_REQUEST", f"`variables` holds more than {MAX_VARIABLE_NODES} values"
            )
        if isinstance(value, dict | list):
            if depth > MAX_VARIABLE_DEPTH:
                raise RequestError(
                    "BAD_REQUEST", f"`variables` nests deeper than {MAX_VARIABLE_DEPTH} levels"
                )
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)


def response_media_type(accept: str | None) -> str:
    """`application/graphql-response+json` when `Accept` asks for it at least as much as for
    `application/json`; `application/json` otherwise (GraphQL over HTTP, legacy clients)."""
    if not accept:
        return JSON
    weights: dict[str, float] = {}
    for part in accept.split(","):
        parsed = MimeMessage()
        parsed["content-type"] = part.strip() or "x/x"
        try:
            weight = float(str(parsed.get_param("q", "1")))
        except ValueError:
            weight = 0.0
        media = parsed.get_content_type()
        weights[media] = max(weights.get(media, 0.0), weight)
    preferred = weights.get(GRAPHQL_RESPONSE, 0.0)
    if preferred > 0 and preferred >= weights.get(JSON, 0.0):
        return GRAPHQL_RESPONSE
    return JSON
