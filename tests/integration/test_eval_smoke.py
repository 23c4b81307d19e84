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
from retrieval_dev.evaluation import documentation
from retrieval_dev.evaluation.collection import CollectionFiles, cacm, cranfield_dev
from retrieval_dev.evaluation.compare import CONFIGURATIONS, HYBRID, HYBRID_DEFAULT
from retrieval_dev.evaluation.provision import ALIAS_PREFIX
from retrieval_dev.evaluation.suite import run_suite

from tests.eval_collections import collection_folder

QUERIES = 5
FILLER_DOCUMENTS = 60  # unjudged documents, so each query has something to rank its judged ones against


@pytest.fixture
def cranfield() -> Path:
    return collection_folder("cranfield")


def _slice(files: CollectionFiles, cranfield: Path) -> CollectionFiles:
    """The first 5 dev queries, their judgments, and the documents judged for them plus some others,
    written to ``files``."""
    queries = json.loads((cranfield / "queries-dev.json").read_text())[:QUERIES]
    wanted = {q["id"] for q in queries}
    qrels = [j for j in json.loads((cranfield / "qrels-dev.json").read_text()) if j["queryId"] in wanted]
    judged = {j["docId"] for j in qrels}
    documents = [
        d
        for i, d in enumerate(json.loads((cranfield / "documents.json").read_text()))
        if d["id"] in judged or i < FILLER_DOCUMENTS
    ]
    for path, data in zip(files, (documents, queries, qrels), strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    return files


def test_eval_runs_every_mode_through_the_handler_and_records_the_run(
    fresh_env: Settings,
    opensearch: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cranfield: Path,
) -> None:
    documents, queries, qrels = _slice(cacm(tmp_path), cranfield)  # named below: any layout serves
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
            "--embedding-cache",
            str(tmp_path / "cache.sqlite"),
            # One comparison row and its baseline keep the smoke run cheap; `make eval` runs them all.
            "--compare",
            HYBRID_DEFAULT,
        ]
    )

    assert status == 0
    printed = capsys.readouterr().out
    rows = [line.split("|")[1:-1] for line in printed.splitlines() if line.startswith("| ")]
    assert [cell.strip() for cell in rows[0][:2]] == ["mode", "nDCG@10"]
    assert [row[0].strip() for row in rows[2:5]] == ["lexical", "vector", "hybrid"]
    compared = {row[0].strip(): [cell.strip() for cell in row[1:]] for row in rows[7:]}
    assert list(compared) == [HYBRID, HYBRID_DEFAULT]
    assert compared[HYBRID][-2:] == ["baseline", ""]
    assert [cell.strip() for cell in rows[0][4:6]] == ["R@2", "R@5"]  # passage recall beside nDCG
    # One _msearch per query: the default ranks in one pass, as the RRF baseline does. The column is
    # found by its label, so a metric added to the table does not move what this checks.
    round_trips = [cell.strip() for cell in rows[5][1:]].index("round trips")
    assert compared[HYBRID][round_trips] == compared[HYBRID_DEFAULT][round_trips] == "1.0"
    assert 0 < float(compared[HYBRID_DEFAULT][-1]) <= 1  # the test's p-value

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


def _beir_folder(root: Path, cranfield: Path) -> Path:
    """A tiny BEIR collection: 3 judged test queries (one more judged only in dev, one not at all) over
    20 Cranfield abstracts, in BEIR's own files."""
    root.mkdir()
    documents = json.loads((cranfield / "documents.json").read_text())[:20]
    (root / "corpus.jsonl").write_text(
        "".join(
            json.dumps({"_id": f"doc{d['id']}", "title": d["title"], "text": d["body"]}) + "\n"
            for d in documents
        )
    )
    queries = [
        {"_id": "t1", "text": documents[0]["title"]},
        {"_id": "t2", "text": documents[5]["title"]},
        {"_id": "t3", "text": documents[11]["title"]},
        {"_id": "d1", "text": documents[3]["title"]},
        {"_id": "none", "text": "nobody judged this query"},
    ]
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels").mkdir()
    rows = ["query-id\tcorpus-id\tscore", "t1\tdoc1\t1", "t2\tdoc6\t1", "t2\tdoc7\t1", "t3\tdoc12\t2"]
    (root / "qrels" / "test.tsv").write_text("\n".join(rows) + "\n")
    (root / "qrels" / "dev.tsv").write_text("query-id\tcorpus-id\tscore\nd1\tdoc4\t1\n")
    return root


def test_eval_reads_a_beir_folder_and_draws_no_progress_bar_off_a_terminal(
    fresh_env: Settings,
    opensearch: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cranfield: Path,
) -> None:
    folder = _beir_folder(tmp_path / "beir-tiny", cranfield)
    out = tmp_path / "records"
    args = ["eval", "--beir", str(folder), "--split", "test", "--out", str(out), "--compare"]

    status = main([*args, "--embedding-cache", str(tmp_path / "cache.sqlite")])

    assert status == 0
    captured = capsys.readouterr()
    # Off a terminal (pytest captures both streams) the progress bar stays quiet (tests/unit/test_cli_progress
    # draws it on one).
    assert "embedding and indexing" not in captured.err
    rows = [line.split("|")[1:-1] for line in captured.out.splitlines() if line.startswith("| ")]
    scores = {row[0].strip(): float(row[1]) for row in rows[2:5]}
    assert list(scores) == ["lexical", "vector", "hybrid"]
    # Each query is a judged document's own title: every mode finds something relevant in its top 10.
    assert all(score > 0.3 for score in scores.values()), scores
    (saved,) = out.glob("eval-*.json")
    record = json.loads(saved.read_text())
    assert set(record["per_query"]["hybrid"]) == {"t1", "t2", "t3"}  # the test split's judged queries only
    assert record["run"]["document_count"] == 20


def test_the_suite_scores_every_configuration_on_every_collection_the_data_folder_holds(
    fresh_env: Settings,
    opensearch: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cranfield: Path,
) -> None:
    data = tmp_path / "data"
    _slice(cranfield_dev(data), cranfield)
    cacm_queries = _slice(cacm(data), cranfield).queries  # the same slice, in CACM's place
    (data / "multihop" / "tiny").mkdir(parents=True)
    _beir_folder(data / "multihop" / "tiny" / "beir", cranfield)
    manual, asked = _manual(tmp_path / "manual")
    compared = [c for c in CONFIGURATIONS if c.name in (HYBRID, HYBRID_DEFAULT)]
    before = _evaluation_indices(opensearch)

    suite = run_suite(compared, Settings.from_env(), data=data, docs=manual, docs_questions=asked)

    scores = suite.ndcg
    assert list(scores) == ["Cranfield dev", "CACM", "tiny", documentation.NAME, "agent questions"]
    assert list(suite.mrr) == list(scores)
    for collection, by_configuration in scores.items():
        assert set(by_configuration) == {HYBRID, HYBRID_DEFAULT}, collection
    judged = {str(q["id"]) for q in json.loads(cacm_queries.read_text())}
    assert set(scores["CACM"][HYBRID]) == judged
    # The multi-hop set was loaded as pages: each judged query is a page's own title, found by both.
    assert set(scores["tiny"][HYBRID]) == {"t1", "t2", "t3"}
    assert all(score > 0.3 for score in scores["tiny"][HYBRID_DEFAULT].values()), scores["tiny"]
    # The manual was synced with its tree (a page's id is its path, _static left out), scored by page.
    assert suite.mrr[documentation.NAME][HYBRID_DEFAULT] == {"m1": 1.0, "m2": 1.0}
    found = suite.documentation[HYBRID_DEFAULT]
    assert (found["hit@1"], found["two_page_all_found@5"], found["two_page_recall@5"]) == (1.0, 1.0, 1.0)
    printed = capsys.readouterr().out
    assert "tiny: 20 documents, 3 queries" in printed
    assert f"{documentation.NAME}: 3 pages, 2 questions" in printed
    assert _evaluation_indices(opensearch) <= before  # every collection's throwaway index is gone


def _manual(folder: Path) -> tuple[Path, Path]:
    """Three HTML pages in two folders (and a ``_static`` page the collection leaves out), and two
    questions: one a page answers, one whose answer is split over two pages."""
    pages = {
        "usage/theming.html": ("Using a theme", "Set html_theme in conf.py to the name of a builtin theme "),
        "usage/installation.html": (
            "Installing",
            "Install the package with pip inside a virtual environment ",
        ),
        "man/builder.html": (
            "The builder program",
            "The builder program reads the sources and writes pages ",
        ),
        "_static/theming.html": ("Using a theme", "A copy the collection must not sync "),
    }
    for path, (title, text) in pages.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        body = " ".join([text] * 6)
        (folder / path).write_text(f"<html><body><h1>{title}</h1><p>{body}</p></body></html>")
    asked = folder.parent / "questions.jsonl"
    questions = [
        {
            "id": "m1",
            "kind": "how-to",
            "text": "html_theme builtin theme",
            "judgments": {"usage/theming.html": 2},
        },
        {
            "id": "m2",
            "kind": "two-page",
            "text": "install with pip in a virtual environment, then the builder program writes pages",
            "judgments": {"usage/installation.html": 2, "man/builder.html": 2},
        },
    ]
    asked.write_text("".join(json.dumps(q) + "\n" for q in questions))
    return folder, asked


def _evaluation_indices(opensearch: Any) -> set[str]:
    return set(opensearch.indices.get(index=f"{ALIAS_PREFIX}*", allow_no_indices=True))
