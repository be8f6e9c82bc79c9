"""What each recorded AWS call needs from IAM, and whether a function's policy in the template
grants it: the evaluation behind the least-privilege check (docs/decisions.md).

A call seen by the recording proxy (`infra.request_recorder`) is turned into the IAM actions and
resource ARNs AWS would authorise it against (a `TransactWriteItems` needs `PutItem`,
`UpdateItem`, `DeleteItem` or `ConditionCheckItem` on each item's table; a `SendMessageBatch`
needs `sqs:SendMessage`; a Query of an index needs the index's ARN; a KMS call carries its
encryption context; an S3 request, which has no target, is read from its method, path, query and
headers by `infra.s3_actions`; a Lambda invoke, which has none either, from its path). A
function's policy is the `Statement`s of its `Policies` in the template, and the statements of
the template's KMS key policies that name its role, resolved against what the local stack
provisioned; only explicit statements are read (a SAM policy template would hide what it
grants). Allow statements only, with IAM's `*` and `?` wildcards in actions (any case)
and resources, and `StringEquals` conditions.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from infra import s3_actions
from infra.provisioning import Provisioned
from infra.request_recorder import RecordedCall
from infra.template_model import TemplateError

_SERVICES = {
    "DynamoDB_20120810": "dynamodb",
    "AmazonSQS": "sqs",
    "AmazonSSM": "ssm",
    "TrentService": "kms",
}
# Batch operations authorised as their single-message action (SQS's API reference).
_SQS_ACTIONS = {
    "SendMessageBatch": "SendMessage",
    "DeleteMessageBatch": "DeleteMessage",
    "ChangeMessageVisibilityBatch": "ChangeMessageVisibility",
}
_TRANSACT_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
    "Get": "GetItem",
}

# Lambda's Invoke (`infra.lambda_invoke`): `lambda:InvokeFunction` on the function named.
_INVOKE_PATH = re.compile(r"^/2015-03-31/functions/([^/]+)/invocations$")
_INVALIDATION_PATH = re.compile(r"^/2020-05-31/distribution/([^/]+)/invalidation$")


Context = tuple[tuple[str, str], ...]


@dataclass(frozen=True, order=True)
class Permission:
    action: str
    resource: str
    context: Context = ()
    """The request's condition keys (a KMS call's encryption context, `kms:EncryptionContext:k`)."""

    def __str__(self) -> str:
        return f"{self.action} on {self.resource}"


@dataclass(frozen=True)
class Statement:
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: Context = ()
    """`StringEquals` conditions: each (key, value) must be among the request's."""

    def allows(self, permission: Permission) -> bool:
        action = permission.action.lower()
        return (
            any(fnmatch.fnmatchcase(action, a.lower()) for a in self.actions)
            and any(fnmatch.fnmatchcase(permission.resource, r) for r in self.resources)
            and all(condition in permission.context for condition in self.conditions)
        )

    def grants(self) -> list[Statement]:
        """One statement per action and resource, with the same conditions."""
        return [
            Statement((a,), (r,), self.conditions) for a in self.actions for r in self.resources
        ]


class Resources:
    """ARNs of the provisioned tables and queues, and of SSM parameters and KMS keys by name."""

    def __init__(self, provisioned: Provisioned, kms_keys: Mapping[str, str] | None = None):
        self.region = provisioned.region
        self.account = provisioned.intrinsics.pseudo["AWS::AccountId"]
        self.tables = {t.name: t.arn for t in provisioned.tables.values()}
        self.queues = {q.url: q.arn for q in provisioned.queues.values()}
        self.kms_keys = dict(kms_keys or {})

    def table(self, name: str, index: str | None = None) -> str:
        arn = self.tables.get(name, f"arn:aws:dynamodb:{self.region}:{self.account}:table/{name}")
        return f"{arn}/index/{index}" if index else arn

    def queue(self, url: str) -> str:
        return self.queues.get(url, f"arn:aws:sqs:{self.region}:{self.account}:{url}")

    def parameter(self, name: str) -> str:
        path = name if name.startswith("/") else "/" + name
        return f"arn:aws:ssm:{self.region}:{self.account}:parameter{path}"

    def function(self, name: str) -> str:
        """A Lambda function's ARN from its name or ARN (a qualifier dropped)."""
        if name.startswith("arn:"):
            return ":".join(name.split(":")[:7])
        return f"arn:aws:lambda:{self.region}:{self.account}:function:{name}"

    def key(self, key_id: str | None) -> str:
        """A KMS key's ARN from an id, an alias or an ARN (a Decrypt names none: the one key)."""
        if key_id and key_id.startswith("arn:"):
            return key_id
        if key_id in self.kms_keys:
            return self.kms_keys[key_id]
        if key_id is None and len(set(self.kms_keys.values())) == 1:
            return next(iter(self.kms_keys.values()))
        return f"arn:aws:kms:{self.region}:{self.account}:key/{key_id}"


def required(call: RecordedCall, resources: Resources) -> list[Permission]:
    """The IAM permissions AWS checks for one recorded call."""
    headers = dict(call.headers)
    invoked = _INVOKE_PATH.match(urlsplit(call.path).path)
    if not call.target and invoked:
        return [Permission("lambda:InvokeFunction", resources.function(unquote(invoked[1])))]
    invalidated = _INVALIDATION_PATH.match(urlsplit(call.path).path)
    if not call.target and invalidated and call.method == "POST":
        distribution = f"arn:aws:cloudfront::{resources.account}:distribution/{invalidated[1]}"
        return [Permission("cloudfront:CreateInvalidation", distribution)]
    if not call.target and s3_actions.is_s3(headers, call.path):
        found = s3_actions.required(call.method, call.path, headers, call.raw_request)
        return [Permission(action, resource) for action, resource in found]
    prefix, _, operation = call.target.partition(".")
    service = _SERVICES.get(prefix)
    if service is None:
        raise TemplateError(f"no IAM mapping for {call.target or call.operation!r}")
    body = call.body
    if service == "dynamodb":
        return _dynamodb(operation, body, resources)
    if service == "sqs":
        action = _SQS_ACTIONS.get(operation, operation)
        return [Permission(f"sqs:{action}", resources.queue(str(body.get("QueueUrl"))))]
    if service == "ssm":
        return [Permission(f"ssm:{operation}", resources.parameter(str(body.get("Name"))))]
    context = tuple(
        sorted(
            (f"kms:EncryptionContext:{k}", str(v))
            for k, v in body.get("EncryptionContext", {}).items()
        )
    )
    return [Permission(f"kms:{operation}", resources.key(body.get("KeyId")), context)]


def _dynamodb(operation: str, body: Mapping[str, Any], resources: Resources) -> list[Permission]:
    if operation in ("TransactWriteItems", "TransactGetItems"):
        found = []
        for item in body.get("TransactItems", []):
            ((kind, request),) = item.items()
            action = _TRANSACT_ACTIONS[kind]
            found.append(Permission(f"dynamodb:{action}", resources.table(request["TableName"])))
        return found
    if operation in ("BatchGetItem", "BatchWriteItem"):
        return [
            Permission(f"dynamodb:{operation}", resources.table(name))
            for name in body.get("RequestItems", {})
        ]
    table = resources.table(str(body.get("TableName")), body.get("IndexName"))
    return [Permission(f"dynamodb:{operation}", table)]


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise TemplateError(f"expected a string or a list of strings, not {value!r}")


def _conditions(raw: Mapping[str, Any], where: str) -> Context:
    conditions = raw.get("Condition") or {}
    if set(conditions) - {"StringEquals"}:
        raise TemplateError(f"{where}: only StringEquals conditions are checked: {conditions!r}")
    return tuple(sorted((k, str(v)) for k, v in conditions.get("StringEquals", {}).items()))


def _statement(raw: Mapping[str, Any], where: str, resources: tuple[str, ...] | None) -> Statement:
    if raw.get("Effect") != "Allow" or "NotAction" in raw or "NotResource" in raw:
        raise TemplateError(f"{where}: only Allow statements are checked: {raw!r}")
    return Statement(
        _strings(raw["Action"]),
        resources if resources is not None else _strings(raw["Resource"]),
        _conditions(raw, where),
    )


def function_policy(provisioned: Provisioned, logical_id: str) -> list[Statement]:
    """What a function's role may do: the Allow statements of its `Policies`, and those of the
    template's KMS key policies that name its role (in one account, a key policy alone grants);
    resolved. Anything this evaluation cannot read is refused."""
    resource = provisioned.template.body["Resources"][logical_id]
    # A conditional statement (`Fn::If` ... `AWS::NoValue`) counts as this stack's parameters
    # decide; tests/unit/test_template_grants.py reads the conditional ones as written.
    policies = provisioned.intrinsics.resolve(resource.get("Properties", {}).get("Policies", []))
    statements: list[Statement] = []
    for policy in policies:
        if not isinstance(policy, dict) or set(policy) != {"Statement"}:
            raise TemplateError(
                f"{logical_id}: only explicit Statement policies can be checked, not {policy!r}"
            )
        for raw in provisioned.intrinsics.resolve(policy["Statement"]):
            statements.append(_statement(raw, logical_id, None))
    role = provisioned.intrinsics.resolve({"Fn::GetAtt": [f"{logical_id}Role", "Arn"]})
    for key in provisioned.keys.values():
        body = provisioned.template.body["Resources"][key.logical_id]["Properties"]
        for raw in provisioned.intrinsics.resolve(body["KeyPolicy"]["Statement"]):
            principal = (raw.get("Principal") or {}).get("AWS")
            if role in ((principal,) if isinstance(principal, str) else tuple(principal or ())):
                statements.append(_statement(raw, key.logical_id, (key.arn,)))
    return statements


def refused(statements: Sequence[Statement], needed: Iterable[Permission]) -> list[Permission]:
    """The permissions no statement allows (sorted, each once)."""
    return sorted({p for p in needed if not any(s.allows(p) for s in statements)})


def unused(statements: Sequence[Statement], needed: Iterable[Permission]) -> list[Permission]:
    """What the statements grant that no needed permission used (a wildcard grant counts as
    used when something matched it)."""
    wanted = set(needed)
    return sorted(
        Permission(grant.actions[0], grant.resources[0])
        for statement in statements
        for grant in statement.grants()
        if not any(grant.allows(p) for p in wanted)
    )


_ARN_NAME = re.compile(r"^arn:aws:[a-z0-9-]+:[a-z0-9-]*:\d*:(.*)$")


def short(resource: str) -> str:
    """`table/Name/index/byX` for an ARN: what a report shows."""
    match = _ARN_NAME.match(resource)
    return match.group(1) if match else resource
