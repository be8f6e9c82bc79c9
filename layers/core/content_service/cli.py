"""`content-service`: tokens, users, the first bootstrap, list indexes, failure-queue
replays, the sealing of webhook secrets stored in clear and bulk asset uploads, against the
local stack or AWS;
`listen`, which receives webhook deliveries on this machine through the API; `receive`, a
receiver on this machine that prints what it gets.

Where the tables are: environment variables when set (as in Lambda); otherwise `--stack NAME`
reads a deployed stack's outputs; otherwise the running local stack's `.local/stack.json`.
Results are printed as JSON so scripts can read them; a token or password is printed once.
`listen` needs no tables: it signs in to the API (`--api-url`, or the stack's `ApiUrl`, or the
local stack's) as an administrator.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from content_service import replays
from content_service.errors import ServiceError
from content_service.settings import Settings, SettingsError

if TYPE_CHECKING:
    from content_service.identity.roles import RoleGrant

_TABLE_OUTPUTS = {
    "ContentTableName": "CONTENT_TABLE",
    "SchemaTableName": "SCHEMA_TABLE",
    "EventsTableName": "EVENTS_TABLE",
    "EndpointsTableName": "ENDPOINTS_TABLE",
    "DeliveriesTableName": "DELIVERIES_TABLE",
    "DeliveryQueueUrl": "DELIVERY_QUEUE_URL",
    "FanoutFailureQueueUrl": "FANOUT_FAILURE_QUEUE_URL",
    "PurgeFailureQueueUrl": "PURGE_FAILURE_QUEUE_URL",
    "DeliveryDeadLetterQueueUrl": "DELIVERY_DLQ_URL",
    "SecretsKeyArn": "SECRETS_KEY_ARN",
    "AssetsBucketName": "ASSETS_BUCKET",
}


def _stack_environment(stack_name: str) -> dict[str, str]:
    import boto3

    stacks = boto3.client("cloudformation").describe_stacks(StackName=stack_name)["Stacks"]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}
    env = {variable: outputs[key] for key, variable in _TABLE_OUTPUTS.items() if key in outputs}
    if "ApiUrl" in outputs:
        env["PUBLIC_BASE_URL"] = outputs["ApiUrl"]
    return env


def _local_environment(local_dir: Path) -> dict[str, str]:
    stack_file = local_dir / "stack.json"
    if not stack_file.exists():
        raise SettingsError(
            f"no tables configured: set the table variables, pass --stack, or start the local "
            f"stack with `make run` (looked for {stack_file})"
        )
    stack: dict[str, Any] = json.loads(stack_file.read_text())
    env: dict[str, str] = dict(stack.get("env", {}))
    return env


def resolve_settings(args: argparse.Namespace) -> tuple[Settings, str]:
    env = dict(os.environ)
    if args.stack:
        env.update(_stack_environment(args.stack))
    elif "SCHEMA_TABLE" not in env:
        local = _local_environment(Path(args.local_dir))
        # botocore reads credentials and the endpoint from os.environ, not from Settings.
        os.environ.update(local)
        env = {**local, **env}
    settings = Settings.from_env(env)
    return settings, settings.public_base_url


def _print(data: object) -> None:
    json.dump(data, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _printed(run: replays.Replay) -> Any:
    """A command that prints, as JSON, what `run` reports."""
    return lambda args, settings: _print(run(args, settings))


def _token_create(args: argparse.Namespace, settings: Settings) -> None:
    """The options are named after `TokenSpec`'s fields, the workspace by id or slug;
    `--role NAME [--locale de ...]` gives the token a role."""
    import dataclasses

    from content_service.identity.tokens import TokenSpec, issue_token

    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(TokenSpec)}
    if args.role is not None:
        values["role"] = _grant_of(args)
    _print(issue_token(TokenSpec(**values)))


def _comma_list(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.split(",") if part)


def _token_revoke(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity.tokens import revoke_token

    _print(revoke_token(args.token_id).to_json())


def _token_list(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity.tokens import list_tokens

    _print({"items": [t.to_json() for t in list_tokens()]})


def _user_create(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity.passwords import generate_password
    from content_service.identity.users import create_user, derived_role

    workspace_key, grant = _role_grant(args)
    grants = {workspace_key: (grant,)}
    generated = args.password is None and not sys.stdin.isatty()
    if args.password is not None:
        password = args.password
    elif generated:
        password = generate_password()
    else:
        password = getpass.getpass("Password (at least 10 characters): ")
    user = create_user(settings, args.email, derived_role(grants), password, grants=grants)
    _print({**user.to_json(), **({"password": password} if generated else {})})


# The roles `user create --role` took before custom roles, and the built-in role each is now.
_LEGACY_ROLES = {"admin": "administrator", "editor": "editor"}


def _role_grant(args: argparse.Namespace) -> tuple[str, RoleGrant]:
    """`--role NAME [--locale de ...] [--workspace W]` as (workspace key, grant); the
    workspace's slug is resolved, so grants are keyed by id whichever was typed."""
    from content_service.identity.roles import EVERY_WORKSPACE
    from content_service.identity.workspaces import resolve_workspace

    key = args.workspace
    if key != EVERY_WORKSPACE:
        key = resolve_workspace(key).id
    return key, _grant_of(args)


def _grant_of(args: argparse.Namespace) -> RoleGrant:
    """`--role NAME [--locale de ...]` as a grant."""
    from content_service.identity.roles import RoleGrant

    return RoleGrant(args.role, frozenset(args.locale) if args.locale else None)


def _user_grant(args: argparse.Namespace, settings: Settings) -> None:
    """Adds a role to what the user holds in the workspace (the same role again is replaced,
    with the locales given now)."""
    from content_service.audit.records import COMMAND_LINE
    from content_service.errors import NotFound
    from content_service.identity.users import normalise_email, set_grants, user_by_email

    key, grant = _role_grant(args)
    email = normalise_email(args.email)
    user = user_by_email(email)
    if user is None:
        raise NotFound(f"no user with the e-mail {email!r}")
    kept = tuple(g for g in user.grants.get(key, ()) if g.role != grant.role)
    _print(set_grants(user.id, key, (*kept, grant), by=COMMAND_LINE).to_json())


def _user_unlock(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity import sign_in_throttle

    sign_in_throttle.unlock(sign_in_throttle.account(args.email))
    cleared: dict[str, str] = {"email": args.email.strip().lower()}
    if args.address:
        sign_in_throttle.unlock(sign_in_throttle.address(args.address))
        cleared["address"] = args.address
    _print({"unlocked": cleared})


def _webhooks_seal(args: argparse.Namespace, settings: Settings) -> None:
    """Seals the secret and header values of every endpoint stored before sealing existed."""
    from content_service.webhooks import services

    store = services.endpoint_store(settings)
    counts = {"sealed": 0, "alreadySealed": 0, "changedMeanwhile": 0}
    for endpoint in store.all():
        if endpoint.sealed:
            counts["alreadySealed"] += 1
        elif store.reseal(endpoint):
            counts["sealed"] += 1
        else:
            counts["changedMeanwhile"] += 1
    _print(counts)


def _bootstrap(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity.bootstrap import bootstrap

    created = bootstrap(settings, settings.public_base_url)
    if created is None:
        raise SettingsError("this stack is already bootstrapped (workspace 'default' exists)")
    _print(created)


def _listen_target(args: argparse.Namespace) -> tuple[str, str, str]:
    """(API URL, admin e-mail, password): flags and `CONTENT_SERVICE_PASSWORD` first, then the
    deployed stack's outputs, then the local stack's bootstrap file; a prompt for the password
    when none is found and a terminal is attached."""
    local = Path(args.local_dir) / "bootstrap.json"
    bootstrap: dict[str, Any] = json.loads(local.read_text()) if local.exists() else {}
    api_url = args.api_url
    if not api_url and args.stack:
        api_url = _stack_environment(args.stack).get("PUBLIC_BASE_URL")
    api_url = api_url or bootstrap.get("baseUrl")
    email = (
        args.email
        or os.environ.get("CONTENT_SERVICE_EMAIL")
        or bootstrap.get("admin", {}).get("email")
    )
    password = os.environ.get("CONTENT_SERVICE_PASSWORD") or (
        bootstrap.get("admin", {}).get("password")
        if email == bootstrap.get("admin", {}).get("email")
        else None
    )
    if not api_url:
        raise SettingsError("no API to listen to: pass --api-url or --stack, or run `make run`")
    if not email:
        raise SettingsError("no administrator to sign in as: pass --email")
    if not password:
        if not sys.stdin.isatty():
            raise SettingsError("no password: set CONTENT_SERVICE_PASSWORD")
        password = getpass.getpass(f"Password for {email}: ")
    return api_url, email, password


def _listen(args: argparse.Namespace) -> int:
    from content_service.listen import ListenError, ListenOptions, listen, parse_events, split_list

    api_url, email, password = _listen_target(args)
    options = ListenOptions(
        api_url=api_url,
        email=email,
        password=password,
        forward_to=args.forward_to,
        events=parse_events(args.events),
        workspaces=split_list(args.workspace),
    )
    try:
        return listen(options)
    except ListenError as error:
        print(f"content-service: {error}", file=sys.stderr)
        return 1


def _receive(args: argparse.Namespace) -> int:
    from content_service.receiver import ReceiverOptions, serve

    return serve(
        ReceiverOptions(port=args.port, host=args.host, secret=args.secret, count=args.count)
    )


def _lists_reindex(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.content.lists import reindex_stored
    from content_service.identity.workspaces import resolve_workspace

    workspace_id = resolve_workspace(args.workspace).id if args.workspace else None
    _print({"indexed": reindex_stored(workspace_id)})


def _links_reindex(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.content.relations import reindex_links
    from content_service.identity.workspaces import resolve_workspace

    workspace_id = resolve_workspace(args.workspace).id if args.workspace else None
    _print(reindex_links(workspace_id).to_json())


def _assets_upload(args: argparse.Namespace, settings: Settings) -> None:
    """One JSON line per file (the asset, or `{file, error}`); refused files fail the run."""
    from content_service.assets.bulk import upload_files
    from content_service.identity.workspaces import resolve_workspace

    workspace_id = resolve_workspace(args.workspace).id
    failed = 0
    for answer in upload_files(workspace_id, [Path(p) for p in args.files]):
        failed += "error" in answer
        print(json.dumps(answer), flush=True)
    if failed:
        raise SettingsError(f"{failed} of {len(args.files)} file(s) were not uploaded")


def _audit_export(args: argparse.Namespace, settings: Settings) -> None:
    """Every record of the workspace in the window, newest first, one JSON object a line."""
    from content_service.audit.log import AuditQuery, every
    from content_service.audit.records import SERVICE_LOG
    from content_service.identity.workspaces import resolve_workspace

    log = SERVICE_LOG if args.service else resolve_workspace(args.workspace).id
    query = AuditQuery(log, since=args.since, until=args.until)
    for record in every(query):
        sys.stdout.write(json.dumps(record, separators=(",", ":"), default=str) + "\n")


def _audit_commands(commands: Any) -> None:
    audit = commands.add_parser("audit", help="the audit log").add_subparsers(
        dest="action", required=True
    )
    export = audit.add_parser("export", help="write the audit log as JSON Lines to stdout")
    export.add_argument("--since", help="ISO 8601 date-time, inclusive (default: the first)")
    export.add_argument("--until", help="ISO 8601 date-time, inclusive (default: now)")
    export.add_argument("--workspace", default="default", help="workspace id or slug")
    export.add_argument(
        "--service",
        action="store_true",
        help="the records of no workspace: users, sign-ins, webhook endpoints",
    )
    export.set_defaults(run=_audit_export)


def _assets_commands(commands: Any) -> None:
    assets = commands.add_parser("assets", help="assets").add_subparsers(
        dest="action", required=True
    )
    upload = assets.add_parser(
        "upload", help="make files assets (drafts): presigned uploads to S3, then completion"
    )
    upload.add_argument("files", nargs="+", metavar="FILE")
    upload.add_argument("--workspace", default="default", help="workspace id or slug")
    upload.set_defaults(run=_assets_upload)


def _role_arguments(parser: argparse.ArgumentParser, default: str | None) -> None:
    """`--role`, `--locale` and `--workspace` of `user create` and `user grant`."""
    parser.add_argument(
        "--role",
        type=lambda name: _LEGACY_ROLES.get(name, name),
        default=default,
        required=default is None,
        help="a role id: administrator, editor, author, translator, viewer or a custom role's "
        "role-... (admin and editor as before)",
    )
    parser.add_argument(
        "--locale",
        action="append",
        help="a locale the role is limited to (repeat for more; default: every locale)",
    )
    parser.add_argument(
        "--workspace",
        default="*",
        help="workspace id or slug the role holds in (default: * for every workspace; "
        "administrator only there)",
    )


def _identity_commands(commands: Any) -> None:
    """`token create|revoke|list` and `user create|grant|unlock`."""
    token = commands.add_parser("token", help="API tokens").add_subparsers(
        dest="action", required=True
    )
    create = token.add_parser("create", help="mint a token (printed once)")
    create.add_argument("--name", required=True)
    create.add_argument(
        "--workspace", dest="workspace_id", default="default", help="workspace id or slug"
    )
    create.add_argument("--access", choices=("read", "full"), default="read")
    create.add_argument(
        "--content-types", type=_comma_list, default=("*",), help="comma list of type names, or *"
    )
    create.add_argument("--scopes", type=_comma_list, help="comma list: content:read,content:write")
    create.add_argument(
        "--audiences", type=_comma_list, default=(), help="comma list of audience names"
    )
    create.add_argument(
        "--rate-limit",
        type=int,
        help="requests per second (0: no limit); default: the service's CONTENT_RATE_LIMIT",
    )
    create.add_argument(
        "--persisted-only",
        action="store_true",
        help="run only GraphQL documents a full token registered",
    )
    create.add_argument(
        "--role", help="a role the token acts as within its grant (not administrator)"
    )
    create.add_argument(
        "--locale", action="append", help="a locale the token's role is limited to (repeat)"
    )
    create.set_defaults(run=_token_create)
    revoke = token.add_parser("revoke", help="revoke a token by id")
    revoke.add_argument("token_id")
    revoke.set_defaults(run=_token_revoke)
    token.add_parser("list", help="list tokens (no secrets)").set_defaults(run=_token_list)

    user = commands.add_parser("user", help="admin UI users").add_subparsers(
        dest="action", required=True
    )
    user_create = user.add_parser("create", help="create a user")
    user_create.add_argument("--email", required=True)
    _role_arguments(user_create, default="editor")
    user_create.add_argument(
        "--password", help="the password; prompted for, or generated and printed when piped"
    )
    user_create.set_defaults(run=_user_create)
    user_grant = user.add_parser("grant", help="give a user a role in a workspace (or all)")
    user_grant.add_argument("--email", required=True)
    _role_arguments(user_grant, default=None)
    user_grant.set_defaults(run=_user_grant)
    user_unlock = user.add_parser(
        "unlock", help="clear the sign-in failures of an account (and of a client address)"
    )
    user_unlock.add_argument("--email", required=True, help="the e-mail address signed in with")
    user_unlock.add_argument("--address", help="a client address to clear as well")
    user_unlock.set_defaults(run=_user_unlock)


def _webhook_commands(commands: Any) -> None:
    """Operator commands on stored webhook data (sealing secrets) and the failure queues'
    replays (the webhooks' two, the edge purge's)."""
    webhooks = commands.add_parser("webhooks", help="webhook endpoints").add_subparsers(
        dest="action", required=True
    )
    webhooks.add_parser(
        "seal", help="seal the secrets and header values of endpoints stored in clear (once)"
    ).set_defaults(run=_webhooks_seal)

    replay = commands.add_parser(
        "replay", help="drive a failure queue's messages through the code that failed on them"
    ).add_subparsers(dest="action", required=True)
    for name, run, what in replays.REPLAYS:
        queue = replay.add_parser(name, help=f"replay {what} (a dry run unless --execute)")
        queue.add_argument(
            "--execute", action="store_true", help="do it and delete each handled message"
        )
        queue.add_argument("--limit", type=int, default=1000, help="messages to read at most")
        queue.set_defaults(run=_printed(run))


def _receiver_commands(commands: Any) -> None:
    """Commands that receive webhook deliveries on this machine."""
    listen = commands.add_parser(
        "listen", help="receive webhook deliveries here and forward them to a local URL"
    )
    listen.add_argument("--forward-to", required=True, help="the local URL to POST each one to")
    listen.add_argument(
        "--events", action="append", help="event kinds, comma-separated (default: all)"
    )
    listen.add_argument(
        "--workspace", help="workspace ids or slugs, comma-separated (default: all)"
    )
    listen.add_argument(
        "--api-url", help="the API's base URL (default: --stack's or the local one)"
    )
    listen.add_argument("--email", help="the administrator to sign in as")
    listen.set_defaults(over_api=_listen)
    receive = commands.add_parser(
        "receive", help="a webhook receiver on this machine that prints each delivery"
    )
    receive.add_argument("--port", type=int, default=9000, help="port to listen on (9000)")
    receive.add_argument("--host", default="127.0.0.1", help="address to listen on")
    receive.add_argument("--secret", help="the endpoint's whsec_ secret, to check signatures")
    receive.add_argument("--count", type=int, help="exit after this many deliveries")
    receive.set_defaults(over_api=_receive)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="content-service", description=__doc__)
    parser.add_argument("--stack", help="a deployed CloudFormation stack to act on")
    parser.add_argument(
        "--local-dir",
        default=os.environ.get("LOCAL_DIR", ".local"),
        help="the local stack's state folder (default .local)",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    _identity_commands(commands)
    commands.add_parser(
        "bootstrap", help="create the first workspace, admin and tokens of a fresh stack"
    ).set_defaults(run=_bootstrap)

    _webhook_commands(commands)
    _receiver_commands(commands)
    _assets_commands(commands)
    _audit_commands(commands)

    lists = commands.add_parser("lists", help="list indexes").add_subparsers(
        dest="action", required=True
    )
    reindex = lists.add_parser(
        "reindex", help="index every stored entry (once, after upgrading to list indexes)"
    )
    reindex.add_argument("--workspace", help="workspace id or slug (default: every workspace)")
    reindex.set_defaults(run=_lists_reindex)

    links = commands.add_parser("links", help="the reverse-link index").add_subparsers(
        dest="action", required=True
    )
    rebuild = links.add_parser(
        "reindex",
        help="give every entry's links their reverse items and delete stale ones (once after "
        "upgrading; again any time: it resumes, and writes nothing when all is in order)",
    )
    rebuild.add_argument("--workspace", help="workspace id or slug (default: every workspace)")
    rebuild.set_defaults(run=_links_reindex)
    return parser


# 128 + SIGPIPE, what a shell reports for a program whose reader went away.
CLOSED_PIPE_EXIT = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command. A reader that goes away (`content-service token list | head`) ends
    the output quietly, as with any Unix tool, instead of a BrokenPipeError traceback."""
    try:
        code = _run(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would flush stdout again at exit and fail the same way: point it at nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return CLOSED_PIPE_EXIT
    return code


def _run(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "over_api", None) is not None:
        try:
            code: int = args.over_api(args)
        except SettingsError as error:
            print(f"content-service: {error}", file=sys.stderr)
            return 1
        return code
    try:
        settings, _ = resolve_settings(args)
        from content_service.runtime import configure

        configure(settings)
        args.run(args, settings)
    except (ServiceError, SettingsError) as error:
        message = error.message if isinstance(error, ServiceError) else str(error)
        print(f"content-service: {message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
