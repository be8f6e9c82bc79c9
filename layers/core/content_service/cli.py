"""`content-service`: tokens, users, the first bootstrap and list indexes, against the local
stack or AWS.

Where the tables are: environment variables when set (as in Lambda); otherwise `--stack NAME`
reads a deployed stack's outputs; otherwise the running local stack's `.local/stack.json`.
Results are printed as JSON so scripts can read them; a token or password is printed once.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from content_service.errors import ServiceError
from content_service.settings import Settings, SettingsError

_TABLE_OUTPUTS = {
    "ContentTableName": "CONTENT_TABLE",
    "SchemaTableName": "SCHEMA_TABLE",
    "EventsTableName": "EVENTS_TABLE",
    "EndpointsTableName": "ENDPOINTS_TABLE",
    "DeliveriesTableName": "DELIVERIES_TABLE",
    "DeliveryQueueUrl": "DELIVERY_QUEUE_URL",
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


def _token_create(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity.tokens import TokenSpec, create_token
    from content_service.identity.workspaces import resolve_workspace

    workspace = resolve_workspace(args.workspace)
    token, info = create_token(
        TokenSpec(
            name=args.name,
            workspace_id=workspace.id,
            access=args.access,
            content_types=tuple(args.content_types.split(",")),
            scopes=tuple(args.scopes.split(",")) if args.scopes else None,
            audiences=tuple(a for a in (args.audiences or "").split(",") if a),
        )
    )
    _print({**info.to_json(), "token": token})


def _token_revoke(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity.tokens import revoke_token

    _print(revoke_token(args.token_id).to_json())


def _token_list(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity.tokens import list_tokens

    _print({"items": [t.to_json() for t in list_tokens()]})


def _user_create(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity.passwords import generate_password
    from content_service.identity.users import create_user

    generated = args.password is None and not sys.stdin.isatty()
    if args.password is not None:
        password = args.password
    elif generated:
        password = generate_password()
    else:
        password = getpass.getpass("Password (at least 10 characters): ")
    user = create_user(settings, args.email, args.role, password)
    _print({**user.to_json(), **({"password": password} if generated else {})})


def _bootstrap(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.identity.bootstrap import bootstrap

    created = bootstrap(settings, settings.public_base_url)
    if created is None:
        raise SettingsError("this stack is already bootstrapped (workspace 'default' exists)")
    _print(created)


def _lists_reindex(args: argparse.Namespace, settings: Settings) -> None:
    from content_service.content.list_jobs import reindex_stored
    from content_service.identity.workspaces import resolve_workspace

    workspace_id = resolve_workspace(args.workspace).id if args.workspace else None
    _print({"indexed": reindex_stored(workspace_id)})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="content-service", description=__doc__)
    parser.add_argument("--stack", help="a deployed CloudFormation stack to act on")
    parser.add_argument(
        "--local-dir",
        default=os.environ.get("LOCAL_DIR", ".local"),
        help="the local stack's state folder (default .local)",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    token = commands.add_parser("token", help="API tokens").add_subparsers(
        dest="action", required=True
    )
    create = token.add_parser("create", help="mint a token (printed once)")
    create.add_argument("--name", required=True)
    create.add_argument("--workspace", default="default", help="workspace id or slug")
    create.add_argument("--access", choices=("read", "full"), default="read")
    create.add_argument("--content-types", default="*", help="comma list of type names, or *")
    create.add_argument("--scopes", help="comma list: content:read,content:write")
    create.add_argument("--audiences", help="comma list of audience names")
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
    user_create.add_argument("--role", choices=("admin", "editor"), default="editor")
    user_create.add_argument(
        "--password", help="the password; prompted for, or generated and printed when piped"
    )
    user_create.set_defaults(run=_user_create)

    commands.add_parser(
        "bootstrap", help="create the first workspace, admin and tokens of a fresh stack"
    ).set_defaults(run=_bootstrap)

    lists = commands.add_parser("lists", help="list indexes").add_subparsers(
        dest="action", required=True
    )
    reindex = lists.add_parser(
        "reindex", help="index every stored entry (once, after upgrading to list indexes)"
    )
    reindex.add_argument("--workspace", help="workspace id or slug (default: every workspace)")
    reindex.set_defaults(run=_lists_reindex)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
