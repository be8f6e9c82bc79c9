"""Operational notices: an endpoint is failing, was disabled, has recovered; what a notice may
say of its destination, and the alarm topic that hears each one.

Other packages import only the names below; each loads its module on first use (D146).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .alarm_topic import AlarmTopic
    from .notice_redaction import notice_host, notice_reason
    from .notices import DISABLED, EndpointNotices, failing_threshold

__all__ = [
    "DISABLED",
    "AlarmTopic",
    "EndpointNotices",
    "failing_threshold",
    "notice_host",
    "notice_reason",
]

_MODULES = {
    "AlarmTopic": "alarm_topic",
    "DISABLED": "notices",
    "EndpointNotices": "notices",
    "failing_threshold": "notices",
    "notice_host": "notice_redaction",
    "notice_reason": "notice_redaction",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, _MODULES)
