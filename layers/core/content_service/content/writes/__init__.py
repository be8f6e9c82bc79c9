"""Changing entries: the draft writes (`writes`, checked by `write_body`), the state changes
(`transitions`), version history (`versions`), scheduled publishing (`schedules`) and the role
check of every write (`role_guard`); each write is one transaction (`write_transaction`) with
its outbox event (`events`) and change-log item (`change_log`).

Other packages import only the names below; each loads its module on first use
(`content_service.lazy_exports`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .change_log import RETENTION_DAYS, RETENTION_SECONDS, TIME_LENGTH, Change, read_changes
    from .events import EVENT_KINDS, event_item
    from .role_guard import check, is_own
    from .schedules import cancel_schedule, create_schedule, list_schedules, run_due
    from .transitions import (
        delete_entry,
        discard_changes,
        publish_entry,
        purge_entry,
        restore_entry,
        unpublish_entry,
    )
    from .versions import get_version, list_versions, snapshot_items
    from .write_body import Problems, check_targets
    from .write_transaction import Versions, indexed, put_version, read_for_write
    from .writes import create_entry, restore_version, update_entry

__all__ = [
    "EVENT_KINDS",
    "RETENTION_DAYS",
    "RETENTION_SECONDS",
    "TIME_LENGTH",
    "Change",
    "Problems",
    "Versions",
    "cancel_schedule",
    "check",
    "check_targets",
    "create_entry",
    "create_schedule",
    "delete_entry",
    "discard_changes",
    "event_item",
    "get_version",
    "indexed",
    "is_own",
    "list_schedules",
    "list_versions",
    "publish_entry",
    "purge_entry",
    "put_version",
    "read_changes",
    "read_for_write",
    "restore_entry",
    "restore_version",
    "run_due",
    "snapshot_items",
    "unpublish_entry",
    "update_entry",
]

_MODULES = {
    "Change": "change_log",
    "EVENT_KINDS": "events",
    "Problems": "write_body",
    "RETENTION_DAYS": "change_log",
    "RETENTION_SECONDS": "change_log",
    "TIME_LENGTH": "change_log",
    "Versions": "write_transaction",
    "cancel_schedule": "schedules",
    "check": "role_guard",
    "check_targets": "write_body",
    "create_entry": "writes",
    "create_schedule": "schedules",
    "delete_entry": "transitions",
    "discard_changes": "transitions",
    "event_item": "events",
    "get_version": "versions",
    "indexed": "write_transaction",
    "is_own": "role_guard",
    "list_schedules": "schedules",
    "list_versions": "versions",
    "publish_entry": "transitions",
    "purge_entry": "transitions",
    "put_version": "write_transaction",
    "read_changes": "change_log",
    "read_for_write": "write_transaction",
    "restore_entry": "transitions",
    "restore_version": "writes",
    "run_due": "schedules",
    "snapshot_items": "versions",
    "unpublish_entry": "transitions",
    "update_entry": "writes",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, _MODULES)
