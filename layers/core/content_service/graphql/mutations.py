"""Mutation resolvers: the REST body model builds the WriteRequest, so both protocols refuse the
same input, and each mutation calls the same service function as its REST route.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    GraphQLResolveInfo,
)
from pydantic import ValidationError

from content_service.content import service
from content_service.content.entries import Entry
from content_service.content.requests import (
    EntryAction,
    EntryWriteBody,
    ScheduleAction,
    ScheduleRequest,
    VersionRequest,
    WriteRequest,
)
from content_service.errors import ValidationFailed
from content_service.graphql.context import Context, Resolver, context_of, plain
from content_service.graphql.resolvers import read_back


def _write_request(
    context: Context,
    type_name: str,
    entry_id: str | None,
    raw_input: Mapping[str, Any],
    version: int | None = None,
) -> WriteRequest:
    body: dict[str, Any] = {} if version is None else {"version": version}
    for key, value in plain(raw_input).items():
        if value is None and key in ("values", "relations"):
            continue  # an explicit null object: nothing to change
        if key == "relations":
            value = {
                name: {k: v for k, v in (change or {}).items() if v is not None}
                for name, change in value.items()
            }
        body[key] = value
    try:
        parsed = EntryWriteBody.model_validate(body)
    except ValidationError as error:
        details = [
            {
                "location": ".".join(str(part) for part in ("input", *e.get("loc", ()))),
                "problem": e.get("msg", "invalid"),
            }
            for e in error.errors()
        ]
        raise ValidationFailed("the mutation input is invalid", details=details) from None
    return parsed.request(context.caller, context.workspace_id, type_name, entry_id)


def create_mutation(type_name: str) -> Resolver:
    async def resolve(_root: Any, info: GraphQLResolveInfo, input: Mapping[str, Any]) -> Entry:
        context = context_of(info)
        request = _write_request(context, type_name, None, input)
        created = await asyncio.to_thread(service.create_entry, request)
        return await read_back(context, info, type_name, created.id)

    return resolve


def update_mutation(type_name: str) -> Resolver:
    async def resolve(
        _root: Any,
        info: GraphQLResolveInfo,
        id: str,
        input: Mapping[str, Any],
        version: int | None = None,
    ) -> Entry:
        context = context_of(info)
        request = _write_request(context, type_name, id, input, version)
        updated = await asyncio.to_thread(service.update_entry, request)
        return await read_back(context, info, type_name, updated.id)

    return resolve


def _action(context: Context, type_name: str, entry_id: str, *, force: bool = False) -> EntryAction:
    return EntryAction(
        caller=context.caller,
        workspace_id=context.workspace_id,
        content_type=type_name,
        id=entry_id,
        force=force,
    )


def state_mutation(type_name: str, change: Callable[[EntryAction], Entry]) -> Resolver:
    """`change` (`service.publish_entry` or `unpublish_entry`), then the entry read back."""

    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str) -> Entry:
        context = context_of(info)
        changed = await asyncio.to_thread(change, _action(context, type_name, id))
        return await read_back(context, info, type_name, changed.id)

    return resolve


def delete_mutation(type_name: str) -> Resolver:
    async def resolve(
        _root: Any, info: GraphQLResolveInfo, id: str, force: bool | None = None
    ) -> bool:
        context = context_of(info)
        action = _action(context, type_name, id, force=bool(force))
        await asyncio.to_thread(service.delete_entry, action)
        return True

    return resolve


def restore_version_mutation(type_name: str) -> Resolver:
    """`restoreXVersion(id, version)`: snapshot `version` copied into the draft, read back."""

    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str, version: int) -> Entry:
        context = context_of(info)
        request = VersionRequest(context.caller, context.workspace_id, type_name, id, version)
        restored = await asyncio.to_thread(service.restore_version, request)
        return await read_back(context, info, type_name, restored.id)

    return resolve


def schedule_mutation(type_name: str) -> Resolver:
    """`scheduleX(id, action, at)`: the schedule, as REST's POST .../schedules answers it."""

    async def resolve(
        _root: Any, info: GraphQLResolveInfo, id: str, action: Any, at: str
    ) -> dict[str, Any]:
        context = context_of(info)
        request = ScheduleRequest(
            context.caller, context.workspace_id, type_name, id, str(plain(action)), at
        )
        schedule = await asyncio.to_thread(service.create_schedule, request)
        return schedule.to_json()

    return resolve


def cancel_schedule_mutation(type_name: str) -> Resolver:
    async def resolve(_root: Any, info: GraphQLResolveInfo, id: str, scheduleId: str) -> bool:  # noqa: N803
        context = context_of(info)
        request = ScheduleAction(context.caller, context.workspace_id, type_name, id, scheduleId)
        await asyncio.to_thread(service.cancel_schedule, request)
        return True

    return resolve
