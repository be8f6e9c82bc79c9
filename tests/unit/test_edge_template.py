"""The edge in template.yaml: a CloudFront distribution in front of the HTTP API whose cache
policies key on the Authorization header and the whole query string and take their TTLs from
the origin, a WAF web ACL with a rate rule keyed on the Authorization header, all behind one
parameter. (`make sam-check` runs `sam validate --lint` on the same file.)"""

from __future__ import annotations

from typing import Any

from infra.template_model import Template

EDGE = (
    "EdgeContentCachePolicy",
    "EdgeGraphQLCachePolicy",
    "EdgeSignInOriginRequestPolicy",
    "EdgeDistribution",
    "EdgeWebAcl",
)


def test_every_edge_resource_is_behind_the_parameter() -> None:
    template = Template.load()
    assert template.parameters["EdgeEnabled"].default == "true"
    assert template.conditions["EdgeOn"] == {"Fn::Equals": [{"Ref": "EdgeEnabled"}, "true"]}
    resources = template.body["Resources"]
    for name in EDGE:
        assert resources[name]["Condition"] == "EdgeOn", name
    assert template.body["Outputs"]["EdgeUrl"]["Condition"] == "EdgeOn"


def test_the_cache_policies_key_on_the_token_and_the_query_and_take_ttls_from_the_origin() -> None:
    resources = Template.load().resources
    for name, headers in (
        ("EdgeContentCachePolicy", ["Authorization"]),
        ("EdgeGraphQLCachePolicy", ["Authorization", "Accept"]),
    ):
        config = resources[name].properties["CachePolicyConfig"]
        assert (config["MinTTL"], config["DefaultTTL"]) == (0, 0), name
        keyed = config["ParametersInCacheKeyAndForwardedToOrigin"]
        assert keyed["HeadersConfig"] == {"HeaderBehavior": "whitelist", "Headers": headers}
        assert keyed["QueryStringsConfig"] == {"QueryStringBehavior": "all"}
        assert keyed["CookiesConfig"] == {"CookieBehavior": "none"}
    distribution = resources["EdgeDistribution"].properties["DistributionConfig"]
    default: dict[str, Any] = distribution["DefaultCacheBehavior"]
    assert default["CachePolicyId"] == {"Ref": "EdgeContentCachePolicy"}
    graphql, _sign_in, files = distribution["CacheBehaviors"]
    assert graphql["PathPattern"] == "/api/v1/graphql"
    assert graphql["CachePolicyId"] == {"Ref": "EdgeGraphQLCachePolicy"}
    assert files["PathPattern"] == "/files/*"
    assert files["CachePolicyId"] == {"Ref": "EdgeFilesCachePolicy"}
    files_key = resources["EdgeFilesCachePolicy"].properties["CachePolicyConfig"]
    assert files_key["ParametersInCacheKeyAndForwardedToOrigin"]["HeadersConfig"] == {
        "HeaderBehavior": "none"
    }
    assert distribution["WebACLId"] == {"Fn::GetAtt": ["EdgeWebAcl", "Arn"]}
    assert distribution["Origins"][0]["DomainName"]["Fn::Sub"].startswith("${HttpApi}.")


def test_the_web_acl_limits_requests_per_authorization_header() -> None:
    acl = Template.load().resources["EdgeWebAcl"].properties
    assert acl["Scope"] == "CLOUDFRONT"
    rule, known_bad = acl["Rules"]
    assert known_bad["Statement"]["ManagedRuleGroupStatement"]["Name"] == (
        "AWSManagedRulesKnownBadInputsRuleSet"
    )
    rate = rule["Statement"]["RateBasedStatement"]
    assert rate["AggregateKeyType"] == "CUSTOM_KEYS"
    assert [key["Header"]["Name"] for key in rate["CustomKeys"]] == ["authorization"]
    assert rate["Limit"] == {"Ref": "EdgeRequestsPerTokenPerMinute"}
    assert rule["Action"]["Block"]["CustomResponse"]["ResponseCode"] == 429


def test_only_sign_in_reaches_the_api_with_the_origin_secret_and_the_viewer_address() -> None:
    """The sign-in throttle counts `CloudFront-Viewer-Address` only beside the origin secret
    (docs/authorization.md): /login goes to the one origin that adds it, with a policy that
    forwards CloudFront's viewer address; every other path goes to the origin without it."""
    template = Template.load()
    assert template.parameters["EdgeOriginSecret"].default == ""
    assert template.body["Parameters"]["EdgeOriginSecret"]["NoEcho"] is True
    assert "EdgeNeedsOriginSecret" in template.body["Rules"]
    resources = template.resources
    distribution = resources["EdgeDistribution"].properties["DistributionConfig"]
    plain, sign_in_origin = distribution["Origins"]
    assert "OriginCustomHeaders" not in plain
    assert sign_in_origin["OriginCustomHeaders"] == [
        {"HeaderName": "X-Origin-Verify", "HeaderValue": {"Ref": "EdgeOriginSecret"}}
    ]
    assert sign_in_origin["DomainName"] == plain["DomainName"]
    behaviours = [distribution["DefaultCacheBehavior"], *distribution["CacheBehaviors"]]
    assert [b["TargetOriginId"] for b in behaviours if b["TargetOriginId"] != plain["Id"]] == [
        sign_in_origin["Id"]
    ]
    (sign_in,) = [b for b in behaviours if b.get("PathPattern") == "/login"]
    assert sign_in["TargetOriginId"] == sign_in_origin["Id"]
    assert sign_in["OriginRequestPolicyId"] == {"Ref": "EdgeSignInOriginRequestPolicy"}
    policy = resources["EdgeSignInOriginRequestPolicy"].properties["OriginRequestPolicyConfig"]
    headers = policy["HeadersConfig"]
    assert headers["HeaderBehavior"] == "whitelist"
    assert "CloudFront-Viewer-Address" in headers["Headers"]
    assert "Host" not in headers["Headers"]
    api = resources["ApiFunction"].properties["Environment"]["Variables"]
    assert api["EDGE_ORIGIN_SECRET"] == {"Fn::If": ["EdgeOn", {"Ref": "EdgeOriginSecret"}, ""]}
