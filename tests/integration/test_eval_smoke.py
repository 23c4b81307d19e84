"""`retrieval eval` end to end on a small slice of Cranfield (5 queries): the path `make eval` takes.

The full run (112 queries, 1,400 documents) stays out of the suite; this checks that loading, the
handler calls in every mode, the metrics, the table and the JSON record all work together.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from retrieval_core.config import Settings
from retrieval_dev.cli import main
from stack_state import REPO

CRANFIELD = REPO / "data" / "cranfield"
QUERIES = 5
FILLER_DOCUMENTS = 60  # unjudged documents, so each query has something to rank its judged ones against


def _slice(out: Path) -> tuple[Path, Path, Path]:
    """The first 5 dev queries, their judgments, and the documents judged for them plus some others."""
    queries = json.loads((CRANFIELD / "queries-dev.json").read_text())[:QUERIES]
    wanted = {q["id"] for q in queries}
    qrels = [j for j in json.loads((CRANFIELD / "qrels-dev.json").read_text()) if j["queryId"] in wanted]
    judged = {j["docId"] for j in qrels}
    documents = [
        d
        for i, d in enumerate(json.loads((CRANFIELD / "documents.json").read_text()))
        if d["id"] in judged or i < FILLER_DOCUMENTS
    ]
    paths = (out / "documents.json", out / "queries.json", out / "qrels.json")
    for path, data in zip(paths, (documents, queries, qrels), strict=True):
        path.write_text(json.dumps(data))
    return paths


def test_eval_runs_every_mode_through_the_handler_and_records_the_run(
    fresh_settings: Settings,
    opensearch: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in fresh_settings.to_env().items():
        monkeypatch.setenv(name, value)
    documents, queries, qrels = _slice(tmp_path)
    out = tmp_path / "records"

    status = main(
        [
            "eval",
            "--documents",
            str(documents),
            "--queries",
            str(queries),
            "--qrels",
            str(qrels),
            "--out",
            str(out),
            # One comparison row and its baseline keep the smoke run cheap; `make eval` runs them all.
            "--compare",
            "hybrid, default (+ PRF + Rocchio)",
        ]
    )

    assert status == 0
    printed = capsys.readouterr().out
    rows = [line.split("|")[1:-1] for line in printed.splitlines() if line.startswith("| ")]
    assert [cell.strip() for cell in rows[0][:2]] == ["mode", "nDCG@10"]
    assert [row[0].strip() for row in rows[2:5]] == ["lexical", "vector", "hybrid"]
    compared = {row[0].strip(): [cell.strip() for cell in row[1:]] for row in rows[7:]}
    assert list(compared) == ["hybrid, before (RRF k=10)", "hybrid, default (+ PRF + Rocchio)"]
    assert compared["hybrid, before (RRF k=10)"][-2:] == ["baseline", ""]
    assert compared["hybrid, before (RRF k=10)"][5] == "1.0"  # one _msearch per query
    # BM25's top hits with their texts and vectors (beside the embedding), then the moved _msearch.
    assert compared["hybrid, default (+ PRF + Rocchio)"][5] == "2.0"
    assert 0 < float(compared["hybrid, default (+ PRF + Rocchio)"][-1]) <= 1  # the test's p-value

    (saved,) = out.glob("eval-*.json")
    record = json.loads(saved.read_text())
    for mode in ("lexical", "vector", "hybrid"):
        summary = record["summary"][mode]
        assert summary["queries"] == QUERIES
        assert 0 < summary["ndcg@10"] <= 1, mode  # judged documents are in the index: some must rank
        assert 0 < summary["recall@100"] <= 1, mode
        assert summary["latency_ms_p50"] > 0
        assert set(record["per_query"][mode]) == {str(q["id"]) for q in json.loads(queries.read_text())}
    assert set(record["comparison"]["summary"]) == set(compared)
    configuration = record["configuration"]
    assert configuration["embedder"].startswith("local:")
    assert "rank_constant" in configuration["fusion"]
    assert configuration["index"]["analysis"]["analyzer"]
    # The throwaway index is gone and the handlers no longer point at it.
    assert not opensearch.indices.exists_alias(name=record["run"]["index_alias"])
