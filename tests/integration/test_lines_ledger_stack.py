"""Issue 67, item 1 for JSON Lines, on the local stack: a JSON Lines object's record is ``pending`` before its
lines load and ``indexed`` or ``failed`` after, so a sync never says ``unchanged`` of an object that failed
or was cut short. Before: a decompression bomb ``.jsonl.gz`` and a file of lines naming another context
were ``unchanged`` with exit 0 on the next sync, and a 1,500-line file whose sync was killed mid-way was
``unchanged`` with a third of its items missing."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from cli_process import RETRIEVAL
from hostile_folder import deployment, status
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.config import Settings

from tests.integration.killed_at import KILLED, killed
from tests.processes import finished


def item_line(context_id: str, number: int, dimension: int, word: str = "tidewater") -> str:
    """An item with its own vector (no embedding at load time: the test is about writes, not a model)."""
    vector = [((number * 7 + i) % 13) / 13 + 0.01 for i in range(dimension)]
    return json.dumps(
        {
            "id": f"{context_id}:n-{number:05d}",
            "context_id": context_id,
            "kind": "proposition",
            "text": f"Note {number} of the {word} ledger.",
            "created_at": "2026-01-01T00:00:00Z",
            "embedding": vector,
        }
    )


def _sync(folder: Path, env: dict[str, str]) -> tuple[int, dict[str, dict[str, Any]]]:
    done = finished([RETRIEVAL, "sync", folder, "--context", "acme", "--json"], env=env, check=False)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, {entry["key"]: entry for entry in json.loads(done.stdout)["files"]}


def test_failed_json_lines_stay_failed_on_the_next_sync_and_the_listing_says_so(
    fresh_settings: Settings, tmp_path: Path
) -> None:
    folder = tmp_path / "lines"
    folder.mkdir()
    dimension = fresh_settings.embedding_dimension
    (folder / "good.jsonl").write_text("\n".join(item_line("acme", n, dimension) for n in range(3)) + "\n")
    (folder / "foreign.jsonl").write_text(
        "\n".join([item_line("acme", 10, dimension), item_line("other", 11, dimension)]) + "\n"
    )
    (folder / "bomb.jsonl.gz").write_bytes(gzip.compress(b"x" * (20 << 20), compresslevel=9))
    with deployment(fresh_settings, "lledger") as scratch:
        for attempt in ("first", "second"):
            code, files = _sync(folder, scratch.env())
            assert code == 1, (attempt, files)
            assert (files["good.jsonl"]["status"], files["good.jsonl"]["chunks"]) == (
                "indexed" if attempt == "first" else "unchanged",
                3,
            ), files
            assert files["foreign.jsonl"]["status"] == "failed", (attempt, files)
            assert "1 lines rejected (line 2: context_id" in files["foreign.jsonl"]["reason"]
            assert files["bomb.jsonl.gz"]["status"] == "failed", (attempt, files)
            assert "decompresses to more than" in files["bomb.jsonl.gz"]["reason"]
        listed = {key: status(key)[1] for key in ("good.jsonl", "foreign.jsonl", "bomb.jsonl.gz")}
        assert [listed[key]["status"] for key in sorted(listed)] == ["failed", "failed", "indexed"]
        assert listed["good.jsonl"]["chunks"] == 3 and listed["foreign.jsonl"]["chunks"] == 1


def test_a_json_lines_sync_killed_mid_way_is_pending_and_the_next_sync_loads_it_all(
    fresh_settings: Settings, opensearch: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    dimension = fresh_settings.embedding_dimension
    lines = [item_line("acme", n, dimension) for n in range(1500)]
    (folder / "notes.jsonl").write_text("\n".join(lines) + "\n")
    with deployment(fresh_settings, "lkill") as scratch:
        alias = IndexLayout.of(scratch.settings).alias("acme")

        def present() -> int:
            opensearch.indices.refresh(index=alias)
            return int(opensearch.count(index=alias)["count"])

        # Writes: the record's pending (1), then per batch of 256 its rows and its documents: killed
        # before the third batch's rows, with two batches written.
        cut = killed(6, [RETRIEVAL, "sync", folder, "--context", "acme", "--json"], scratch.env())
        assert cut.returncode == KILLED, cut.stderr[-2000:]
        assert present() == 512, cut.stderr[-3000:]
        assert status("notes.jsonl")[1]["status"] == "pending"
        code, files = _sync(folder, scratch.env())
        assert code == 0 and (files["notes.jsonl"]["status"], files["notes.jsonl"]["chunks"]) == (
            "indexed",
            1500,
        )
        assert present() == 1500
        assert _sync(folder, scratch.env())[1]["notes.jsonl"]["status"] == "unchanged"
