"""The precision tool on a folder of its own: ``dump`` lists each (file, name) once with its chunk count,
``score`` counts every mention against the labels and keeps unlabelled ones apart."""

from __future__ import annotations

import json
from pathlib import Path

from retrieval_dev.evaluation.entity_precision import main, read_labels, score


def test_dump_then_score_counts_mentions_against_hand_labels(tmp_path: Path, capsys: object) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# Notes\n\nAnthony Green wrote it at Red Hat. Ask Anthony Green.\n")
    (folder / "skip.bin").write_bytes(b"\x00")
    out = tmp_path / "m.jsonl"
    assert main(["dump", str(folder), "--out", str(out), "--context"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["name"], r["chunks"]) for r in rows} == {("Anthony Green", 1), ("Red Hat", 1)}
    assert all(r["file"].endswith("a.md") and "context" in r for r in rows)
    labels = tmp_path / "labels.jsonl"
    verdicts = {"Anthony Green": True}  # Red Hat left unlabelled on purpose
    labels.write_text(
        "".join(
            json.dumps({**r, "correct": verdicts[r["name"]]}) + "\n" for r in rows if r["name"] in verdicts
        )
    )
    assert score([folder], read_labels(labels)) == {
        "mentions": 2,
        "correct": 1,
        "wrong": 0,
        "unlabelled": 1,
        "precision": 1.0,
    }
