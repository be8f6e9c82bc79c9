"""API Gateway HTTP API (`/files/{proxy+}`) and CloudFront -> the file URLs, through Mangum;
and the API's synchronous invokes that inspect an upload (`{"inspect": ...}`, D130).

A python3.12 function with a layer of its own: Pillow's current wheels need that runtime (D126).
"""

from __future__ import annotations

from typing import Any, cast

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from mangum import Mangum
from mangum.types import LambdaContext as MangumContext

from content_service import runtime
from content_service.api.app import create_media_app
from content_service.assets import remote_inspection
from content_service.observability import logger
from content_service.tracing import tracer

_asgi = Mangum(create_media_app(), lifespan="off")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if remote_inspection.is_request(event):
        return remote_inspection.answer(event, runtime.settings())
    response: dict[str, Any] = _asgi(event, cast(MangumContext, context))
    return response
