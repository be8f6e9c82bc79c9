"""The template's conditional grants for the webhook features, scoped: PutEvents on the
allow-listed buses only (and nothing without a list), Publish on the alarm topic only; and the
assets bucket's name and its S3 grants, the API's alone, on the upload and file prefixes only;
the API's one invoke, of the media function.
Every other unconditional statement is proven by tests/integration/test_least_privilege.py."""

from __future__ import annotations

from typing import Any

import pytest

from infra.template_model import Template

BUSES = {"Fn::Split": [",", {"Ref": "WebhooksEventBridgeBuses"}]}


@pytest.fixture(scope="module")
def template() -> Template:
    return Template.load()


def policies(template: Template, function: str) -> list[Any]:
    resource = template.resources_of_type("AWS::Serverless::Function")[function]
    found: list[Any] = list(resource.properties.get("Policies", []))
    return found


def statements(template: Template, function: str) -> list[dict[str, Any]]:
    """The inline statements of a function's policies, with the condition each hangs on."""
    found = []
    for policy in policies(template, function):
        condition = None
        if isinstance(policy, dict) and "Fn::If" in policy:
            condition, policy, otherwise = policy["Fn::If"]
            assert otherwise == {"Ref": "AWS::NoValue"}
        if isinstance(policy, dict) and "Statement" in policy:
            found += [{**statement, "condition": condition} for statement in policy["Statement"]]
    return found


def actions(template: Template, function: str, action: str) -> list[dict[str, Any]]:
    return [s for s in statements(template, function) if s["Action"] == action]


def test_put_events_only_on_the_allow_listed_buses_and_only_with_a_list(
    template: Template,
) -> None:
    for function in ("DeliveryFunction", "ApiFunction"):
        (grant,) = actions(template, function, "events:PutEvents")
        assert grant["Resource"] == BUSES
        assert grant["condition"] == "HasEventBridgeBuses"
    for function in ("FanoutFunction", "SchedulerFunction"):
        assert actions(template, function, "events:PutEvents") == []
    assert template.conditions["HasEventBridgeBuses"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "WebhooksEventBridgeBuses"}, ""]}]
    }
    assert template.parameters["WebhooksEventBridgeBuses"].default == ""


def test_publish_only_on_the_alarm_topic(template: Template) -> None:
    for function in ("FanoutFunction", "SchedulerFunction"):
        (grant,) = actions(template, function, "sns:Publish")
        assert grant["Resource"] == {"Ref": "AlarmTopicArn"}
        assert grant["condition"] == "HasAlarmTopic"
    for function in ("DeliveryFunction", "ApiFunction"):
        assert actions(template, function, "sns:Publish") == []


def test_the_assets_bucket_reaches_the_api_on_two_prefixes_and_the_media_function_on_files(
    template: Template,
) -> None:
    """The API signs uploads, reads their heads, copies them to files/ and deletes them (D128);
    the media function reads objects under files/ alone (D126); no other role touches it."""
    functions = template.functions
    assert functions["ApiFunction"].environment["ASSETS_BUCKET"] == {"Ref": "AssetsBucket"}
    assert functions["ApiFunction"].environment["ASSETS_MAX_BYTES"] == {"Ref": "AssetsMaxBytes"}
    uploads = {"Fn::Sub": "${AssetsBucket.Arn}/uploads/*"}
    files = {"Fn::Sub": "${AssetsBucket.Arn}/files/*"}
    granted = [
        (s["Action"], s["Resource"], s["condition"])
        for s in statements(template, "ApiFunction")
        if "s3" in str(s["Action"])
    ]
    assert granted == [
        (["s3:PutObject", "s3:GetObject"], [uploads, files], None),
        (["s3:DeleteObject", "s3:AbortMultipartUpload"], uploads, None),
    ]
    for function in ("FanoutFunction", "DeliveryFunction", "SchedulerFunction"):
        assert not [s for s in statements(template, function) if "s3" in str(s["Action"])]
        assert "ASSETS_BUCKET" not in functions[function].environment
    assert "ASSETS_BUCKET" not in template.globals_environment
    assert functions["MediaFunction"].environment["ASSETS_BUCKET"] == {"Ref": "AssetsBucket"}
    media = statements(template, "MediaFunction")
    assert [(s["Action"], s["Resource"]) for s in media] == [
        (["dynamodb:GetItem", "dynamodb:Query"], {"Fn::GetAtt": ["ContentTable", "Arn"]}),
        ("s3:GetObject", {"Fn::Sub": "${AssetsBucket.Arn}/files/*"}),
    ]


def test_the_media_function_runs_python_3_12_on_its_own_layer(template: Template) -> None:
    """Pillow's current wheels need the python3.12 runtime; every other function keeps the
    python3.11 layer, and no function gets both (SAM appends global layers)."""
    resources = template.resources_of_type("AWS::Serverless::Function")
    media = resources["MediaFunction"].properties
    assert media["Runtime"] == "python3.12"
    assert media["Layers"] == [{"Ref": "MediaLayer"}]
    assert "Layers" not in template.globals_function
    for function in ("ApiFunction", "FanoutFunction", "DeliveryFunction", "SchedulerFunction"):
        assert resources[function].properties["Layers"] == [{"Ref": "CoreLayer"}]
    layer = template.resources_of_type("AWS::Serverless::LayerVersion")["MediaLayer"]
    assert layer.properties["CompatibleRuntimes"] == ["python3.12"]


def test_only_the_api_invokes_and_only_the_media_function(template: Template) -> None:
    """The API hands an upload's inspection to the media function, which has Pillow (D130):
    it names the function in its environment and may invoke that one alone; no other role
    invokes anything."""
    functions = template.functions
    assert functions["ApiFunction"].environment["MEDIA_FUNCTION_NAME"] == {"Ref": "MediaFunction"}
    invokes = [
        (s["Resource"], s["condition"])
        for s in statements(template, "ApiFunction")
        if "lambda:" in str(s["Action"])
    ]
    assert invokes == [({"Fn::GetAtt": ["MediaFunction", "Arn"]}, None)]
    assert actions(template, "ApiFunction", "lambda:InvokeFunction")
    for function in ("FanoutFunction", "DeliveryFunction", "SchedulerFunction", "MediaFunction"):
        assert not [s for s in statements(template, function) if "lambda:" in str(s["Action"])]
        assert "MEDIA_FUNCTION_NAME" not in functions[function].environment
    assert "MEDIA_FUNCTION_NAME" not in template.globals_environment
