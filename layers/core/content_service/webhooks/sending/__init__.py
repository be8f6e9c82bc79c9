"""Sending one delivery: the delivery queue, the worker that claims and sends, the envelope,
the signature and request headers, the pinned HTTP sender (and the guarded GET built on it),
the EventBridge target, per-endpoint rate limits, the retry ladder, and the bounds on what a
receiver can make us store.

Other packages import only the names below; each loads its module on first use (D146).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .bounds import ERROR_BYTES, HEADERS_BYTES, Headers, clip, headers_size
    from .delivery_worker import LOST_CLAIM_ERROR, RETRY_SWEEP_GRACE_SECONDS, DeliveryWorker, Report
    from .envelopes import envelope, freeze, refreeze
    from .event_bus import EventBusSender
    from .http_fetch import fetch
    from .http_sender import Sender, SendResult, parse_retry_after
    from .outgoing import request_headers
    from .queue import (
        MAX_DELAY_SECONDS,
        DeliveryQueue,
        MalformedMessage,
        message_body,
        parse_message,
    )
    from .rate_limit import MAX_RATE_LIMIT, WINDOW_SECONDS, RateLimiter
    from .retry_ladder import (
        JITTER,
        LADDER_SECONDS,
        RETRY_AFTER_CAP_SECONDS,
        judge,
        ladder_seconds,
        retry_wait,
    )
    from .signing import (
        SignatureVerificationError,
        parse_signature_header,
        sign,
        signature_header,
        standard_signature,
        verify_signature,
    )

__all__ = [
    "ERROR_BYTES",
    "HEADERS_BYTES",
    "JITTER",
    "LADDER_SECONDS",
    "LOST_CLAIM_ERROR",
    "MAX_DELAY_SECONDS",
    "MAX_RATE_LIMIT",
    "RETRY_AFTER_CAP_SECONDS",
    "RETRY_SWEEP_GRACE_SECONDS",
    "WINDOW_SECONDS",
    "DeliveryQueue",
    "DeliveryWorker",
    "EventBusSender",
    "Headers",
    "MalformedMessage",
    "RateLimiter",
    "Report",
    "SendResult",
    "Sender",
    "SignatureVerificationError",
    "clip",
    "envelope",
    "fetch",
    "freeze",
    "headers_size",
    "judge",
    "ladder_seconds",
    "message_body",
    "parse_message",
    "parse_retry_after",
    "parse_signature_header",
    "refreeze",
    "request_headers",
    "retry_wait",
    "sign",
    "signature_header",
    "standard_signature",
    "verify_signature",
]

_MODULES = {
    "DeliveryQueue": "queue",
    "DeliveryWorker": "delivery_worker",
    "ERROR_BYTES": "bounds",
    "EventBusSender": "event_bus",
    "HEADERS_BYTES": "bounds",
    "Headers": "bounds",
    "JITTER": "retry_ladder",
    "LADDER_SECONDS": "retry_ladder",
    "LOST_CLAIM_ERROR": "delivery_worker",
    "MAX_DELAY_SECONDS": "queue",
    "MAX_RATE_LIMIT": "rate_limit",
    "MalformedMessage": "queue",
    "RETRY_AFTER_CAP_SECONDS": "retry_ladder",
    "RETRY_SWEEP_GRACE_SECONDS": "delivery_worker",
    "RateLimiter": "rate_limit",
    "Report": "delivery_worker",
    "SendResult": "http_sender",
    "Sender": "http_sender",
    "SignatureVerificationError": "signing",
    "WINDOW_SECONDS": "rate_limit",
    "clip": "bounds",
    "envelope": "envelopes",
    "fetch": "http_fetch",
    "freeze": "envelopes",
    "headers_size": "bounds",
    "judge": "retry_ladder",
    "ladder_seconds": "retry_ladder",
    "message_body": "queue",
    "parse_message": "queue",
    "parse_retry_after": "http_sender",
    "parse_signature_header": "signing",
    "refreeze": "envelopes",
    "request_headers": "outgoing",
    "retry_wait": "retry_ladder",
    "sign": "signing",
    "signature_header": "signing",
    "standard_signature": "signing",
    "verify_signature": "signing",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, _MODULES)
