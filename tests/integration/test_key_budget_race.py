"""Issue 40: the pool model's per-context metadata key cap holds under concurrent writers. Twelve
processes each load one item with 64 new keys into one context capped at 100 keys, released together by a
barrier: at most one load lands (one does, the ledger being empty), every other is a rejected line naming
``metadata``, and the ledger and the index hold that one item's 64 keys."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from typing import Any

import pytest
from key_race import load_one
from retrieval_core.adapters.dynamodb_metadata_keys import DynamoDBMetadataKeyLedger
from retrieval_core.config import Settings
from retrieval_core.models.limits import LIMITS
from stack_state import index_documents
from test_loader import proposition

from dev.tables import scratch_space

RACERS = 12
NEW_KEYS = 64


@pytest.fixture
def pool_settings(stack_settings: Settings) -> Iterator[Settings]:
    with scratch_space(stack_settings.model_copy(update={"isolation_model": "pool"}), "race") as settings:
        yield settings


def test_twelve_concurrent_loads_of_64_new_keys_land_one_under_a_cap_of_100(
    pool_settings: Settings, opensearch: Any, dynamodb: Any
) -> None:
    assert LIMITS.pool_metadata_keys == 100
    lines = [
        proposition(f"acme:p-{n}", ["acme:e/a"], metadata={f"k{n}-{i}": "v" for i in range(NEW_KEYS)})
        for n in range(RACERS)
    ]
    spawn = multiprocessing.get_context("spawn")
    start, answers = spawn.Barrier(RACERS), spawn.Queue()
    racers = [
        spawn.Process(target=load_one, args=(pool_settings.model_dump_json(), line, start, answers))
        for line in lines
    ]
    for racer in racers:
        racer.start()
    outcomes = [answers.get(timeout=300) for _ in racers]
    for racer in racers:
        racer.join(timeout=60)
    assert sorted(outcomes) == [(0, ["metadata"])] * (RACERS - 1) + [(1, [])]
    keys = DynamoDBMetadataKeyLedger(dynamodb, pool_settings.lineage_table).keys_of("acme")
    stored = index_documents(opensearch, pool_settings)
    assert len(stored) == 1 and keys == set(stored[0]["metadata"]) and len(keys) == NEW_KEYS
