"""Provisioning from template.yaml into a real moto server, checked against the template."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from content_service.settings import Settings
from infra.emulator import Emulator, EmulatorError
from infra.intrinsics import Intrinsics
from infra.provisioning import provision
from infra.template_model import Template, TemplateError, load_yaml


@pytest.fixture(scope="module")
def template() -> Template:
    return Template.load()


def _key_schema(schema: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    return [(k["AttributeName"], k["KeyType"]) for k in schema]


def _projection(projection: Mapping[str, Any]) -> tuple[str, list[str]]:
    return projection["ProjectionType"], sorted(projection.get("NonKeyAttributes", []))


def test_short_tags_load_into_long_forms() -> None:
    body = load_yaml(
        """
        a: !Ref Thing
        b: !GetAtt Table.StreamArn
        c: !GetAtt [Queue, Arn]
        d: !Sub "arn:${AWS::Partition}:x:${Name}"
        e: !If [Cond, !Ref A, !Ref "AWS::NoValue"]
        f: !Not [!Equals [!Ref P, 0]]
        g: !Select [0, !Split [",", "x,y"]]
        h: !Join ["-", [a, b]]
        i: !Condition Other
        """
    )
    assert body == {
        "a": {"Ref": "Thing"},
        "b": {"Fn::GetAtt": ["Table", "StreamArn"]},
        "c": {"Fn::GetAtt": ["Queue", "Arn"]},
        "d": {"Fn::Sub": "arn:${AWS::Partition}:x:${Name}"},
        "e": {"Fn::If": ["Cond", {"Ref": "A"}, {"Ref": "AWS::NoValue"}]},
        "f": {"Fn::Not": [{"Fn::Equals": [{"Ref": "P"}, 0]}]},
        "g": {"Fn::Select": [0, {"Fn::Split": [",", "x,y"]}]},
        "h": {"Fn::Join": ["-", ["a", "b"]]},
        "i": {"Condition": "Other"},
    }


def test_every_table_is_created_as_the_template_defines_it(
    emulator: Emulator, template: Template
) -> None:
    provisioned = provision(emulator, template, prefix="prov-tables-")
    client = emulator.dynamodb()
    tables = template.resources_of_type("AWS::DynamoDB::Table")
    assert set(provisioned.tables) == set(tables)
    for logical_id, resource in tables.items():
        spec = resource.properties
        described = client.describe_table(TableName=f"prov-tables-{logical_id}")["Table"]
        assert _key_schema(described["KeySchema"]) == _key_schema(spec["KeySchema"])
        assert sorted(
            (a["AttributeName"], a["AttributeType"]) for a in described["AttributeDefinitions"]
        ) == sorted((a["AttributeName"], a["AttributeType"]) for a in spec["AttributeDefinitions"])
        assert described["BillingModeSummary"]["BillingMode"] == spec["BillingMode"]
        expected_indexes = {
            gsi["IndexName"]: (_key_schema(gsi["KeySchema"]), _projection(gsi["Projection"]))
            for gsi in spec.get("GlobalSecondaryIndexes", [])
        }
        actual_indexes = {
            gsi["IndexName"]: (_key_schema(gsi["KeySchema"]), _projection(gsi["Projection"]))
            for gsi in described.get("GlobalSecondaryIndexes", [])
        }
        assert actual_indexes == expected_indexes, logical_id
        if "StreamSpecification" in spec:
            assert described["StreamSpecification"] == {
                "StreamEnabled": True,
                "StreamViewType": spec["StreamSpecification"]["StreamViewType"],
            }
            assert described["LatestStreamArn"] == provisioned.tables[logical_id].stream_arn
        else:
            assert provisioned.tables[logical_id].stream_arn is None
        ttl = client.describe_time_to_live(TableName=f"prov-tables-{logical_id}")
        if "TimeToLiveSpecification" in spec:
            assert ttl["TimeToLiveDescription"] == {
                "TimeToLiveStatus": "ENABLED",
                "AttributeName": spec["TimeToLiveSpecification"]["AttributeName"],
            }
        else:
            assert ttl["TimeToLiveDescription"]["TimeToLiveStatus"] == "DISABLED"


def test_every_queue_is_created_with_its_attributes_and_redrive(
    emulator: Emulator, template: Template
) -> None:
    provisioned = provision(emulator, template, prefix="prov-queues-")
    client = emulator.sqs()
    queues = template.resources_of_type("AWS::SQS::Queue")
    assert set(provisioned.queues) == set(queues)
    for logical_id, resource in queues.items():
        spec = resource.properties
        url = client.get_queue_url(QueueName=f"prov-queues-{logical_id}")["QueueUrl"]
        assert provisioned.queues[logical_id].url == url
        attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        assert attributes["QueueArn"] == provisioned.queues[logical_id].arn
        for name in ("VisibilityTimeout", "MessageRetentionPeriod"):
            if name in spec:
                assert attributes[name] == str(spec[name]), (logical_id, name)
        if "RedrivePolicy" in spec:
            redrive = json.loads(attributes["RedrivePolicy"])
            target = spec["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
            assert redrive["deadLetterTargetArn"] == provisioned.queues[target].arn
            assert int(redrive["maxReceiveCount"]) == spec["RedrivePolicy"]["maxReceiveCount"]
        else:
            assert "RedrivePolicy" not in attributes


def test_the_assets_bucket_is_created_versioned_and_private(
    emulator: Emulator, template: Template
) -> None:
    provisioned = provision(emulator, template, prefix="Prov_Bucket-")
    bucket = provisioned.buckets["AssetsBucket"]
    # S3 takes no capitals or underscores: the prefixed logical id, in S3's alphabet.
    assert bucket.name == "prov-bucket-assetsbucket"
    assert bucket.arn == "arn:aws:s3:::prov-bucket-assetsbucket"
    s3 = emulator.s3()
    assert s3.get_bucket_versioning(Bucket=bucket.name)["Status"] == "Enabled"
    block = s3.get_public_access_block(Bucket=bucket.name)["PublicAccessBlockConfiguration"]
    assert block == dict.fromkeys(
        ("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets"), True
    )
    assert provisioned.environment["ASSETS_BUCKET"] == bucket.name
    assert provisioned.environment["ASSETS_MAX_BYTES"] == "104857600"
    grant = provisioned.intrinsics.resolve({"Fn::Sub": "${AssetsBucket.Arn}/uploads/*"})
    assert grant == "arn:aws:s3:::prov-bucket-assetsbucket/uploads/*"
    settings = Settings.from_env({**emulator.aws_environment(), **provisioned.environment})
    assert (settings.assets_bucket, settings.assets_max_bytes) == (bucket.name, 104_857_600)
    s3.put_object(Bucket=bucket.name, Key="uploads/kept", Body=b"x")
    assert provision(emulator, template, prefix="Prov_Bucket-").buckets == provisioned.buckets
    assert s3.get_object(Bucket=bucket.name, Key="uploads/kept")["Body"].read() == b"x"


def test_a_user_value_outside_the_upload_cap_is_refused(
    emulator: Emulator, template: Template
) -> None:
    for outside in ("0", "5368709121"):
        with pytest.raises(TemplateError, match="ASSETS_MAX_BYTES"):
            provision(
                emulator, template, prefix="prov-cap-", user_env={"ASSETS_MAX_BYTES": outside}
            )
    provisioned = provision(
        emulator, template, prefix="prov-cap-", user_env={"ASSETS_MAX_BYTES": "1"}
    )
    assert provisioned.environment["ASSETS_MAX_BYTES"] == "1"


def test_environment_resolves_every_reference(emulator: Emulator, template: Template) -> None:
    provisioned = provision(emulator, template, prefix="prov-env-", user_env={})
    env = provisioned.environment
    assert set(template.globals_environment) <= set(env)
    assert env["CONTENT_TABLE"] == "prov-env-ContentTable"
    assert env["SCHEMA_TABLE"] == "prov-env-SchemaTable"
    assert env["EVENTS_TABLE"] == "prov-env-EventsTable"
    assert env["ENDPOINTS_TABLE"] == "prov-env-EndpointsTable"
    assert env["DELIVERIES_TABLE"] == "prov-env-DeliveriesTable"
    assert env["DELIVERY_QUEUE_URL"] == provisioned.queues["DeliveryQueue"].url
    assert env["DELIVERY_QUEUE_URL"].startswith(emulator.endpoint_url)
    assert env["WEBHOOKS_TIMEOUT"] == "10000"
    assert env["WEBHOOKS_DELIVERY_INTERVAL"] == "2000"
    assert env["WEBHOOKS_ALLOW_INSECURE_URLS"] == "false"
    assert env["SESSION_KEY_PARAMETER"] == "/content-service/session-key"
    assert all(isinstance(v, str) for v in env.values())
    settings = Settings.from_env({**emulator.aws_environment(), **env})
    assert settings.tables.events == "prov-env-EventsTable"
    assert settings.aws_endpoint_url == emulator.endpoint_url


def test_a_variable_the_user_set_wins_over_the_parameter_default(
    emulator: Emulator, template: Template
) -> None:
    provisioned = provision(
        emulator,
        template,
        prefix="prov-user-",
        user_env={"WEBHOOKS_TIMEOUT": "5000", "LOG_LEVEL": "DEBUG", "CONTENT_TABLE": "stale"},
    )
    assert provisioned.parameters["WebhooksTimeout"] == "5000"
    assert provisioned.environment["WEBHOOKS_TIMEOUT"] == "5000"
    assert Settings.from_env(provisioned.environment).webhooks.timeout_ms == 5000
    assert provisioned.environment["LOG_LEVEL"] == "DEBUG"
    # A resource reference is never taken from the user's environment.
    assert provisioned.environment["CONTENT_TABLE"] == "prov-user-ContentTable"


def test_content_cache_seconds_is_a_day_with_the_edge_on_60_without_and_the_user_s_choice_wins(
    emulator: Emulator, template: Template
) -> None:
    """`ContentCacheSeconds` empty stands for the template's computed default (the edge's purge
    drops what a change alters, so answers keep a day there); a value the user sets in
    `CONTENT_CACHE_SECONDS` reaches the parameter through the `!If` as through a plain `!Ref`."""
    default = provision(emulator, template, prefix="prov-cache-", user_env={})
    assert default.parameters["EdgeEnabled"] == "true"
    assert default.environment["CONTENT_CACHE_SECONDS"] == "86400"
    value = template.functions["ApiFunction"].environment["CONTENT_CACHE_SECONDS"]
    edge_off = Intrinsics(
        parameters={**default.parameters, "EdgeEnabled": "false"},
        conditions=template.conditions,
        refs={},
        attributes={},
        pseudo={},
    )
    assert edge_off.resolve(value) == "60"
    chosen = provision(
        emulator, template, prefix="prov-cache-", user_env={"CONTENT_CACHE_SECONDS": "5"}
    )
    assert chosen.environment["CONTENT_CACHE_SECONDS"] == "5"
    with pytest.raises(TemplateError, match="CONTENT_CACHE_SECONDS"):
        provision(
            emulator, template, prefix="prov-cache-", user_env={"CONTENT_CACHE_SECONDS": "1m"}
        )


def test_a_user_value_outside_the_parameter_bounds_is_refused(
    emulator: Emulator, template: Template
) -> None:
    with pytest.raises(TemplateError, match="WEBHOOKS_TIMEOUT"):
        provision(emulator, template, prefix="prov-bad-", user_env={"WEBHOOKS_TIMEOUT": "50000"})
    with pytest.raises(TemplateError, match="WEBHOOKS_ALLOW_INSECURE_URLS"):
        provision(
            emulator, template, prefix="prov-bad-", user_env={"WEBHOOKS_ALLOW_INSECURE_URLS": "y"}
        )


def test_conditions_follow_the_effective_parameters(emulator: Emulator, template: Template) -> None:
    default = provision(emulator, template, prefix="prov-cond-", user_env={})
    assert default.intrinsics.condition("DeliveryEnabled") is True
    off = provision(
        emulator, template, prefix="prov-cond-", user_env={"WEBHOOKS_DELIVERY_INTERVAL": "0"}
    )
    assert off.intrinsics.condition("DeliveryEnabled") is False
    delivery_event = template.functions["DeliveryFunction"].events["Deliveries"]
    assert off.intrinsics.resolve(delivery_event.properties["Enabled"]) is False


def test_provisioning_twice_is_harmless(emulator: Emulator, template: Template) -> None:
    first = provision(emulator, template, prefix="prov-twice-")
    client = emulator.dynamodb()
    table = first.tables["ContentTable"].name
    client.put_item(TableName=table, Item={"pk": {"S": "a"}, "sk": {"S": "b"}})
    emulator.sqs().send_message(QueueUrl=first.queues["DeliveryQueue"].url, MessageBody="x")

    second = provision(emulator, template, prefix="prov-twice-")

    assert second.tables == first.tables
    assert second.queues == first.queues
    assert second.environment == first.environment
    assert client.get_item(TableName=table, Key={"pk": {"S": "a"}, "sk": {"S": "b"}})["Item"]
    attributes = emulator.sqs().get_queue_attributes(
        QueueUrl=second.queues["DeliveryQueue"].url, AttributeNames=["All"]
    )["Attributes"]
    assert attributes["ApproximateNumberOfMessages"] == "1"
    assert "RedrivePolicy" in attributes


def test_a_taken_emulator_port_fails_fast(emulator: Emulator) -> None:
    with pytest.raises(EmulatorError, match="MOTO_PORT"):
        Emulator(port=emulator.port).start()
