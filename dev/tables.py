"""DynamoDB tables for the dev stack and the tests, created from the key schemas in ``template.yaml``.

Why read the template: it is the one place the schemas are declared; a second copy here would drift.
The template carries CloudFormation short-form tags (``!Ref``, ``!Sub``, ``!GetAtt``...), so it is read
with a loader that turns them into their long form instead of failing on them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from dev.stack_env import DEFAULT_REGION, FAKE_AWS_CREDENTIALS, REPO_ROOT

if TYPE_CHECKING:
    from retrieval_core.config import Settings

TEMPLATE_PATH = REPO_ROOT / "template.yaml"

# Template logical id -> the retrieval_core.config.Settings field that names the table.
TABLE_SETTINGS = {
    "EdgesTable": "edges_table",
    "LineageTable": "lineage_table",
    "SessionsTable": "sessions_table",
    "CursorsTable": "cursors_table",
    "DocumentsTable": "documents_table",
}

_INDEX_KEYS = ("IndexName", "KeySchema", "Projection")


class TemplateSchemaError(ValueError):
    """The template does not declare a usable table schema for a requested logical id."""


class _CloudFormationLoader(yaml.SafeLoader):
    """A safe YAML loader that accepts CloudFormation's short-form intrinsic tags."""


def _intrinsic(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> dict[str, Any]:
    """``!GetAtt A.b`` -> ``{"Fn::GetAtt": ["A", "b"]}``, ``!Ref X`` -> ``{"Ref": "X"}``, etc."""
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if tag_suffix == "Ref":
        return {"Ref": value}
    if tag_suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{tag_suffix}": value}


_CloudFormationLoader.add_multi_constructor("!", _intrinsic)


def load_table_schemas(template_path: Path = TEMPLATE_PATH) -> dict[str, dict[str, Any]]:
    """Every ``AWS::DynamoDB::Table`` resource's ``Properties``, keyed by logical id."""
    template = yaml.load(template_path.read_text(), Loader=_CloudFormationLoader)  # a SafeLoader subclass
    resources = template.get("Resources") or {}
    return {
        logical_id: resource.get("Properties") or {}
        for logical_id, resource in resources.items()
        if isinstance(resource, dict) and resource.get("Type") == "AWS::DynamoDB::Table"
    }


def default_table_names(settings: Any) -> dict[str, str]:
    """Logical id -> table name as configured by a ``retrieval_core.config.Settings``."""
    return {logical_id: getattr(settings, field) for logical_id, field in TABLE_SETTINGS.items()}


def _create_table_request(logical_id: str, name: str, properties: dict[str, Any]) -> dict[str, Any]:
    """The ``CreateTable`` arguments for one template table (on-demand billing, like the template)."""
    for key in ("AttributeDefinitions", "KeySchema"):
        if not isinstance(properties.get(key), list):
            raise TemplateSchemaError(f"{logical_id} in {TEMPLATE_PATH.name} has no literal {key}")
    request: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": properties["AttributeDefinitions"],
        "KeySchema": properties["KeySchema"],
        "BillingMode": "PAY_PER_REQUEST",
    }
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if properties.get(kind):
            request[kind] = [{key: index[key] for key in _INDEX_KEYS} for index in properties[kind]]
    return request


def dynamodb_client(endpoint: str, region: str = DEFAULT_REGION) -> Any:
    """A boto3 DynamoDB client for the local endpoint with fake credentials."""
    import boto3

    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name=region,
        aws_access_key_id=FAKE_AWS_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_AWS_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )


def create_tables(endpoint: str, names: dict[str, str], template_path: Path = TEMPLATE_PATH) -> None:
    """Create a table named ``names[logical_id]`` for each entry, with that template table's schema.

    Idempotent: an existing table of that name is left alone, so a repeated ``make up`` is harmless.
    Time-to-live is switched on where the template declares it, because code relies on the attribute.
    """
    schemas = load_table_schemas(template_path)
    missing = sorted(set(names) - set(schemas))
    if missing:
        raise TemplateSchemaError(f"{template_path.name} declares no DynamoDB table {', '.join(missing)}")
    client = dynamodb_client(endpoint)
    for logical_id, name in names.items():
        properties = schemas[logical_id]
        try:
            client.create_table(**_create_table_request(logical_id, name, properties))
        except client.exceptions.ResourceInUseException:
            continue
        client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        ttl = properties.get("TimeToLiveSpecification")
        if ttl and ttl.get("Enabled") is True:
            client.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
            )


def delete_tables(endpoint: str, names: list[str]) -> None:
    """Delete the named tables; ones already gone are fine (teardown must not mask a test failure)."""
    client = dynamodb_client(endpoint)
    for name in names:
        try:
            client.delete_table(TableName=name)
        except client.exceptions.ResourceNotFoundException:
            continue


@contextmanager
def scratch_space(base: Settings, tag: str, *, keep: bool = False) -> Iterator[Settings]:
    """``base`` with uniquely named fresh tables and a fresh alias (``<tag>-<8 hex>``), removed when the
    block ends unless ``keep``: tests, the bench and ad-hoc runs never touch each other's data."""
    from retrieval_core.adapters.opensearch.client import build_client

    assert base.dynamodb_endpoint is not None, "scratch space needs a DynamoDB endpoint"
    suffix = f"{tag}-{uuid.uuid4().hex[:8]}"
    names = {logical: f"{getattr(base, field)}-{suffix}" for logical, field in TABLE_SETTINGS.items()}
    create_tables(base.dynamodb_endpoint, names)
    update: dict[str, Any] = {TABLE_SETTINGS[logical]: name for logical, name in names.items()}
    scratch = base.model_copy(update={**update, "opensearch_alias": suffix})
    try:
        yield scratch
    finally:
        if not keep:
            delete_tables(base.dynamodb_endpoint, list(names.values()))
            client = build_client(scratch)
            client.indices.delete(index=f"{suffix}*", ignore_unavailable=True, allow_no_indices=True)
            client.close()
