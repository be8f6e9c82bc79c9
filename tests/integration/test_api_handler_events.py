"""The API Lambda handler, driven by the HTTP API (payload 2.0) samples under events/.

The handler module is imported as Lambda imports it, with the function's environment: the
session key comes from SSM (moto) through Powertools parameters, not from a local file.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import ipaddress
import json
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from content_service.api.auth import SESSION_COOKIE
from content_service.identity import sign_in_throttle
from infra.lambda_runtime import LambdaContext, lambda_context, load_handler
from infra.local_stack import LocalStack
from tests.support.settings import settings_changed

EVENTS = Path(__file__).parents[2] / "events"
HANDLER = Path(__file__).parents[2] / "functions" / "api" / "handler.py"


@pytest.fixture(scope="module")
def api_handler(stack: LocalStack) -> Iterator[Callable[[dict[str, Any], LambdaContext], Any]]:
    """The handler imported and called on one dedicated thread, as Lambda's runtime does (Mangum
    sets up its event loop at import; Playwright's sync API leaves one running on the test
    thread)."""
    assert stack.settings is not None
    assert stack.settings.session_key_parameter, "the template names the SSM parameter"
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="lambda-runtime") as runtime:
        handler = runtime.submit(load_handler, HANDLER, "handler", "api_handler_under_test")
        loaded = handler.result()
        yield lambda event, context: runtime.submit(loaded, event, context).result()


def _event(name: str, **substitutions: str) -> dict[str, Any]:
    text = (EVENTS / name).read_text()
    for key, value in substitutions.items():
        text = text.replace("${" + key + "}", value)
    event: dict[str, Any] = json.loads(text)
    return event


def _body(response: dict[str, Any]) -> str:
    body = response.get("body", "")
    return base64.b64decode(body).decode() if response.get("isBase64Encoded") else str(body)


def test_health_sample(api_handler: Any) -> None:
    response = api_handler(_event("api-get-healthz.json"), lambda_context("ApiFunction"))
    assert response["statusCode"] == 200
    assert json.loads(_body(response)) == {"status": "ok"}
    assert response["headers"]["x-correlation-id"] == "Vx3QmhcNIAMEVdA="


def test_me_sample_with_a_real_token(api_handler: Any, credentials: dict[str, Any]) -> None:
    event = _event("api-get-me.json", READ_TOKEN=credentials["tokens"]["read"])
    response = api_handler(event, lambda_context("ApiFunction"))
    assert response["statusCode"] == 200
    body = json.loads(_body(response))
    assert body["kind"] == "token"
    assert body["access"] == "read"


def test_me_sample_with_a_revoked_shape_token_is_401(api_handler: Any) -> None:
    event = _event("api-get-me.json", READ_TOKEN="cs_" + "A" * 43)
    response = api_handler(event, lambda_context("ApiFunction"))
    assert response["statusCode"] == 401
    assert json.loads(_body(response))["error"]["code"] == "unauthorized"


def test_login_sample_signs_in_with_a_secure_cookie_though_public_base_url_is_empty(
    api_handler: Any, stack: LocalStack, credentials: dict[str, Any]
) -> None:
    """A default deploy leaves PUBLIC_BASE_URL empty; API Gateway says https in
    `X-Forwarded-Proto`, and the session cookie is Secure, with HSTS."""
    assert stack.settings is not None
    assert stack.settings.public_base_url == ""
    event = _event("api-post-login.json")
    admin = credentials["admin"]
    event["body"] = urlencode({"email": admin["email"], "password": admin["password"]})
    response = api_handler(event, lambda_context("ApiFunction"))
    assert response["statusCode"] == 303, _body(response)
    cookies = response.get("cookies") or []
    session = [c for c in cookies if c.startswith(f"{SESSION_COOKIE}=")]
    assert session, cookies
    assert "secure" in [a.strip().lower() for a in session[0].split(";")], cookies
    assert response["headers"]["strict-transport-security"] == "max-age=31536000"
    assert response["headers"]["x-content-type-options"] == "nosniff"


def test_login_sample_with_a_wrong_password(api_handler: Any) -> None:
    response = api_handler(_event("api-post-login.json"), lambda_context("ApiFunction"))
    assert response["statusCode"] == 401
    assert "Email or password is incorrect." in _body(response)


def test_graphql_sample(api_handler: Any, credentials: dict[str, Any]) -> None:
    event = _event("api-post-graphql.json", READ_TOKEN=credentials["tokens"]["read"])
    response = api_handler(event, lambda_context("ApiFunction"))
    assert response["statusCode"] == 200
    assert json.loads(_body(response)) == {
        "data": {"__typename": "Query"},
        "extensions": {"cost": {"requested": 0, "limit": 1000}},
    }


def test_graphql_over_get_from_the_edge_sample(
    api_handler: Any, credentials: dict[str, Any]
) -> None:
    """A persisted query over GET as CloudFront forwards it: registered, answered cacheable with
    its ETag in the media type asked for, then 304 to that ETag."""
    token = credentials["tokens"]["read"]
    event = _event("api-get-graphql-persisted.json", READ_TOKEN=token, IF_NONE_MATCH='\\"none\\"')
    response = api_handler(event, lambda_context("ApiFunction"))
    assert response["statusCode"] == 200, response
    headers = response["headers"]
    assert headers["content-type"] == "application/graphql-response+json"
    assert headers["cache-control"].startswith("public, max-age=0, s-maxage=")
    assert headers["vary"] == "Authorization, Accept"
    assert json.loads(_body(response))["data"] == {"__typename": "Query"}
    again = _event(
        "api-get-graphql-persisted.json",
        READ_TOKEN=token,
        IF_NONE_MATCH=json.dumps(headers["etag"])[1:-1],
    )
    not_modified = api_handler(again, lambda_context("ApiFunction"))
    assert not_modified["statusCode"] == 304
    assert _body(not_modified) == ""
    assert not_modified["headers"]["etag"] == headers["etag"]


def _graphql_error(response: dict[str, Any]) -> dict[str, Any]:
    assert response["statusCode"] == 200
    (error,) = json.loads(_body(response))["errors"]
    extensions: dict[str, Any] = error["extensions"]
    return extensions


def test_through_mangum_the_same_limits_answer_in_the_same_shapes(
    api_handler: Any, credentials: dict[str, Any]
) -> None:
    """What API Gateway lets through reaches the app's own rules (docs/decisions.md): a body
    over 1 MiB (API Gateway passes up to 10 MB), base64 or not, keys named twice, lone
    surrogates; GraphQL answers them with HTTP 200 and `errors[]`, REST in the error shape."""
    token = credentials["tokens"]["read"]
    big = json.dumps({"query": "{ __typename }", "variables": {"v": "x" * (1024 * 1024)}})
    for body, encoded in ((big, False), (base64.b64encode(big.encode()).decode(), True)):
        event = _event("api-post-graphql.json", READ_TOKEN=token)
        event.update(body=body, isBase64Encoded=encoded)
        extensions = _graphql_error(api_handler(event, lambda_context("ApiFunction")))
        assert extensions == {"status": 413, "code": "PAYLOAD_TOO_LARGE"}
    event = _event("api-post-graphql.json", READ_TOKEN=token)
    event["body"] = '{"query": "{ __typename }", "query": "{ __schema { types { name } } }"}'
    assert (
        _graphql_error(api_handler(event, lambda_context("ApiFunction")))["code"] == "BAD_REQUEST"
    )
    event = _event("api-post-graphql.json", READ_TOKEN=token)
    event["headers"]["content-type"] = "text/plain"
    assert _graphql_error(api_handler(event, lambda_context("ApiFunction")))["status"] == 415
    rest = _event("api-post-graphql.json", READ_TOKEN=token)
    rest.update(rawPath="/api/v1/content/post", body='{"values": {"\\ud800": 1}}')
    rest["requestContext"]["http"]["path"] = "/api/v1/content/post"
    response = api_handler(rest, lambda_context("ApiFunction"))
    assert response["statusCode"] == 400
    assert json.loads(_body(response))["error"]["details"][0]["location"] == "body.values.\\ud800"


def test_through_mangum_an_over_long_url_is_a_414(
    api_handler: Any, credentials: dict[str, Any]
) -> None:
    """API Gateway refuses a request line and headers over 10,240 bytes itself, so on AWS this
    URL never reaches the function; the app's own limit answers whatever does."""
    event = _event("api-get-me.json", READ_TOKEN=credentials["tokens"]["read"])
    event["rawQueryString"] = "x=" + "y" * 70_000
    response = api_handler(event, lambda_context("ApiFunction"))
    assert response["statusCode"] == 414
    assert json.loads(_body(response))["error"]["code"] == "uri_too_long"


def test_through_mangum_a_compressed_asset_is_base64_encoded(api_handler: Any) -> None:
    """Under API Gateway the gzip bytes of an asset travel base64-encoded, as binary must."""
    event = _event("api-get-healthz.json")
    event["rawPath"] = event["requestContext"]["http"]["path"] = "/static/graphiql/playground.js"
    event["headers"]["accept-encoding"] = "gzip"
    response = api_handler(event, lambda_context("ApiFunction"))
    assert response["statusCode"] == 200
    assert response["headers"]["content-encoding"] == "gzip"
    assert response["isBase64Encoded"] is True
    text = gzip.decompress(base64.b64decode(response["body"])).decode()
    assert "GraphiQL" in text


EDGE_SECRET = "edge-origin-secret-for-the-tests-0123456789"


@pytest.fixture
def behind_the_edge() -> Iterator[str]:
    """The function configured as the template configures it with the edge on; the CloudFront
    address the sample's requests come from, its counter forgotten afterwards."""
    source_ip = f"130.176.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"
    with settings_changed(lambda s: dataclasses.replace(s, edge_origin_secret=EDGE_SECRET)):
        yield source_ip
    sign_in_throttle.unlock(sign_in_throttle.address(source_ip))


def _viewer() -> str:
    """A viewer address of the documentation range, new to the throttle."""
    return str(ipaddress.ip_address("2001:db8::") + uuid.uuid4().int % 2**64)


def _edge_sign_in(
    source_ip: str, viewer: str, email: str, password: str, secret: str | None = EDGE_SECRET
) -> dict[str, Any]:
    event = _event(
        "api-post-login-edge.json",
        SOURCE_IP=source_ip,
        VIEWER_IP=viewer,
        VIEWER_ADDRESS=f"{viewer}:46532",
        EDGE_ORIGIN_SECRET=secret or "",
    )
    if secret is None:
        del event["headers"]["x-origin-verify"]
    event["body"] = urlencode({"email": email, "password": password})
    return event


def _lock(address: str) -> None:
    """Brings an address to its limit, as that many failed sign-ins would."""
    counter = sign_in_throttle.address(address)
    for _ in range(counter.limit):
        assert not sign_in_throttle.admit((counter,)).refused


def test_through_the_edge_each_viewer_is_counted_by_its_own_address(
    api_handler: Any, credentials: dict[str, Any], behind_the_edge: str
) -> None:
    """Two viewers behind one CloudFront address: the attacker's locked address refuses the
    attacker, while the admin behind the same edge still signs in."""
    admin = credentials["admin"]
    attacker, colleague = _viewer(), _viewer()
    _lock(attacker)
    try:
        refused = api_handler(
            _edge_sign_in(behind_the_edge, attacker, admin["email"], "a guess"),
            lambda_context("ApiFunction"),
        )
        assert refused["statusCode"] == 429, _body(refused)
        signed_in = api_handler(
            _edge_sign_in(behind_the_edge, colleague, admin["email"], admin["password"]),
            lambda_context("ApiFunction"),
        )
        assert signed_in["statusCode"] == 303, _body(signed_in)
    finally:
        for viewer in (attacker, colleague):
            sign_in_throttle.unlock(sign_in_throttle.address(viewer))


@pytest.mark.parametrize("secret", [None, "", EDGE_SECRET[:-1] + "!", EDGE_SECRET + "0"])
def test_a_direct_request_is_counted_by_its_source_whatever_viewer_it_names(
    api_handler: Any, credentials: dict[str, Any], behind_the_edge: str, secret: str | None
) -> None:
    """Without our distribution's secret (none, empty, or not quite it), `CloudFront-Viewer-Address`
    is the client's own writing: a locked source stays locked whatever address it names; the
    same request with the secret is counted by the address named."""
    admin = credentials["admin"]
    named = _viewer()
    _lock(behind_the_edge)
    try:
        direct = api_handler(
            _edge_sign_in(behind_the_edge, named, admin["email"], admin["password"], secret),
            lambda_context("ApiFunction"),
        )
        assert direct["statusCode"] == 429, _body(direct)
        through_the_edge = api_handler(
            _edge_sign_in(behind_the_edge, named, admin["email"], admin["password"]),
            lambda_context("ApiFunction"),
        )
        assert through_the_edge["statusCode"] == 303, _body(through_the_edge)
    finally:
        sign_in_throttle.unlock(sign_in_throttle.address(named))


@pytest.mark.parametrize(
    "spelling", ["Bearer {token} ", " Bearer {token}", "Bearer {token}\t", "bearer {token}"]
)
def test_through_mangum_only_the_exact_bearer_form_authenticates(
    api_handler: Any, credentials: dict[str, Any], spelling: str
) -> None:
    """API Gateway passes a header value as sent, surrounding whitespace included: as the edge
    keys on that raw value, any spelling but `Bearer <token>` is a 401, on REST and GraphQL."""
    token = credentials["tokens"]["read"]
    me = _event("api-get-me.json", READ_TOKEN=token)
    me["headers"]["authorization"] = spelling.format(token=token)
    response = api_handler(me, lambda_context("ApiFunction"))
    assert response["statusCode"] == 401, _body(response)
    assert "Bearer <token>" in json.loads(_body(response))["error"]["message"]
    graphql = _event("api-post-graphql.json", READ_TOKEN=token)
    graphql["headers"]["authorization"] = spelling.format(token=token)
    refused = _graphql_error(api_handler(graphql, lambda_context("ApiFunction")))
    assert refused == {"status": 401, "code": "UNAUTHENTICATED"}
