"""Where the judged collections are read from, and that the repository does not hold them."""

from __future__ import annotations

from pathlib import Path

import pytest
from retrieval_dev.evaluation.collection import (
    DATA_ENV,
    CollectionFileError,
    cacm,
    cranfield_dev,
    data_root,
    read_collection,
)
from retrieval_dev.evaluation.suite import DOCUMENT_COLLECTIONS, multihop_sets

from tests.eval_collections import SHARED_DATA, data_folder

REPO = Path(__file__).resolve().parents[2]


def test_the_product_has_no_default_folder_and_says_how_to_name_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # A user's clone has nothing beside it: reading ../shared/data would be reading the team's folder.
    monkeypatch.delenv(DATA_ENV, raising=False)
    with pytest.raises(CollectionFileError) as raised:
        data_root()
    assert "--data DIR" in raised.value.message and DATA_ENV in raised.value.message


def test_the_tests_read_the_shared_data_set_beside_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_ENV, raising=False)
    assert data_folder() == SHARED_DATA == REPO.parent / "shared" / "data"


def test_the_option_wins_over_the_environment_which_wins_over_the_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    assert data_root() == tmp_path / "env"
    assert data_root(tmp_path / "option") == tmp_path / "option"


def test_each_collection_names_its_own_files_under_the_root(tmp_path: Path) -> None:
    assert cranfield_dev(tmp_path) == (
        tmp_path / "cranfield" / "documents.json",
        tmp_path / "cranfield" / "queries-dev.json",
        tmp_path / "cranfield" / "qrels-dev.json",
    )
    assert cacm(tmp_path).qrels == tmp_path / "cacm" / "qrels.json"
    assert {name: files(tmp_path).documents.parent.name for name, files in DOCUMENT_COLLECTIONS.items()} == {
        "Cranfield dev": "cranfield",
        "CACM": "cacm",
    }


def test_a_missing_collection_says_where_it_was_looked_for_and_how_to_give_another(tmp_path: Path) -> None:
    with pytest.raises(CollectionFileError) as raised:
        read_collection(*cranfield_dev(tmp_path))
    assert str(tmp_path / "cranfield" / "qrels-dev.json") in raised.value.message
    assert "--data DIR" in raised.value.message and DATA_ENV in raised.value.message


def test_the_repository_holds_only_the_teams_own_data() -> None:
    # CACM and Cranfield are read from ../shared/data and Sphinx's pages from Debian's package into an
    # ignored cache; a copy here would be committed by accident. Only the questions are ours.
    assert sorted(p.name for p in (REPO / "data").iterdir()) == ["agent-questions", "sphinx-doc-questions"]
    assert sorted(p.name for p in (REPO / "data" / "sphinx-doc-questions").iterdir()) == [
        "README.md",
        "questions.jsonl",
    ]


def test_the_suite_finds_each_multihop_sets_beir_folder_and_runs_without_them_when_absent(
    tmp_path: Path,
) -> None:
    assert multihop_sets(tmp_path) == {}
    for name in ("musique_dev", "hotpotqa_dev"):
        (tmp_path / "multihop" / name / "beir").mkdir(parents=True)
    (tmp_path / "multihop" / "notes").mkdir()  # no beir/ inside: not a set

    assert multihop_sets(tmp_path) == {
        "hotpotqa_dev": tmp_path / "multihop" / "hotpotqa_dev" / "beir",
        "musique_dev": tmp_path / "multihop" / "musique_dev" / "beir",
    }
    assert list(multihop_sets(tmp_path)) == ["hotpotqa_dev", "musique_dev"]
