"""Creates the template's KMS keys, tables, queues and buckets in the emulator; resolves the
environment.

Physical names are the logical ids (optionally prefixed, so test modules sharing one
emulator process stay apart); a bucket's is the same in lower case, as S3 requires.
Provisioning is idempotent: a resource that already exists is left exactly as it is, so
running it twice, or against a restored emulator, is harmless.

The environment is `Globals.Function.Environment.Variables` merged with each function's own
variables, resolved: `!Ref Table` becomes the table name, `!Ref Queue` the queue URL, and
`!Ref Parameter` the parameter's value, where a variable the user already set (for example
`WEBHOOKS_TIMEOUT=5000 make run`) overrides the parameter default, as `--parameter-overrides`
would on deploy, and is checked against the parameter's bounds in the same way.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from infra.emulator import Emulator
from infra.intrinsics import Intrinsics
from infra.request_rules import IndexSchema, TableSchema
from infra.template_model import Resource, Template, TemplateError, scalar_str

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_kms import KMSClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient

TABLE_TYPE = "AWS::DynamoDB::Table"
QUEUE_TYPE = "AWS::SQS::Queue"
KEY_TYPE = "AWS::KMS::Key"
BUCKET_TYPE = "AWS::S3::Bucket"
FUNCTION_TYPE = "AWS::Serverless::Function"
DISTRIBUTION_TYPE = "AWS::CloudFront::Distribution"
DEFAULT_ACCOUNT_ID = "123456789012"
_PREFIX_PATTERN = re.compile(r"^[A-Za-z0-9_-]*$")
# CloudFormation property name -> SQS attribute name, where they differ only in being a string.
_QUEUE_ATTRIBUTES = (
    "DelaySeconds",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "ReceiveMessageWaitTimeSeconds",
    "VisibilityTimeout",
    "FifoQueue",
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
    "KmsMasterKeyId",
    "KmsDataKeyReusePeriodSeconds",
    "SqsManagedSseEnabled",
)
_QUEUE_JSON_ATTRIBUTES = ("RedrivePolicy", "RedriveAllowPolicy")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProvisionedTable:
    logical_id: str
    name: str
    arn: str
    stream_arn: str | None
    key_attributes: tuple[str, ...]  # the hash key, then the range key if any
    indexes: Mapping[str, IndexSchema] = field(default_factory=dict)

    def schema(self) -> TableSchema:
        """Its keys as the request check knows them (`infra.request_rules`)."""
        return TableSchema(self.key_attributes, dict(self.indexes))


@dataclass(frozen=True)
class ProvisionedQueue:
    logical_id: str
    name: str
    url: str
    arn: str


@dataclass(frozen=True)
class ProvisionedBucket:
    logical_id: str
    name: str

    @property
    def arn(self) -> str:
        return f"arn:aws:s3:::{self.name}"


@dataclass(frozen=True)
class ProvisionedKey:
    """A KMS key of the template, found again by its alias `alias/<prefix><logical id>`."""

    logical_id: str
    key_id: str
    arn: str
    alias: str


@dataclass(frozen=True)
class Provisioned:
    """What provisioning created, and the resolver that turns template values into them."""

    template: Template
    prefix: str
    region: str
    parameters: Mapping[str, str]
    tables: Mapping[str, ProvisionedTable]
    queues: Mapping[str, ProvisionedQueue]
    intrinsics: Intrinsics
    environment: Mapping[str, str]
    keys: Mapping[str, ProvisionedKey] = field(default_factory=dict)
    buckets: Mapping[str, ProvisionedBucket] = field(default_factory=dict)

    def queue_by_arn(self, arn: str) -> ProvisionedQueue:
        for queue in self.queues.values():
            if queue.arn == arn:
                return queue
        raise TemplateError(f"no provisioned queue has ARN {arn}")

    def table_by_stream_arn(self, arn: str) -> ProvisionedTable:
        for table in self.tables.values():
            if table.stream_arn == arn:
                return table
        raise TemplateError(f"no provisioned table has stream {arn}")


def physical_name(prefix: str, name: str) -> str:
    return f"{prefix}{name}"


def bucket_name(prefix: str, name: str) -> str:
    """S3 takes lower-case letters, digits, '-' and '.' only."""
    return physical_name(prefix, name).lower().replace("_", "-")


def parameter_values(template: Template, user_env: Mapping[str, str]) -> dict[str, str]:
    """Each parameter's value: its default, unless the user set a variable bound to it."""
    bound_names: dict[str, list[str]] = {}
    for variable, values in template.environment_bindings().items():
        for value in values:
            for referenced in _referenced_parameters(value):
                bound_names.setdefault(referenced, []).append(variable)
    result: dict[str, str] = {}
    for name, parameter in template.parameters.items():
        chosen, source = parameter.default, "its default"
        for variable in bound_names.get(name, []):
            if user_env.get(variable, "").strip():
                chosen, source = user_env[variable].strip(), variable
                break
        if chosen is None:
            continue
        parameter.validate(chosen, source)
        result[name] = chosen
    return result


def _ensure_queues(
    sqs: SQSClient,
    prefix: str,
    queue_properties: Mapping[str, Mapping[str, Any]],
    static: Intrinsics,
) -> tuple[dict[str, ProvisionedQueue], list[str]]:
    """Every queue, without its redrive policy (its target may not exist yet), and the logical
    ids of those created now."""
    queues: dict[str, ProvisionedQueue] = {}
    created: list[str] = []
    for logical_id, properties in queue_properties.items():
        queue, is_new = _ensure_queue(
            sqs, prefix, logical_id, static.resolve(_without_redrive(properties))
        )
        queues[logical_id] = queue
        if is_new:
            created.append(logical_id)
    return queues, created


def _resource_attributes(
    early_attributes: Mapping[tuple[str, str], str],
    tables: Mapping[str, ProvisionedTable],
    queues: Mapping[str, ProvisionedQueue],
) -> dict[tuple[str, str], str]:
    """`Fn::GetAtt` values of the keys, roles, buckets, tables and queues."""
    attributes: dict[tuple[str, str], str] = dict(early_attributes)
    for table in tables.values():
        attributes[(table.logical_id, "Arn")] = table.arn
        if table.stream_arn:
            attributes[(table.logical_id, "StreamArn")] = table.stream_arn
    for queue in queues.values():
        attributes[(queue.logical_id, "Arn")] = queue.arn
        attributes[(queue.logical_id, "QueueName")] = queue.name
        attributes[(queue.logical_id, "QueueUrl")] = queue.url
    return attributes


def _pseudo_parameters(region: str, prefix: str) -> dict[str, str]:
    return {
        "AWS::Region": region,
        "AWS::AccountId": DEFAULT_ACCOUNT_ID,
        "AWS::Partition": "aws",
        "AWS::URLSuffix": "amazonaws.com",
        "AWS::StackName": f"{prefix}content-service-local",
    }


def _set_redrives(
    sqs: SQSClient,
    intrinsics: Intrinsics,
    created: Mapping[str, ProvisionedQueue],
    queue_properties: Mapping[str, Mapping[str, Any]],
) -> None:
    """Gives the queues created now their redrive policies."""
    for logical_id, queue in created.items():
        redrive = {
            key: json.dumps(intrinsics.resolve(queue_properties[logical_id][key]))
            for key in _QUEUE_JSON_ATTRIBUTES
            if key in queue_properties[logical_id]
        }
        if redrive:
            sqs.set_queue_attributes(QueueUrl=queue.url, Attributes=redrive)  # type: ignore[arg-type]


def _ensure_keys(kms: KMSClient, prefix: str, template: Template) -> dict[str, ProvisionedKey]:
    return {
        logical_id: _ensure_key(kms, prefix, logical_id, resource.properties)
        for logical_id, resource in template.resources_of_type(KEY_TYPE).items()
    }


def provision(
    emulator: Emulator,
    template: Template,
    *,
    prefix: str = "",
    user_env: Mapping[str, str] | None = None,
) -> Provisioned:
    """Creates every key, bucket, table and queue of `template` that does not exist yet."""
    if not _PREFIX_PATTERN.match(prefix):
        raise TemplateError(f"prefix {prefix!r} may only use letters, digits, '-' and '_'")
    user_env = {} if user_env is None else user_env
    parameters = parameter_values(template, user_env)
    pseudo = _pseudo_parameters(emulator.region, prefix)
    keys = _ensure_keys(emulator.kms(), prefix, template)
    buckets = _ensure_buckets(emulator.s3(), prefix, template)
    early_refs, early_attributes = _early_names(template, prefix, keys, buckets, emulator)
    _add_functions(template, prefix, emulator.region, early_refs, early_attributes)
    static = Intrinsics(
        parameters=parameters,
        conditions=template.conditions,
        refs=early_refs,
        attributes=early_attributes,
        pseudo=pseudo,
    )
    dynamodb = emulator.dynamodb()
    tables = {
        logical_id: _ensure_table(dynamodb, prefix, logical_id, static.resolve(dict(r.properties)))
        for logical_id, r in template.resources_of_type(TABLE_TYPE).items()
    }
    sqs = emulator.sqs()
    queue_properties = {
        logical_id: resource.properties
        for logical_id, resource in template.resources_of_type(QUEUE_TYPE).items()
    }
    queues, created = _ensure_queues(sqs, prefix, queue_properties, static)
    refs: dict[str, str] = {t.logical_id: t.name for t in tables.values()}
    refs.update({q.logical_id: q.url for q in queues.values()})
    refs.update(early_refs)
    intrinsics = Intrinsics(
        parameters=parameters,
        conditions=template.conditions,
        refs=refs,
        attributes=_resource_attributes(early_attributes, tables, queues),
        pseudo=pseudo,
    )
    # Redrive policies name other queues' ARNs, known only now that every queue exists.
    _set_redrives(sqs, intrinsics, {q: queues[q] for q in created}, queue_properties)

    return Provisioned(
        template=template,
        prefix=prefix,
        region=emulator.region,
        parameters=parameters,
        tables=tables,
        queues=queues,
        intrinsics=intrinsics,
        environment=resolve_environment(template, intrinsics, user_env),
        keys=keys,
        buckets=buckets,
    )


def _referenced_parameters(value: Any) -> list[str]:
    """The names a variable's value refers to: a plain `!Ref`, or one in a branch of an
    `!If` (`!If [Set, !Ref Parameter, <computed default>]`, a parameter whose empty default
    stands for a value the template computes)."""
    if not isinstance(value, dict):
        return []
    if set(value) == {"Ref"}:
        return [str(value["Ref"])]
    branches = value.get("Fn::If")
    if set(value) == {"Fn::If"} and isinstance(branches, list) and len(branches) == 3:
        return [name for branch in branches[1:] for name in _referenced_parameters(branch)]
    return []


def resolve_environment(
    template: Template, intrinsics: Intrinsics, user_env: Mapping[str, str]
) -> dict[str, str]:
    """The functions' environment as one flat dict of strings.

    A literal the user overrides in their environment (say `LOG_LEVEL=DEBUG`) keeps the user's
    value; references to resources always resolve to what was provisioned, so a stale
    `CONTENT_TABLE` in a shell cannot point the stack at a table that does not exist.
    """
    environment: dict[str, str] = {}
    for variable, values in template.environment_bindings().items():
        resolved = []
        for value in values:
            if not isinstance(value, dict) and user_env.get(variable, "").strip():
                resolved.append(user_env[variable])
            else:
                result = intrinsics.resolve(value)
                if result is not None:
                    resolved.append(scalar_str(result))
        if len(set(resolved)) > 1:
            log.warning(
                "%s has different values per function (%s); the local stack runs them all in "
                "one process and uses the last",
                variable,
                ", ".join(resolved),
            )
        if resolved:
            environment[variable] = resolved[-1]
    return environment


def _early_names(
    template: Template,
    prefix: str,
    keys: Mapping[str, ProvisionedKey],
    buckets: Mapping[str, ProvisionedBucket],
    emulator: Emulator,
) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """`Ref` and `Fn::GetAtt` values known before any table or queue: the keys', the
    buckets', the functions' roles' and the distributions'."""
    refs = {k.logical_id: k.key_id for k in keys.values()}
    refs.update({b.logical_id: b.name for b in buckets.values()})
    refs.update(_ensure_distributions(emulator.cloudfront(), prefix, template))
    attributes = _key_attributes(keys.values())
    attributes.update(_role_attributes(template, prefix))
    attributes.update({(b.logical_id, "Arn"): b.arn for b in buckets.values()})
    return refs, attributes


def _add_functions(
    template: Template,
    prefix: str,
    region: str,
    refs: dict[str, str],
    attributes: dict[tuple[str, str], str],
) -> None:
    """Each function's name (`Ref`) and ARN: the names the emulator answers invokes for
    (`infra.lambda_invoke`, registered by the local stack)."""
    for logical_id in template.resources_of_type(FUNCTION_TYPE):
        name = physical_name(prefix, logical_id)
        refs[logical_id] = name
        attributes[(logical_id, "Arn")] = (
            f"arn:aws:lambda:{region}:{DEFAULT_ACCOUNT_ID}:function:{name}"
        )


def _key_attributes(keys: Iterable[ProvisionedKey]) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for key in keys:
        found[(key.logical_id, "Arn")] = key.arn
        found[(key.logical_id, "KeyId")] = key.key_id
    return found


def _role_attributes(template: Template, prefix: str) -> dict[tuple[str, str], str]:
    """The ARNs of the roles SAM makes for functions without a `Role` (`<Function>Role`), as
    a key policy names them; nothing local assumes them."""
    return {
        (f"{logical_id}Role", "Arn"): (
            f"arn:aws:iam::{DEFAULT_ACCOUNT_ID}:role/{prefix}{logical_id}Role"
        )
        for logical_id, resource in template.resources_of_type(FUNCTION_TYPE).items()
        if "Role" not in resource.properties
    }


def _ensure_key(
    client: KMSClient, prefix: str, logical_id: str, properties: Mapping[str, Any]
) -> ProvisionedKey:
    """The key under `alias/<prefix><logical id>`, created when there is none. Its key policy
    is not given to the emulator (moto would half-apply it); the least-privilege test reads it
    from the template instead."""
    alias = f"alias/{prefix}{logical_id}"
    try:
        metadata = client.describe_key(KeyId=alias)["KeyMetadata"]
    except client.exceptions.NotFoundException:
        metadata = client.create_key(
            Description=str(properties.get("Description", logical_id)),
            KeyUsage=str(properties.get("KeyUsage", "ENCRYPT_DECRYPT")),  # type: ignore[arg-type]
            KeySpec=str(properties.get("KeySpec", "SYMMETRIC_DEFAULT")),  # type: ignore[arg-type]
        )["KeyMetadata"]
        client.create_alias(AliasName=alias, TargetKeyId=metadata["KeyId"])
        log.info("created KMS key %s", alias)
    return ProvisionedKey(logical_id, metadata["KeyId"], metadata["Arn"], alias)


def _ensure_distributions(client: Any, prefix: str, template: Template) -> dict[str, str]:
    """Each CloudFront distribution's id: one found by its name (its comment), else a minimal
    one the emulator makes. It serves nothing locally (the local edge is Varnish); the purge
    function invalidates it as it does the deployed one, so that path runs everywhere."""
    found: dict[str, str] = {}
    listed = client.list_distributions()["DistributionList"].get("Items", [])
    for logical_id in template.resources_of_type(DISTRIBUTION_TYPE):
        name = physical_name(prefix, logical_id)
        known = [d["Id"] for d in listed if d.get("Comment") == name]
        found[logical_id] = known[0] if known else new_distribution(client, name)
    return found


def new_distribution(client: Any, name: str) -> str:
    """A minimal distribution named `name` (its caller reference and comment): its id."""
    origin = {
        "Id": "api",
        "DomainName": "api.local.invalid",
        "CustomOriginConfig": {
            "HTTPPort": 80,
            "HTTPSPort": 443,
            "OriginProtocolPolicy": "https-only",
        },
    }
    config = {
        "CallerReference": name,
        "Comment": name,
        "Enabled": True,
        "Origins": {"Quantity": 1, "Items": [origin]},
        "DefaultCacheBehavior": {
            "TargetOriginId": "api",
            "ViewerProtocolPolicy": "redirect-to-https",
            "CachePolicyId": "658327ea-f89d-4fab-a63d-7e88639e58f6",
        },
    }
    return str(client.create_distribution(DistributionConfig=config)["Distribution"]["Id"])


def _ensure_buckets(
    client: S3Client, prefix: str, template: Template
) -> dict[str, ProvisionedBucket]:
    return {
        logical_id: _ensure_bucket(client, bucket_name(prefix, logical_id), logical_id, r)
        for logical_id, r in template.resources_of_type(BUCKET_TYPE).items()
    }


def _ensure_bucket(
    client: S3Client, name: str, logical_id: str, resource: Resource
) -> ProvisionedBucket:
    """The bucket, created when missing with its versioning and public access block, and its
    CORS rules (which the emulator applies). Its lifecycle rules, encryption and bucket policy
    are not given to the emulator, which would store them and apply none."""
    try:
        client.head_bucket(Bucket=name)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") not in ("404", "NoSuchBucket"):
            raise
        client.create_bucket(Bucket=name)
        properties = resource.properties
        versioning = properties.get("VersioningConfiguration") or {}
        if versioning.get("Status") == "Enabled":
            client.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
        block = properties.get("PublicAccessBlockConfiguration") or {}
        if block:
            client.put_public_access_block(
                Bucket=name,
                PublicAccessBlockConfiguration={
                    "BlockPublicAcls": bool(block.get("BlockPublicAcls")),
                    "IgnorePublicAcls": bool(block.get("IgnorePublicAcls")),
                    "BlockPublicPolicy": bool(block.get("BlockPublicPolicy")),
                    "RestrictPublicBuckets": bool(block.get("RestrictPublicBuckets")),
                },
            )
        log.info("created bucket %s", name)
    _apply_cors(client, name, resource.properties.get("CorsConfiguration"))
    return ProvisionedBucket(logical_id, name)


def _apply_cors(client: S3Client, name: str, cors: Mapping[str, Any] | None) -> None:
    """The template's CORS rules, put at every start (a bucket kept from an older template
    gets them too): browsers upload to the bucket from the admin pages' origin."""
    if not cors:
        return
    # CloudFormation's `MaxAge` is the S3 API's `MaxAgeSeconds`.
    names = {
        "AllowedMethods": "AllowedMethods",
        "AllowedOrigins": "AllowedOrigins",
        "AllowedHeaders": "AllowedHeaders",
        "MaxAge": "MaxAgeSeconds",
    }
    rules: list[Any] = [
        {api: rule[cfn] for cfn, api in names.items() if cfn in rule}
        for rule in cors.get("CorsRules", [])
    ]
    if _current_cors(client, name) != rules:
        client.put_bucket_cors(Bucket=name, CORSConfiguration={"CORSRules": rules})


def _current_cors(client: S3Client, name: str) -> list[Any]:
    """The bucket's CORS rules as they are (a restart that changes nothing writes nothing)."""
    try:
        found: list[Any] = list(client.get_bucket_cors(Bucket=name).get("CORSRules", []))
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "NoSuchCORSConfiguration":
            raise
        return []
    return [{k: v for k, v in rule.items() if k != "ID"} for rule in found]


def _without_redrive(properties: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in properties.items() if k not in _QUEUE_JSON_ATTRIBUTES}


def _ensure_table(
    client: DynamoDBClient, prefix: str, logical_id: str, properties: Mapping[str, Any]
) -> ProvisionedTable:
    name = physical_name(prefix, str(properties.get("TableName", logical_id)))
    try:
        description = client.describe_table(TableName=name)["Table"]
    except client.exceptions.ResourceNotFoundException:
        description = client.create_table(**_create_table_request(name, properties))[
            "TableDescription"
        ]
        ttl = properties.get("TimeToLiveSpecification")
        if ttl:
            client.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={
                    "AttributeName": str(ttl["AttributeName"]),
                    "Enabled": bool(ttl.get("Enabled", False)),
                },
            )
        log.info("created table %s", name)
    return ProvisionedTable(
        logical_id=logical_id,
        name=name,
        arn=description["TableArn"],
        stream_arn=description.get("LatestStreamArn"),
        key_attributes=_key_names(description["KeySchema"]),
        indexes={
            **{
                str(i["IndexName"]): IndexSchema(_key_names(i["KeySchema"]), True)
                for i in description.get("GlobalSecondaryIndexes", [])
            },
            **{
                str(i["IndexName"]): IndexSchema(_key_names(i["KeySchema"]), False)
                for i in description.get("LocalSecondaryIndexes", [])
            },
        },
    )


def _key_names(schema: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """Attribute names of a key schema, the hash key first."""
    return tuple(
        str(k["AttributeName"]) for k in sorted(schema, key=lambda k: k["KeyType"] != "HASH")
    )


def _create_table_request(name: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    """Translates `AWS::DynamoDB::Table` properties into a CreateTable request.

    Properties without local meaning (point-in-time recovery, encryption, contributor
    insights, Kinesis streaming) are ignored.
    """
    billing_mode = str(properties.get("BillingMode", "PROVISIONED"))
    provisioned = billing_mode == "PROVISIONED"
    request: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": properties["AttributeDefinitions"],
        "KeySchema": properties["KeySchema"],
        "BillingMode": billing_mode,
    }
    if provisioned:
        request["ProvisionedThroughput"] = _throughput(properties.get("ProvisionedThroughput"))
    gsis = []
    for index in properties.get("GlobalSecondaryIndexes", ()):
        gsi = {k: index[k] for k in ("IndexName", "KeySchema", "Projection")}
        if provisioned:
            gsi["ProvisionedThroughput"] = _throughput(index.get("ProvisionedThroughput"))
        gsis.append(gsi)
    if gsis:
        request["GlobalSecondaryIndexes"] = gsis
    lsis = [
        {k: index[k] for k in ("IndexName", "KeySchema", "Projection")}
        for index in properties.get("LocalSecondaryIndexes", ())
    ]
    if lsis:
        request["LocalSecondaryIndexes"] = lsis
    stream = properties.get("StreamSpecification")
    if stream:
        request["StreamSpecification"] = {
            "StreamEnabled": True,
            "StreamViewType": str(stream["StreamViewType"]),
        }
    if properties.get("Tags"):
        request["Tags"] = [
            {"Key": str(t["Key"]), "Value": scalar_str(t["Value"])} for t in properties["Tags"]
        ]
    return request


def _throughput(value: Mapping[str, Any] | None) -> dict[str, int]:
    value = value or {}
    return {
        "ReadCapacityUnits": int(value.get("ReadCapacityUnits", 5)),
        "WriteCapacityUnits": int(value.get("WriteCapacityUnits", 5)),
    }


def _ensure_queue(
    client: SQSClient, prefix: str, logical_id: str, properties: Mapping[str, Any]
) -> tuple[ProvisionedQueue, bool]:
    name = physical_name(prefix, str(properties.get("QueueName", logical_id)))
    if _is_true(properties.get("FifoQueue")) and not name.endswith(".fifo"):
        name += ".fifo"
    created = False
    try:
        url = client.get_queue_url(QueueName=name)["QueueUrl"]
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") not in (
            "AWS.SimpleQueueService.NonExistentQueue",
            "QueueDoesNotExist",
        ):
            raise
        attributes = {
            key: scalar_str(properties[key]) for key in _QUEUE_ATTRIBUTES if key in properties
        }
        url = client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]  # type: ignore[arg-type]
        created = True
        log.info("created queue %s", name)
    arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    return ProvisionedQueue(logical_id=logical_id, name=name, url=url, arn=arn), created


def _is_true(value: Any) -> bool:
    return scalar_str(value).lower() == "true"
