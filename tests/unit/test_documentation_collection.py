"""The suite's documentation collection (evaluation/documentation.py): the committed questions over
Sphinx's manual, a page's id from its chunks' ids, which files are pages, and the page-level figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest
from retrieval_core.config import Settings
from retrieval_dev.evaluation import debian_docs, documentation
from retrieval_dev.evaluation.collection import CollectionFileError, doc_id_of
from retrieval_dev.evaluation.runner import ModeResult, QueryScore
from retrieval_dev.evaluation.suite import run_suite


def test_the_committed_set_has_forty_questions_and_fifteen_that_need_two_pages() -> None:
    questions = documentation.read_questions()
    kinds = [q.kind for q in questions]
    assert len(questions) >= 40 and len({q.id for q in questions}) == len(questions)
    assert {"how-to", "keyword"} <= set(kinds) and kinds.count("two-page") >= 15
    for question in questions:
        answering = [page for page, grade in question.judgments.items() if grade == 2]
        assert len(answering) >= (2 if question.kind == "two-page" else 1), question.id
        assert all(page.endswith(".html") and not page.startswith("/") for page in question.judgments)
        assert set(question.anchors) <= set(question.judgments), question.id


def test_a_bad_line_is_refused_by_its_number(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "x", "kind": "how-to", "text": "t", "judgments": {}}\n{"id": "y"}\n')
    with pytest.raises(CollectionFileError, match=r"q.jsonl:2: not a question"):
        documentation.read_questions(path)


def test_a_pages_chunks_map_to_its_path_and_other_ids_keep_their_meaning() -> None:
    assert doc_id_of("cran:doc/usage/configuration.html#0003") == "usage/configuration.html"
    assert doc_id_of("cran:doc/index.html#0000") == "index.html"
    assert doc_id_of("cran:doc/12.txt#0000") == "12"  # a collection as files
    assert doc_id_of("cran:d-12") == "12"
    assert doc_id_of("other:doc/usage/configuration.html#0003") is None


def test_pages_leave_out_the_folders_sphinx_writes_its_machinery_into(tmp_path: Path) -> None:
    for name in ("index.html", "usage/theming.html", "_static/x.html", "_modules/a/b.html", "a.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("<html></html>")
    assert [p.as_posix() for p in documentation.pages(tmp_path)] == ["index.html", "usage/theming.html"]


def test_the_two_page_figures_read_only_the_two_page_questions() -> None:
    lines = [
        {"id": "a", "kind": "how-to", "text": "t", "judgments": {"p.html": 2}},
        {"id": "b", "kind": "two-page", "text": "t", "judgments": {"p.html": 2, "q.html": 2}},
        {"id": "c", "kind": "two-page", "text": "t", "judgments": {"p.html": 2, "r.html": 2}},
    ]
    questions = [documentation.DocumentationQuestion.model_validate(line) for line in lines]
    result = ModeResult("auto")
    result.scores = {
        "a": QueryScore(1.0, 1.0, 1.0, recall_at_5=0.0, all_found_at_5=0.0, hit_at_1=1.0),
        "b": QueryScore(0.5, 1.0, 0.5, recall_at_5=1.0, all_found_at_5=1.0, hit_at_1=0.0),
        "c": QueryScore(0.5, 1.0, 1.0, recall_at_5=0.5, all_found_at_5=0.0, hit_at_1=1.0),
    }
    result.latencies_ms, result.round_trips = [10.0, 20.0, 30.0], [2, 2, 3]
    found = documentation.summary(result, questions)
    assert found["hit@1"] == pytest.approx(2 / 3) and found["mrr@10"] == pytest.approx(2.5 / 3)
    assert found["two_page_all_found@5"] == 0.5 and found["two_page_recall@5"] == 0.75
    assert found["recall@5"] == 0.5
    table = documentation.table({"auto": found})
    assert "two-page: both in top 5" in table.splitlines()[0] and "| 0.500 |" in table
    assert json.dumps(found)  # the JSON record holds it as it is


def test_the_suite_runs_only_the_collections_named_and_fetches_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_fetch() -> Path:
        raise AssertionError("fetched a collection nobody asked for")

    monkeypatch.setattr(documentation, "fetched_folder", no_fetch)
    suite = run_suite([], cast(Settings, None), data=tmp_path, only={"CACM-like set nobody has"})
    assert (suite.ndcg, suite.mrr, suite.documentation, suite.summaries) == ({}, {}, {}, {})
    assert "no multi-hop sets under" in capsys.readouterr().out


def test_the_manual_is_skipped_with_its_reason_when_it_cannot_be_fetched(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused() -> Path:
        raise debian_docs.FetchError("apt-get is not here: the documentation folder comes from Debian's x")

    monkeypatch.setattr(debian_docs, "folder", refused)
    assert documentation.fetched_folder() is None
    assert "Sphinx manual: not fetched (apt-get is not here" in capsys.readouterr().out
