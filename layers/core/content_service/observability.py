"""The Powertools Logger, Tracer and Metrics shared by every handler.

One instance each, so log keys such as the correlation id set by a handler or a middleware appear
on every line the core writes. The Tracer is a no-op outside Lambda (POWERTOOLS_TRACE_DISABLED).
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE_NAME = "content-service"

logger = Logger(service=SERVICE_NAME)
tracer = Tracer(service=SERVICE_NAME)
metrics = Metrics(namespace="ContentService", service=SERVICE_NAME)
