"""Issue 67, item 3: readers never see half an update. A ``retrieval load`` of version 2 of a set of items,
SIGKILLed after one batch's rows were written and before its documents were (tests/integration/killed_at.py,
deterministically), then read with every mode, graph_path and why_explain: each item shows one version
whole, never version 1's text beside version 2's edges or lineage (before: a graph walk from an entity
only version 2 names returned version 1's text, and why_explain showed version 2's sources beside it).
The load run again makes every item version 2 everywhere."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cli_process import RETRIEVAL
from half_update import read_every_way, write_versions
from hostile_folder import status
from retrieval_core import bootstrap
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.config import Settings

from tests.integration.killed_at import KILLED, killed
from tests.processes import finished

NOTES = 300  # two batches of the loader's 256
SAMPLE = [0, 1, 255, 256, 299]  # either side of the batch boundary


def test_a_load_killed_between_rows_and_documents_shows_each_item_whole(
    fresh_settings: Settings, opensearch: Any, tmp_path: Path
) -> None:
    env = dict(os.environ) | fresh_settings.to_env()
    first, second = write_versions(tmp_path, NOTES, fresh_settings.embedding_dimension)
    finished([RETRIEVAL, "load", first, "--context-id", "acme"], env=env)
    # Writes: the file's record pending (1), batch 1's rows (2) and documents (3), batch 2's rows (4):
    # killed before batch 2's documents.
    cut = killed(5, [RETRIEVAL, "load", second, "--context-id", "acme"], env)
    assert cut.returncode == KILLED, cut.stderr[-2000:]
    opensearch.indices.refresh(index=IndexLayout.of(fresh_settings).alias("acme"))
    with bootstrap.use(bootstrap.Container(fresh_settings)):
        shown = read_every_way(SAMPLE, fresh_settings.embedding_dimension)
        assert {n: shown.get(n) for n in SAMPLE} == {0: 2, 1: 2, 255: 2, 256: 1, 299: 1}
        assert status("v2.jsonl")[1]["status"] == "pending"  # the file's record: the load never finished
        finished([RETRIEVAL, "load", second, "--context-id", "acme"], env=env)
        shown = read_every_way(SAMPLE, fresh_settings.embedding_dimension)
        assert all(shown.get(n) == 2 for n in SAMPLE), shown
        listed = status("v2.jsonl")[1]
        assert (listed["status"], listed["chunks"]) == ("indexed", NOTES), listed
