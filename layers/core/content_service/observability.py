"""The Powertools Logger and Metrics shared by every handler (the Tracer is in `tracing`).

One instance each, so log keys such as the correlation id set by a handler or a middleware appear
on every line the core writes.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics

SERVICE_NAME = "content-service"

logger = Logger(service=SERVICE_NAME)
metrics = Metrics(namespace="ContentService", service=SERVICE_NAME)
