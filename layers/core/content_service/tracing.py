"""The handlers' Powertools Tracer: X-Ray when tracing is on, nothing at all when it is off.

Powertools' Tracer imports `aws_xray_sdk` even when tracing is disabled (it asks the SDK to
disable itself), and the SDK builds its own botocore session and sampler at import: a third of
a worker's cold start, spent on nothing. So when tracing is off, by Powertools' own rule
(`POWERTOOLS_TRACE_DISABLED`, or not running in Lambda), the same Tracer class runs over a
provider that records nothing, and `aws_xray_sdk` is never imported. When it is on, the Tracer
patches only the libraries the service sends requests with: botocore (boto3 and PynamoDB) and
`http.client` (the webhook sender), not everything X-Ray could patch.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from aws_lambda_powertools import Tracer
from aws_lambda_powertools.tracing.base import BaseProvider, BaseSegment

from content_service.observability import SERVICE_NAME

# What the service sends requests with; X-Ray's names for them.
TRACED_MODULES: tuple[str, ...] = ("botocore", "httplib")


class _Unrecorded(BaseSegment):
    """A segment that keeps nothing."""

    def close(self, end_time: int | None = None) -> None:
        pass

    def add_subsegment(self, subsegment: Any) -> None:
        pass

    def remove_subsegment(self, subsegment: Any) -> None:
        pass

    def put_annotation(self, key: str, value: Any) -> None:
        pass

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        pass

    def add_exception(self, exception: BaseException, stack: Any, remote: bool = False) -> None:
        pass


class NoTracing(BaseProvider):
    """A Powertools tracing provider that records nothing and patches nothing."""

    @contextmanager
    def in_subsegment(self, name: Any = None, **kwargs: Any) -> Iterator[BaseSegment]:
        yield _Unrecorded()

    @asynccontextmanager
    async def in_subsegment_async(
        self, name: Any = None, **kwargs: Any
    ) -> AsyncIterator[BaseSegment]:
        yield _Unrecorded()

    def put_annotation(self, key: str, value: Any) -> None:
        pass

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        pass

    def patch(self, modules: Sequence[str]) -> None:
        pass

    def patch_all(self) -> None:
        pass


def tracing_enabled() -> bool:
    """Powertools' own rule: on in Lambda unless POWERTOOLS_TRACE_DISABLED says otherwise."""
    return not Tracer._is_tracer_disabled()


def build_tracer() -> Tracer:
    if tracing_enabled():
        return Tracer(service=SERVICE_NAME, patch_modules=TRACED_MODULES)
    # `disabled=True` would make Powertools import aws_xray_sdk to switch it off; a provider
    # that records nothing is off without it.
    return Tracer(service=SERVICE_NAME, disabled=False, auto_patch=False, provider=NoTracing())


tracer = build_tracer()
