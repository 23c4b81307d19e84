"""Issue 67, item 2: a file's status names the index generation its chunks are in (the ``index.uuid`` of
the index behind its context's alias), so a record is only believed while that index is the context's.
A stack reset (the local node restarted with its data reset while DynamoDB kept its state): before, a
re-sync said `unchanged` of every file, GET /v1/documents `indexed, chunks 2`, and searches found
nothing. Now the listing says `stale` and the next sync indexes the file again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_process import RETRIEVAL
from hostile_folder import deployment, status, texts
from retrieval_core import bootstrap
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.config import Settings
from retrieval_core.documents.status import is_stale

from tests.processes import finished


def test_statuses_go_stale_when_the_index_is_replaced_and_the_next_sync_reindexes(
    fresh_settings: Settings, opensearch: Any, tmp_path: Path
) -> None:
    # Issue 67, item 2 (a stack reset): the local node restarted with its data reset while DynamoDB kept
    # its state; a re-sync said `unchanged` of every file, GET /v1/documents `indexed, chunks 2`, and
    # searches found nothing.
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "tides.txt").write_text("The quokka ledger lists every tide of the winter harbour.")
    with deployment(fresh_settings, "gen") as scratch:
        command = [RETRIEVAL, "sync", folder, "--context", "acme", "--json"]

        def synced() -> dict[str, object]:
            (entry,) = json.loads(finished(command, env=scratch.env()).stdout)["files"]
            return dict(entry)

        assert synced()["status"] == "indexed"
        assert synced()["status"] == "unchanged"
        indexed = bootstrap.container().document_statuses.get("acme", "tides.txt")
        assert indexed is not None and indexed.generation is not None
        # The index is lost (as a fresh node loses it); the statuses table keeps its records.
        alias = IndexLayout.of(scratch.settings).alias("acme")
        (index,) = opensearch.indices.get_alias(name=alias)
        opensearch.indices.delete(index=index)
        assert texts("quokka ledger") == []
        assert status("tides.txt")[1]["status"] == "stale"  # not `indexed`: nothing answers for it
        assert is_stale(indexed, bootstrap.container().index_generation("acme"))
        again = synced()
        assert (again["status"], again["chunks"]) == ("updated", 1), again
        assert "index its chunks were in was replaced" in str(again["reason"])
        assert texts("quokka ledger") == ["The quokka ledger lists every tide of the winter harbour."]
        assert status("tides.txt")[1]["status"] == "updated"
        assert synced()["status"] == "unchanged"
