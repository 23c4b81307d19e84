"""`retrieval eval-questions` on the real stack, with questions whose scores are known in advance: the
table's nDCG@5/@10 per split, the calls it counts, and its JSON record must match them.

- ``q-found`` (dev) asks for a word only its one judged item contains: that item ranks first, nDCG 1.
- ``q-ghost`` (test) judges an id that is not in the corpus: nothing relevant can rank, nDCG 0.
- ``q-foreign`` (test) is asked in ``globex`` but judges an ``acme`` item: isolation makes it 0 too.
So dev is 1.000, test 0.000 and all 0.333, in both modes; a miscount of any kind shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from retrieval_core.config import Settings
from retrieval_dev.cli import main

NOW = "2026-06-01T09:00:00Z"


def _item(context: str, item_id: str, text: str) -> dict[str, Any]:
    return {"context_id": context, "id": item_id, "kind": "proposition", "text": text, "created_at": NOW}


CORPUS = [
    _item("acme", "acme:p-q1", "The quillwort reactor was commissioned in the spring."),
    _item("acme", "acme:p-q2", "The payroll cut-off moved to the second Friday."),
    _item("acme", "acme:p-q3", "Lunch is served from noon until two."),
    _item("globex", "globex:p-q1", "The cafeteria closes early on Fridays."),
]
QUESTIONS = [
    {"id": "q-found", "context_id": "acme", "text": "quillwort reactor", "judgments": {"acme:p-q1": 1}},
    {"id": "q-ghost", "context_id": "acme", "text": "payroll cut-off", "judgments": {"acme:p-gone": 2}},
    {"id": "q-foreign", "context_id": "globex", "text": "quillwort reactor", "judgments": {"acme:p-q1": 1}},
]


def test_eval_questions_scores_and_counts_what_the_handler_returned(
    fresh_env: Settings, opensearch: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, questions, out = tmp_path / "corpus.jsonl", tmp_path / "questions.jsonl", tmp_path / "records"
    corpus.write_text("".join(json.dumps(item) + "\n" for item in CORPUS))
    splits = {"q-found": "dev", "q-ghost": "test", "q-foreign": "test"}
    questions.write_text(
        "".join(json.dumps({**q, "now": NOW, "split": splits[q["id"]]}) + "\n" for q in QUESTIONS)
    )

    status = main(
        [
            "eval-questions",
            "--questions",
            str(questions),
            "--corpus",
            str(corpus),
            "--out",
            str(out),
            "--no-cache",
        ]
    )

    assert status == 0
    printed = capsys.readouterr().out
    (saved,) = out.glob("questions-*.json")
    record = json.loads(saved.read_text())
    table = {
        tuple(line.split()[:3]): line.split()[3:]
        for line in printed.splitlines()
        if line[:4] in {"dev ", "test", "all "}
    }
    expected = {"dev": ("1", "1.000"), "test": ("2", "0.000"), "all": ("3", "0.333")}
    for mode in ("hybrid", "auto"):
        run = record["runs"][mode]
        assert run["ndcg@5"] == {"q-found": 1.0, "q-ghost": 0.0, "q-foreign": 0.0}, mode
        assert run["ndcg@10"] == run["ndcg@5"], mode
        calls = sum(run["round_trips"]) / len(run["round_trips"])
        assert all(trips >= 1 for trips in run["round_trips"]), mode  # every question reached OpenSearch
        for split, (count, score) in expected.items():
            at5, at10, shown_calls, _p50 = table[(split, mode, count)]
            assert (at5, at10) == (score, score), (split, mode)
            if split == "all":
                assert float(shown_calls) == pytest.approx(calls, abs=0.005)
