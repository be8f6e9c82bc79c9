"""API Gateway HTTP API -> the FastAPI app, through Mangum with the ASGI lifespan off."""

from __future__ import annotations

from typing import Any, cast

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from mangum import Mangum
from mangum.types import LambdaContext as MangumContext

from content_service.api.app import create_app
from content_service.observability import logger
from content_service.tracing import tracer

_asgi = Mangum(create_app(), lifespan="off")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    response: dict[str, Any] = _asgi(event, cast(MangumContext, context))
    return response
