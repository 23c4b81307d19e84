"""The crash matrix (issue 67, "What it must show"), opt-in: ``make fuzz`` runs it, ``make test`` never
collects it (not a ``test_*.py`` file). ``retrieval load`` and ``retrieval sync`` SIGKILLed at seeded random
points (before their N-th store write, ``killed_at.py``: deterministic for a seed):

- a load of an update of ``CRASH_NOTES`` items (3,000), alternately to version 2 and back to version 1, so
  every kill lands on a mix of items at either version: after each, every mode, ``graph_path`` and
  ``why_explain`` show each sampled item whole (``half_update.read_every_way``), and the load run to its
  end makes every item that version;
- a sync of a folder of good and hostile files, some good ones rewritten before each kill: after each, the
  next sync's report matches what a search finds (every indexed, updated or unchanged file's current
  text is found, never an older one; every hostile file failed or skipped).

``CRASH_SEED`` (67), ``CRASH_POINTS`` (10) and ``CRASH_NOTES`` set the campaign.
"""

from __future__ import annotations

import gzip
import json
import os
import random
from math import ceil
from pathlib import Path
from typing import Any

import pytest
from cli_process import RETRIEVAL
from half_update import read_every_way, write_versions
from hostile_folder import deployment, texts
from retrieval_core import bootstrap
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.config import Settings
from retrieval_core.loading.loader import BATCH_SIZE

from tests.integration.killed_at import KILLED, killed
from tests.processes import finished

SEED = int(os.environ.get("CRASH_SEED", "67"))
POINTS = int(os.environ.get("CRASH_POINTS", "10"))
NOTES = int(os.environ.get("CRASH_NOTES", "3000"))
GOOD_FILES = 6
LINES_ITEMS = 40

pytestmark = pytest.mark.long


def test_loads_killed_at_seeded_points_show_every_item_whole(
    fresh_settings: Settings, opensearch: Any, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    env = dict(os.environ) | fresh_settings.to_env()
    dimension = fresh_settings.embedding_dimension
    versions = write_versions(tmp_path, NOTES, dimension)
    finished([RETRIEVAL, "load", versions[0], "--context-id", "acme"], env=env)
    batches = ceil(NOTES / BATCH_SIZE)
    edges = {n for b in range(batches) for n in (b * BATCH_SIZE - 1, b * BATCH_SIZE)} & set(range(NOTES))
    sample = sorted(edges | set(rng.sample(range(NOTES), 6)))
    alias = IndexLayout.of(fresh_settings).alias("acme")
    with bootstrap.use(bootstrap.Container(fresh_settings)):
        writes = 2 * batches + 2  # the file's record pending, each batch's rows and documents, the record
        for round_, at in enumerate(rng.sample(range(1, writes + 1), min(POINTS, writes))):
            target = versions[1 - round_ % 2]  # version 2, then back to 1, ...
            cut = killed(at, [RETRIEVAL, "load", target, "--context-id", "acme"], env)
            assert cut.returncode == KILLED, (at, cut.stderr[-2000:])
            opensearch.indices.refresh(index=alias)
            read_every_way(sample, dimension)  # each item whole, whichever version it is at
        finished([RETRIEVAL, "load", versions[1], "--context-id", "acme"], env=env)
        shown = read_every_way(sample, dimension)
        assert all(shown.get(n) == 2 for n in sample), shown


def test_syncs_killed_at_seeded_points_report_what_a_search_finds(
    fresh_settings: Settings, opensearch: Any, tmp_path: Path
) -> None:
    rng = random.Random(SEED + 1)
    folder = tmp_path / "kb"
    folder.mkdir()
    rounds = {k: 0 for k in range(GOOD_FILES)}
    for k in rounds:
        _write_page(folder, k, 0)
    _write_lines(folder, 0)
    _write_hostile(folder)
    lines_round = 0
    with deployment(fresh_settings, "crash") as scratch:
        command = [RETRIEVAL, "sync", folder, "--context", "acme", "--json"]
        finished(command, env=scratch.env(), check=False)
        kills = 0
        for round_ in range(1, POINTS + 1):
            for k in rng.sample(sorted(rounds), GOOD_FILES // 2):  # half the pages change each round
                rounds[k] = round_
                _write_page(folder, k, round_)
            if rng.random() < 0.5:
                lines_round = round_
                _write_lines(folder, round_)
            at = rng.randint(1, 5)  # a round writes 4 times for its pages (batched), 4 more for changed lines
            cut = killed(at, command, scratch.env())
            assert cut.returncode in (KILLED, 0, 1), (at, cut.stderr[-2000:])  # a late point: it finished
            kills += cut.returncode == KILLED
            done = finished(command, env=scratch.env(), check=False)
            assert done.returncode in (0, 1), done.stderr[-2000:]
            report = {entry["key"]: entry for entry in json.loads(done.stdout)["files"]}
            _assert_report_is_what_search_finds(report, rounds, lines_round)
        assert kills >= POINTS // 2, (kills, cut.returncode, cut.stderr[-3000:])  # most land inside the sync


def _assert_report_is_what_search_finds(
    report: dict[str, dict[str, Any]], rounds: dict[int, int], lines_round: int
) -> None:
    for k, current in rounds.items():
        entry = report[f"page-{k}.md"]
        assert entry["status"] in {"indexed", "updated", "unchanged"}, entry
        found = [text for text in texts(f"zebra{k}") if f"zebra{k} " in text]
        assert found and all(f"round {current}." in text for text in found), (k, current, found)
    lines = report["notes.jsonl"]
    assert (lines["status"], lines["chunks"]) in {("indexed", LINES_ITEMS), ("unchanged", LINES_ITEMS)}, lines
    found = texts("okapi", top_k=LINES_ITEMS + 10)
    assert len(found) == LINES_ITEMS and all(f"round {lines_round}." in text for text in found), found
    assert report["bomb.jsonl.gz"]["status"] == "failed" and report["foreign.jsonl"]["status"] == "failed"
    assert report["broken.pdf"]["status"] == "failed", report["broken.pdf"]
    assert report["linked.md"]["status"] == "skipped", report["linked.md"]


def _write_page(folder: Path, k: int, round_: int) -> None:
    (folder / f"page-{k}.md").write_text(
        f"# Page {k}\n\nThe zebra{k} ledger notes the harbour tide, round {round_}.\n"
    )


def _write_lines(folder: Path, round_: int) -> None:
    lines = [
        {
            "id": f"acme:okapi-{n}",
            "context_id": "acme",
            "kind": "proposition",
            "text": f"The okapi census entry {n}, round {round_}.",
            "created_at": "2026-01-01T00:00:00Z",
        }
        for n in range(LINES_ITEMS)
    ]
    (folder / "notes.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def _write_hostile(folder: Path) -> None:
    (folder / "bomb.jsonl.gz").write_bytes(gzip.compress(b"x" * (20 << 20), compresslevel=9))
    foreign = {"id": "other:x", "context_id": "other", "kind": "proposition", "text": "elsewhere"}
    (folder / "foreign.jsonl").write_text(
        json.dumps({**foreign, "created_at": "2026-01-01T00:00:00Z"}) + "\n"
    )
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n" + random.Random(SEED).randbytes(2048))
    outside = folder.parent / "outside.md"
    outside.write_text("# Outside\n\nA page from outside the folder.\n")
    os.link(outside, folder / "linked.md")
