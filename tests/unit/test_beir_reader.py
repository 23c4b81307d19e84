"""The BEIR layout read into the evaluation's collection: fields, the qrels header, the split, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from retrieval_dev.evaluation.beir import read_beir
from retrieval_dev.evaluation.collection import CollectionFileError

JUDGED = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\n3\t7\t0\n"


def _folder(root: Path, *, qrels: str = JUDGED) -> Path:
    corpus = [
        {"_id": "d1", "title": "Heat transfer", "text": "in laminar boundary layers", "metadata": {}},
        {"_id": "d2", "title": "", "text": "shock waves"},
        {"_id": 7, "text": "a numeric id"},
    ]
    queries = [
        {"_id": "q1", "text": "boundary layer heat", "metadata": {}},
        {"_id": 3, "text": "numbers"},
        {"_id": "q-unjudged", "text": "nobody judged this"},
    ]
    (root / "corpus.jsonl").write_text("".join(json.dumps(row) + "\n" for row in corpus))
    (root / "queries.jsonl").write_text("\n".join(json.dumps(row) for row in queries))
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(qrels)
    return root


def test_reads_corpus_queries_and_the_split_s_judgments(tmp_path: Path) -> None:
    collection = read_beir(_folder(tmp_path))

    assert [(d.id, d.text) for d in collection.documents] == [
        ("d1", "Heat transfer\nin laminar boundary layers"),
        ("d2", "shock waves"),
        ("7", "a numeric id"),
    ]
    # Only judged queries are evaluated (BEIR's convention); ids are strings either way.
    assert [(q.id, q.text) for q in collection.queries] == [("q1", "boundary layer heat"), ("3", "numbers")]
    assert collection.qrels == {"q1": {"d1": 1, "d2": 2}, "3": {"7": 0}}


def test_another_split_is_read_from_its_own_file(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "qrels" / "dev.tsv").write_text("query-id\tcorpus-id\tscore\n3\td2\t1\n")

    collection = read_beir(folder, "dev")

    assert [q.id for q in collection.queries] == ["3"]
    assert collection.qrels == {"3": {"d2": 1}}


@pytest.mark.parametrize(
    ("qrels", "message"),
    [
        ("q1\td1\t1\n", "header"),
        ("query-id\tcorpus-id\tscore\nq1\td1\n", "test.tsv:2"),
        ("query-id\tcorpus-id\tscore\nq1\td1\thigh\n", "integer score"),
        ("query-id\tcorpus-id\tscore\nnobody\td1\t1\n", "no query"),
    ],
)
def test_a_bad_qrels_file_is_named(tmp_path: Path, qrels: str, message: str) -> None:
    with pytest.raises(CollectionFileError, match=message):
        read_beir(_folder(tmp_path, qrels=qrels))


def test_a_missing_split_or_a_bad_line_is_named(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    with pytest.raises(CollectionFileError, match=r"train\.tsv: no such file"):
        read_beir(folder, "train")
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "fine"}\n{"title": "no id"}\n')
    with pytest.raises(CollectionFileError, match=r"corpus\.jsonl:2: needs the fields _id"):
        read_beir(folder)
