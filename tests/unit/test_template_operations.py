"""template.yaml as an on-call team needs it: every log group keeps its events for LogRetentionInDays,
the API writes JSON access logs, an alarm watches each thing that can fail and notifies the alarm topic,
one dashboard shows all of it, the created domain spans zones with replicas and publishes its logs,
stateful resources survive a stack replacement, ingest cannot starve the API of concurrency, a browser
can call the API (CORS), and the API functions start from SnapStart snapshots of their published
versions. docs/OPERATIONS.md explains each of them to the person on call."""

from __future__ import annotations

import ast
import json
import os
import re
from functools import cache
from typing import Any

import pytest
from retrieval_core.config import ORIGIN_PATTERN, Settings
from retrieval_core.entrypoints import cors, wire
from test_template import ROOT, TEMPLATE, resource, template

from tests.processes import python

ALARM_ACTIONS = [{"Fn::If": ["UseOwnAlarmTopic", {"Ref": "AlarmTopicArn"}, {"Ref": "AlarmTopic"}]}]
API_FUNCTIONS = ("RetrieveFunction", "GraphPathFunction", "WhyExplainFunction")


def of_type(kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in template()["Resources"].items() if r["Type"] == kind}


def functions() -> dict[str, dict[str, Any]]:
    return of_type("AWS::Serverless::Function")


@cache
def translated(layer_key: str = "key", generation: str | None = None) -> dict[str, Any]:
    """The template as CloudFormation receives it after the SAM transform (as `sam deploy` sends it),
    with local code locations replaced by S3 ones the translator accepts (the layer's at ``layer_key``)
    and, when given, another DEPLOYMENT_GENERATION."""
    from cfnlint.template.transforms._sam import Transform
    from samtranslator.parser import parser
    from samtranslator.translator.translator import Translator

    sam = json.loads(json.dumps(template(), default=str))
    for res in sam["Resources"].values():
        for key in ("CodeUri", "ContentUri", "DefinitionUri"):
            if key in res.get("Properties", {}):
                res["Properties"][key] = f"s3://bucket/{layer_key if key == 'ContentUri' else 'key'}"
    if generation is not None:
        sam["Globals"]["Function"]["Environment"]["Variables"]["DEPLOYMENT_GENERATION"] = generation
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    policies = Transform(str(TEMPLATE), {}, "us-east-1")._managed_policy_map
    return Translator(managed_policy_map=policies, sam_parser=parser.Parser()).translate(
        sam_template=sam, parameter_values={}
    )


# ------------------------------------------------------------------------------------------------- logs


def test_every_log_group_keeps_events_for_the_retention_parameter() -> None:
    parameter = template()["Parameters"]["LogRetentionInDays"]
    assert parameter["Default"] in parameter["AllowedValues"]
    groups = of_type("AWS::Logs::LogGroup")
    assert groups
    for name, group in groups.items():
        assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionInDays"}, name


@pytest.mark.parametrize("function", sorted(functions()))
def test_every_function_logs_to_its_own_group_with_retention(function: str) -> None:
    props = functions()[function]["Properties"]
    group = props["LoggingConfig"]["LogGroup"]["Ref"]
    assert resource(group)["Type"] == "AWS::Logs::LogGroup"
    assert resource(group).get("Condition") == functions()[function].get("Condition")
    others = [f for f in functions() if f != function]
    assert all(functions()[f]["Properties"]["LoggingConfig"]["LogGroup"]["Ref"] != group for f in others)


def test_api_access_logs_are_one_json_object_per_request() -> None:
    setting = resource("RetrievalApi")["Properties"]["AccessLogSetting"]
    assert setting["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}
    line = json.loads(setting["Format"])  # API Gateway fills in each $context value inside its quotes
    assert {"requestId", "status", "latencyMs", "resourcePath", "principal", "errorType"} <= set(line)
    assert all(value.startswith("$context.") for value in line.values())


def test_the_workflow_logs_its_failures_without_execution_data() -> None:
    logging = resource("EvidenceStateMachine")["Properties"]["Logging"]
    assert logging["Level"] in {"ERROR", "ALL"} and logging["IncludeExecutionData"] is False
    (destination,) = logging["Destinations"]
    assert destination["CloudWatchLogsLogGroup"]["LogGroupArn"] == {
        "Fn::GetAtt": ["EvidenceWorkflowLogGroup", "Arn"]
    }


# ----------------------------------------------------------------------------------------------- alarms


def alarms() -> dict[str, dict[str, Any]]:
    return of_type("AWS::CloudWatch::Alarm")


def alarms_on(namespace: str, metric: str, dimension: str | None = None) -> list[dict[str, Any]]:
    """The alarms watching ``metric``, and whose first dimension value is ``dimension`` (a Ref/GetAtt
    target or literal), when given."""
    found = []
    for alarm in alarms().values():
        props = alarm["Properties"]
        if (props["Namespace"], props["MetricName"]) != (namespace, metric):
            continue
        value = props["Dimensions"][0]["Value"]
        target = value.get("Ref") or value.get("Fn::GetAtt", [None])[0] if isinstance(value, dict) else value
        if dimension is None or target == dimension:
            found.append(alarm)
    return found


def test_every_alarm_notifies_the_alarm_topic() -> None:
    for name, alarm in alarms().items():
        assert alarm["Properties"]["AlarmActions"] == ALARM_ACTIONS, name
        assert alarm["Properties"]["TreatMissingData"] == "notBreaching", name
    assert resource("AlarmTopic")["Condition"] == "CreateAlarmTopic"
    assert template()["Conditions"]["CreateAlarmTopic"] == {"Fn::Not": [{"Condition": "UseOwnAlarmTopic"}]}
    assert "AlarmTopicArn" in template()["Outputs"]


def test_api_5xx_and_p99_latency_are_watched() -> None:
    api_name = resource("RetrievalApi")["Properties"]["Name"]
    (errors,) = alarms_on("AWS/ApiGateway", "5XXError")
    (latency,) = alarms_on("AWS/ApiGateway", "Latency")
    for alarm in (errors, latency):
        dimensions = {d["Name"]: d["Value"] for d in alarm["Properties"]["Dimensions"]}
        assert dimensions == {"ApiName": api_name, "Stage": {"Ref": "StageName"}}
    assert errors["Properties"]["Statistic"] == "Average" and 0 < errors["Properties"]["Threshold"] < 1
    assert latency["Properties"]["ExtendedStatistic"] == "p99"
    assert latency["Properties"]["Threshold"] == {"Ref": "ApiLatencyP99AlarmMs"}


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
@pytest.mark.parametrize("function", sorted(functions()))
def test_every_function_has_an_errors_and_a_throttles_alarm(function: str, metric: str) -> None:
    (alarm,) = alarms_on("AWS/Lambda", metric, function)
    assert alarm.get("Condition") == functions()[function].get("Condition")
    props = alarm["Properties"]
    assert (props["Statistic"], props["Threshold"], props["ComparisonOperator"]) == (
        "Sum",
        0,
        "GreaterThanThreshold",
    )


def test_failed_workflow_executions_are_watched() -> None:
    (alarm,) = alarms_on("AWS/States", "ExecutionsFailed", "EvidenceStateMachine")
    assert alarm["Properties"]["Dimensions"][0]["Name"] == "StateMachineArn"


def test_every_dead_letter_queue_has_a_depth_alarm() -> None:
    dead_letters = {
        q["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
        for q in of_type("AWS::SQS::Queue").values()
        if "RedrivePolicy" in q["Properties"]
    }
    for function in functions().values():
        failure = function["Properties"].get("EventInvokeConfig", {}).get("DestinationConfig", {})
        if "OnFailure" in failure:
            dead_letters.add(failure["OnFailure"]["Destination"]["Fn::GetAtt"][0])
    assert dead_letters == {"IngestPartsDeadLetterQueue", "IngestFailedEventsQueue"}
    for queue in dead_letters:
        (alarm,) = alarms_on("AWS/SQS", "ApproximateNumberOfMessagesVisible", queue)
        assert alarm["Properties"]["Threshold"] == 0


DOMAIN_ALARMS = {
    # metric: (statistic, comparison, threshold)
    "ClusterStatus.red": ("Maximum", "GreaterThanOrEqualToThreshold", "1"),
    "ClusterStatus.yellow": ("Maximum", "GreaterThanOrEqualToThreshold", "1"),
    "FreeStorageSpace": ("Minimum", "LessThanOrEqualToThreshold", {"Ref": "SearchFreeStorageAlarmMiB"}),
    "JVMMemoryPressure": ("Maximum", "GreaterThanOrEqualToThreshold", "95"),
    "AutomatedSnapshotFailure": ("Maximum", "GreaterThanOrEqualToThreshold", "1"),
}


@pytest.mark.parametrize("metric", sorted(DOMAIN_ALARMS))
def test_the_opensearch_domain_is_watched(metric: str) -> None:
    (alarm,) = alarms_on("AWS/ES", metric)
    # A created or an existing domain; a serverless collection has none of these metrics.
    assert alarm["Condition"] == "UseDomain"
    assert template()["Conditions"]["UseDomain"] == {"Fn::Not": [{"Condition": "UseServerless"}]}
    props = alarm["Properties"]
    assert {d["Name"]: d["Value"] for d in props["Dimensions"]} == {
        "DomainName": {"Ref": "OpenSearchResourceName"},
        "ClientId": {"Ref": "AWS::AccountId"},
    }
    statistic, comparison, threshold = DOMAIN_ALARMS[metric]
    assert (props["Statistic"], props["ComparisonOperator"]) == (statistic, comparison)
    assert props["Threshold"] == threshold or str(props["Threshold"]) == threshold


def test_operations_md_says_what_each_alarm_means() -> None:
    """Its alarm table names each alarm (per-function ones as ``<Function>ErrorsAlarm``)."""
    text = (ROOT / "docs/OPERATIONS.md").read_text()
    rows = set(re.findall(r"^\| `(\w+|<Function>\w+)` \|", text, re.M))
    for name in alarms():
        generic = re.sub(f"^(?:{'|'.join(functions())})", "<Function>", name)
        assert name in rows or generic in rows, name


# -------------------------------------------------------------------------------------------- dashboard


def dashboard_metrics() -> set[tuple[str, str]]:
    body = resource("OperationsDashboard")["Properties"]["DashboardBody"]["Fn::Sub"][0]
    # ${...} placeholders sit inside JSON strings, except one threshold number: give it a value.
    widgets = json.loads(body.replace("${ApiLatencyP99AlarmMs}", "0"))["widgets"]
    return {
        (line[0], line[1])
        for widget in widgets
        if widget["type"] == "metric"
        for line in widget["properties"]["metrics"]
    }


def test_the_dashboard_shows_every_alarmed_metric() -> None:
    shown = dashboard_metrics()
    for name, alarm in alarms().items():
        assert (alarm["Properties"]["Namespace"], alarm["Properties"]["MetricName"]) in shown, name
    assert "DashboardUrl" in template()["Outputs"]


def test_the_dashboard_names_every_function() -> None:
    """By ``${Function}`` in the body, or (a conditional function) by a variable that is its name when
    it exists."""
    text, variables = resource("OperationsDashboard")["Properties"]["DashboardBody"]["Fn::Sub"]
    for function in functions():
        condition = functions()[function].get("Condition")
        spelled = {f"${{{function}}}"} | {
            f"${{{name}}}"
            for name, value in variables.items()
            if value == {"Fn::If": [condition, {"Ref": function}, "none"]}
        }
        assert any(spelling in text for spelling in spelled), function


# ------------------------------------------------------------------------------------------- the domain


def test_the_created_domain_spans_zones_and_keeps_a_manager_quorum_through_a_node_loss() -> None:
    cluster = resource("SearchDomain")["Properties"]["ClusterConfig"]
    assert cluster["ZoneAwarenessEnabled"] is True
    zones = template()["Parameters"]["SearchAvailabilityZoneCount"]
    assert cluster["ZoneAwarenessConfig"]["AvailabilityZoneCount"] == {"Ref": "SearchAvailabilityZoneCount"}
    assert min(zones["AllowedValues"]) >= 2
    instances = template()["Parameters"]["SearchInstanceCount"]
    assert instances["MinValue"] >= 2 and instances["Default"] % zones["Default"] == 0
    assert cluster["DedicatedMasterEnabled"] == {"Fn::If": ["DedicatedMasters", True, False]}
    # docs/SCALING.md's first row: three data nodes in three zones elect a manager among themselves.
    masters = template()["Parameters"]["SearchDedicatedMasterCount"]["Default"]
    assert masters == 3 or instances["Default"] >= 3
    assert cluster["WarmEnabled"] is False  # every item searched hot


def test_the_created_domain_takes_a_subnet_per_zone() -> None:
    vpc = resource("SearchDomain")["Properties"]["VPCOptions"]["Fn::If"]
    condition, three, two = vpc[1]["SubnetIds"]["Fn::If"]
    assert condition == "ThreeSearchZones"
    for subnets, count in ((three, 3), (two, 2)):
        assert [s["Fn::Select"] for s in subnets] == [[i, {"Ref": "SubnetIds"}] for i in range(count)]


def test_every_index_gets_replicas() -> None:
    env = template()["Globals"]["Function"]["Environment"]["Variables"]
    assert env["RETRIEVAL_OPENSEARCH_REPLICAS"] == {"Ref": "SearchReplicas"}
    default = template()["Parameters"]["SearchReplicas"]["Default"]
    assert default >= 1 and Settings.from_env({"RETRIEVAL_OPENSEARCH_REPLICAS": str(default)})


def test_the_created_domain_publishes_slow_and_error_logs_it_may_write() -> None:
    domain = resource("SearchDomain")
    options = domain["Properties"]["LogPublishingOptions"]
    assert set(options) == {"SEARCH_SLOW_LOGS", "INDEX_SLOW_LOGS", "ES_APPLICATION_LOGS"}
    groups = set()
    for option in options.values():
        assert option["Enabled"] is True
        (group, attribute) = option["CloudWatchLogsLogGroupArn"]["Fn::GetAtt"]
        assert resource(group)["Type"] == "AWS::Logs::LogGroup" and attribute == "Arn"
        groups.add(group)
    policy = resource("SearchLogsResourcePolicy")
    assert domain["DependsOn"] == "SearchLogsResourcePolicy"
    text, variables = policy["Properties"]["PolicyDocument"]["Fn::Sub"]
    assert {value["Fn::GetAtt"][0] for value in variables.values()} == groups
    document = json.loads(re.sub(r"\$\{[\w:]+\}", "x", text))
    (statement,) = document["Statement"]
    assert statement["Principal"] == {"Service": "es.amazonaws.com"}
    assert set(statement["Action"]) == {"logs:PutLogEvents", "logs:CreateLogStream"}
    assert len(statement["Resource"]) == len(groups)
    assert {"aws:SourceAccount"} <= set(statement["Condition"]["StringEquals"])


# ----------------------------------------------------------------------------------------------- retain


STATEFUL = ("AWS::DynamoDB::Table", "AWS::S3::Bucket", "AWS::SQS::Queue", "AWS::OpenSearchService::Domain")


@pytest.mark.parametrize("kind", STATEFUL)
def test_stateful_resources_survive_deletion_and_replacement(kind: str) -> None:
    assert of_type(kind)
    for name, res in of_type(kind).items():
        assert (res.get("DeletionPolicy"), res.get("UpdateReplacePolicy")) == ("Retain", "Retain"), name


def test_ingest_has_reserved_concurrency_from_a_parameter() -> None:
    reserved = resource("IngestFunction")["Properties"]["ReservedConcurrentExecutions"]
    assert reserved == {
        "Fn::If": ["ReserveIngestConcurrency", {"Ref": "IngestReservedConcurrency"}, {"Ref": "AWS::NoValue"}]
    }
    assert template()["Conditions"]["ReserveIngestConcurrency"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "IngestReservedConcurrency"}, 0]}]
    }
    assert template()["Parameters"]["IngestReservedConcurrency"]["Default"] > 0
    assert all("ReservedConcurrentExecutions" not in functions()[f]["Properties"] for f in API_FUNCTIONS)


# ------------------------------------------------------------------------------------------------- CORS


def quoted(values: tuple[str, ...] | str) -> str:
    return "'" + (values if isinstance(values, str) else ",".join(values)) + "'"


def test_cors_allows_every_header_the_api_reads() -> None:
    read = [
        node.value.value
        for node in ast.parse((ROOT / "shared/retrieval_core/entrypoints/wire.py").read_text()).body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and any(isinstance(t, ast.Name) and t.id.endswith("_HEADER") for t in node.targets)
    ]
    assert read and set(read) <= set(cors.ALLOWED_HEADERS)
    assert {"Authorization", "Content-Type", "Idempotency-Key"} <= set(cors.ALLOWED_HEADERS)
    assert {wire.CONTEXT_HEADER, wire.SESSION_HEADER} <= set(cors.ALLOWED_HEADERS)


def evaluate(node: Any, parameters: dict[str, Any]) -> Any:
    """The value of the few intrinsics the CORS settings use, for given parameter values (a
    CommaDelimitedList as a list; conditions are evaluated from the template's own)."""
    if isinstance(node, list):
        return [evaluate(item, parameters) for item in node]
    if not isinstance(node, dict) or len(node) != 1:
        return node
    ((name, args),) = node.items()
    if name == "Ref":
        return parameters.get(args, "NO_VALUE" if args == "AWS::NoValue" else None)
    if name == "Condition":
        return evaluate(template()["Conditions"][args], parameters)
    if name == "Fn::If":
        condition, then, otherwise = args
        return evaluate(then if evaluate({"Condition": condition}, parameters) else otherwise, parameters)
    if name == "Fn::Sub":  # the one form used here: ["'${First}'", {"First": <value>}]
        text, variables = args
        return text.replace("${First}", evaluate(variables["First"], parameters))
    values = evaluate(args, parameters)
    operations = {
        "Fn::Join": lambda: values[0].join(values[1]),
        "Fn::Equals": lambda: values[0] == values[1],
        "Fn::Not": lambda: not values[0],
        "Fn::Select": lambda: values[1][values[0]],
        "Fn::Contains": lambda: values[1] in values[0],
    }
    return operations[name]()


def cors_parameters(*origins: str) -> dict[str, Any]:
    """CorsOrigins as CloudFormation resolves it: the default "" is a list of one empty member."""
    default = template()["Parameters"]["CorsOrigins"]["Default"]
    return {"CorsOrigins": list(origins) or default.split(",")}


def test_the_templates_cors_is_the_codes() -> None:
    parameter = template()["Parameters"]["CorsOrigins"]
    assert parameter["Type"] == "CommaDelimitedList" and parameter["Default"] == ""
    env = template()["Globals"]["Function"]["Environment"]["Variables"]
    assert evaluate(env["RETRIEVAL_CORS_ORIGINS"], cors_parameters("https://a.test", "https://b.test")) == (
        "https://a.test,https://b.test"
    )
    # Each member: an origin as Settings takes one, or * (for the rule to refuse by name), or nothing.
    assert (
        parameter["AllowedPattern"]
        == "^(\\*|" + ORIGIN_PATTERN.pattern.removeprefix("^").removesuffix("$") + ")?$"
    )
    assert "Cors" not in resource("RetrievalApi")["Properties"]  # its mock preflight has one static origin


@pytest.mark.parametrize(
    ("origins", "accepted"),
    [((), True), (("https://app.example.com",), True), (("*",), False), (("https://a.test", "*"), False)],
)
def test_a_star_origin_fails_the_deployment_by_name(origins: tuple[str, ...], accepted: bool) -> None:
    rule = template()["Rules"]["CorsNamesOrigins"]
    assert "RuleCondition" not in rule  # always, not only with credentials (none are ever allowed)
    (assertion,) = rule["Assertions"]
    assert evaluate(assertion["Assert"], cors_parameters(*origins)) is accepted
    assert "*" in assertion["AssertDescription"] and "CorsOrigins" in assertion["AssertDescription"]


def test_the_functions_refuse_a_star_origin_too() -> None:
    with pytest.raises(ValueError, match="is not an origin"):
        Settings.from_env({"RETRIEVAL_CORS_ORIGINS": "https://a.test,*"})
    assert Settings.from_env({"RETRIEVAL_CORS_ORIGINS": ""}).cors_origins == ()


def test_no_answer_allows_credentials_so_a_star_origin_never_pairs_with_them() -> None:
    """CORS forbids ``*`` with credentials; the API's credential is a header a page must hold, never a
    cookie, so nothing (template, gateway responses, preflights, the functions' headers) allows them."""
    assert "Access-Control-Allow-Credentials" not in json.dumps(template())
    granted = "https://app.example.com"
    assert not any("credentials" in name.lower() for name in cors.preflight_headers(granted))
    assert not any("credentials" in name.lower() for name in cors.response_headers(granted))


@pytest.mark.parametrize(
    "response", ["UNAUTHORIZED", "ACCESS_DENIED", "THROTTLED", "QUOTA_EXCEEDED", "DEFAULT_4XX", "DEFAULT_5XX"]
)
def test_gateway_answers_grant_the_first_origin_and_by_default_none(response: str) -> None:
    gateway = resource("RetrievalApi")["Properties"]["GatewayResponses"][response]
    allow_origin = gateway["ResponseParameters"]["Headers"][cors.ALLOW_ORIGIN]
    assert evaluate(allow_origin, cors_parameters()) == "NO_VALUE"
    assert evaluate(allow_origin, cors_parameters("https://a.test", "https://b.test")) == "'https://a.test'"


def test_every_route_s_preflight_goes_unauthenticated_to_its_own_function() -> None:
    """After the SAM transform every path has an OPTIONS method with no authorizer (browsers send no
    Authorization on a preflight), proxied to the function its other method reaches, which answers it
    (``entrypoints.api.api_answer``) as `retrieval serve` does; and API Gateway may invoke it for that."""
    resources = translated()["Resources"]
    paths = resources["RetrievalApi"]["Properties"]["Body"]["paths"]
    for path, operations in paths.items():
        options = operations.pop("options")
        assert "security" not in options, path
        assert options["x-amazon-apigateway-integration"]["type"] == "aws_proxy", path
        # A path's methods (bedrock-agent's have several) all reach one function, its preflight's.
        assert operations, path
        for other in operations.values():
            assert (
                options["x-amazon-apigateway-integration"]["uri"]
                == other["x-amazon-apigateway-integration"]["uri"]
            ), path
    source_arns = {
        json.dumps(r["Properties"].get("SourceArn")): r["Properties"]["FunctionName"]
        for r in resources.values()
        if r["Type"] == "AWS::Lambda::Permission"
    }
    permitted = {
        arn.split("/*/")[-1].rstrip('"}'): name for arn, name in source_arns.items() if "/OPTIONS/" in arn
    }
    assert permitted == {
        "OPTIONS/*": {"Ref": "RetrieveFunctionAliaslive"},
        "OPTIONS/v1/graph/path": {"Ref": "GraphPathFunctionAliaslive"},
        "OPTIONS/v1/why/*": {"Ref": "WhyExplainFunctionAliaslive"},
    }


# -------------------------------------------------------------------------------------- SnapStart, arch


@pytest.mark.parametrize("function", API_FUNCTIONS)
def test_api_functions_start_from_snapstart_snapshots_of_a_live_alias(function: str) -> None:
    props = resource(function)["Properties"]
    assert props["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    assert props["AutoPublishAlias"] == "live"
    # SnapStart needs python3.12+, at most 512 MB of /tmp, no EFS and no provisioned concurrency.
    assert template()["Globals"]["Function"]["Runtime"] >= "python3.12"
    assert not {"FileSystemConfigs", "ProvisionedConcurrencyConfig"} & set(props)
    assert props.get("EphemeralStorage", {"Size": 512})["Size"] <= 512


def test_every_caller_reaches_the_api_functions_through_their_alias() -> None:
    """Resolved by the SAM transform: the integrations, their invoke permissions and the workflow all name
    the alias (invoking the unpublished function would skip the snapshot and cold start in full)."""
    resources = translated()["Resources"]
    aliases = {f"{function}Aliaslive" for function in API_FUNCTIONS}
    assert aliases <= {name for name, r in resources.items() if r["Type"] == "AWS::Lambda::Alias"}
    # The integrations name the alias by its qualified ARN (`${Fn.Arn}:live`: sam validate's linter does
    # not take `${Fn.Alias}` inside the OpenAPI body).
    uris = re.findall(r"functions/\$\{(\w+)\.Arn\}:(\w+)/invocations", json.dumps(resources["RetrievalApi"]))
    assert {f"{function}Alias{alias}" for function, alias in uris} == aliases
    assert {resource(function)["Properties"]["AutoPublishAlias"] for function, _ in uris} == {
        alias for _, alias in uris
    }
    permissions = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::Lambda::Permission"]
    from_api = [p for p in permissions if p["Principal"] == "apigateway.amazonaws.com"]
    assert {p["FunctionName"]["Ref"] for p in from_api} - {"AuthorizerFunction"} == aliases
    substitutions = resources["EvidenceStateMachine"]["Properties"]["DefinitionSubstitutions"]
    assert {v["Ref"] for k, v in substitutions.items() if k.endswith("FunctionArn")} == aliases


def published_versions(translation: dict[str, Any]) -> set[str]:
    return {name for name, r in translation["Resources"].items() if r["Type"] == "AWS::Lambda::Version"}


def test_a_new_layer_or_generation_publishes_new_versions_of_the_api_functions() -> None:
    """The functions' code is in the layer, and SAM versions an aliased function by its own code and
    literal properties: without a new version the alias would keep serving the old layer and settings.
    A parameter's new value alone publishes nothing (SAM hashes the unresolved template), which is what
    DEPLOYMENT_GENERATION is for (docs/OPERATIONS.md, "Upgrading")."""
    for function in API_FUNCTIONS:
        assert resource(function)["Properties"]["AutoPublishAliasAllProperties"] is True
    assert resource("RetrievalCoreLayer")["Properties"]["PublishLambdaVersion"] is True
    current = published_versions(translated())
    assert len(current) == len(API_FUNCTIONS)
    assert current.isdisjoint(published_versions(translated(layer_key="another-layer")))
    generation = template()["Globals"]["Function"]["Environment"]["Variables"]["DEPLOYMENT_GENERATION"]
    assert current.isdisjoint(published_versions(translated(generation=str(int(generation) + 1))))


@pytest.mark.parametrize("tracing", ["on", "off"])
def test_a_handlers_import_builds_no_client_reads_no_secret_and_opens_no_connection(tracing: str) -> None:
    """What SnapStart would freeze: the init phase (importing the handler) must hold nothing that a
    restored copy would share or find stale. Clients, the paging key from SSM and every connection are
    made on the first request, after restore; unique values come from os.urandom per request. (With
    tracing on, the X-Ray SDK opens its UDP emitter socket at import: connectionless, to the daemon's
    fixed local address, so it works after restore.)"""
    script = """
import socket, sys, random
from pathlib import Path
opened = []
socket.socket.connect = lambda self, address: opened.append(address)
state = random.getstate()
from retrieval_dev.cli.lambda_runtime import handler_module
from retrieval_core import bootstrap, config
for name in ("retrieve", "graph_path", "why_explain"):
    handler_module(name, Path("functions"))
assert opened == [], opened
assert bootstrap._current is None, "the container was built at import"
assert config.settings.cache_info().currsize == 0, "settings were read at import"
assert random.getstate() == state, "something drew from or seeded random at import"
"""
    env = {
        **os.environ,
        "RETRIEVAL_PAGING_KEY_PARAMETER": "/retrieval/paging/hmac-key",
        "RETRIEVAL_EMBEDDER": "bedrock",
        "RETRIEVAL_OPENSEARCH_AUTH": "sigv4-es",
        "POWERTOOLS_TRACE_DISABLED": "true" if tracing == "off" else "false",
        "AWS_LAMBDA_FUNCTION_NAME": "retrieve",
        "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
    }
    python(script, env=env)  # the script asserts; a failure shows its output
