"""Peak memory of the API process: the API Lambda handler serving a mixed workload.

A fresh Python process imports `functions/api/handler.py` as Lambda does and answers
REQUESTS API Gateway (payload 2.0) events, alternating a REST list with an expanded relation,
the same list through GraphQL, a single entry, and the SDL; then it reports its peak resident
set. The figure is what the function's MemorySize (1024 MB) must hold. It is read from
`VmHWM` in /proc/self/status, not `ru_maxrss`: Linux carries `ru_maxrss` across execve, so a
child of a large process would report its parent's peak.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx

from bench.lambda_process import function_environment, last_json_line
from bench.report import Row
from infra.local_stack import LocalStack

BENCHMARK = "api_memory"
REQUESTS = 300
ENTRIES = 50
BUDGET_MB = 512.0

_WORKLOAD = r"""
import json, sys, time, uuid, importlib.util
from pathlib import Path

def peak_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")

handler_path, token, post_id, requests = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, str(Path(handler_path).parent))
spec = importlib.util.spec_from_file_location("handler", handler_path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
after_import = peak_mb()

class Context:
    function_name = "ApiFunction"; function_version = "$LATEST"; memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:ApiFunction"
    log_group_name = "/aws/lambda/ApiFunction"; log_stream_name = "bench"
    def __init__(self): self.aws_request_id = str(uuid.uuid4())
    def get_remaining_time_in_millis(self): return 29000

def event(method, path, query="", body=None):
    headers = {"authorization": f"Bearer {token}", "host": "api.example.com",
               "content-type": "application/json"}
    return {"version": "2.0", "routeKey": "ANY /{proxy+}", "rawPath": path,
            "rawQueryString": query, "headers": headers, "isBase64Encoded": False,
            "requestContext": {"http": {"method": method, "path": path, "protocol": "HTTP/1.1",
                               "sourceIp": "203.0.113.7", "userAgent": "bench"},
                               "requestId": str(uuid.uuid4()), "routeKey": "ANY /{proxy+}",
                               "stage": "$default", "accountId": "123456789012", "apiId": "bench",
                               "domainName": "api.example.com", "domainPrefix": "api",
                               "time": "22/Nov/2026:12:00:00 +0000", "timeEpoch": 0},
            **({"body": json.dumps(body)} if body is not None else {})}

query = "{ posts(pageSize: 25) { total items { id title views body author { name } } } }"
workload = [
    event("GET", "/api/v1/content/post", "pageSize=25&expand=author"),
    event("POST", "/api/v1/graphql", body={"query": query}),
    event("GET", f"/api/v1/content/post/{post_id}"),
    event("GET", "/api/v1/graphql"),
]
for i in range(requests):
    response = module.handler(workload[i % len(workload)], Context())
    assert response["statusCode"] == 200, response
print(json.dumps({"after_import_mb": after_import,
                  "peak_mb": peak_mb()}))
"""


def _seed(base_url: str, token: str) -> str:
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}) as client:
        author = {
            "name": "author",
            "kind": "collection",
            "fields": [{"name": "name", "type": "string"}],
        }
        post = {
            "name": "post",
            "kind": "collection",
            "fields": [
                {"name": "title", "type": "string"},
                {"name": "views", "type": "integer"},
                {"name": "body", "type": "richtext"},
                {
                    "name": "author",
                    "type": "relation",
                    "target": "author",
                    "cardinality": "many-to-one",
                },
            ],
        }
        for definition in (author, post):
            client.post("/api/v1/content-types", json=definition).raise_for_status()
        writer = client.post("/api/v1/content/author", json={"values": {"name": "Ada"}}).json()
        client.post(f"/api/v1/content/author/{writer['id']}/publish").raise_for_status()
        post_id = ""
        for i in range(ENTRIES):
            created = client.post(
                "/api/v1/content/post",
                json={
                    "values": {"title": f"Post {i}", "views": i, "body": "<p>text</p>" * 200},
                    "relations": {"author": {"link": [writer["id"]]}},
                },
            ).json()
            client.post(f"/api/v1/content/post/{created['id']}/publish").raise_for_status()
            post_id = created["id"]
        return post_id


def run(stack: LocalStack) -> list[Row]:
    from content_service import runtime
    from content_service.identity.tokens import TokenSpec, create_token
    from content_service.identity.workspaces import create_workspace

    assert stack.base_url is not None
    slug = f"bench-mem-{uuid.uuid4().hex[:8]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    token, _ = create_token(TokenSpec(name="bench", workspace_id=workspace.id, access="full"))
    post_id = _seed(stack.base_url, token)

    handler = Path(__file__).parents[1] / "functions" / "api" / "handler.py"
    figures = last_json_line(
        ["-c", _WORKLOAD, str(handler), token, post_id, str(REQUESTS)],
        function_environment(stack),
        timeout=600,
    )
    return [
        Row(BENCHMARK, "API handler imported", "peak RSS", figures["after_import_mb"], "MB"),
        Row(
            BENCHMARK,
            f"after {REQUESTS} mixed REST/GraphQL requests",
            "peak RSS",
            figures["peak_mb"],
            "MB",
            target=f"<= {BUDGET_MB:.0f}",
            meets_target=figures["peak_mb"] <= BUDGET_MB,
        ),
    ]
