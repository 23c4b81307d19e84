"""Settings round-trip through the environment the functions read."""

from __future__ import annotations

from retrieval_core.config import Settings


def test_to_env_and_from_env_round_trip() -> None:
    settings = Settings(edges_table="e-1", opensearch_alias="a-1", dynamodb_endpoint="http://127.0.0.1:1")
    env = settings.to_env()
    assert env["RETRIEVAL_EDGES_TABLE"] == "e-1" and env["RETRIEVAL_OPENSEARCH_ALIAS"] == "a-1"
    assert Settings.from_env(env) == settings


def test_unset_optional_values_stay_unset() -> None:
    assert "RETRIEVAL_DYNAMODB_ENDPOINT" not in Settings().to_env()
    assert Settings.from_env({}).dynamodb_endpoint is None
