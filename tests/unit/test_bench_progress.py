"""The bench's progress bar and its per-section checkpoint (``make bench SCALE=xlarge`` runs long)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.__main__ import Checkpoint
from bench.progress import bar


def test_the_bar_shows_share_count_rate_and_time_left() -> None:
    assert bar(250_000, 1_000_000, 50.0, width=8) == "[##------]  25% 250,000/1,000,000 5,000/s, 2m30s left"
    assert bar(0, 10, 0.0, width=4).endswith("0/s, ? left")
    assert bar(10, 10, 2.0, width=4).startswith("[####] 100%")


def test_a_resumed_run_skips_what_a_stopped_one_saved_and_a_finished_one_leaves_nothing(
    tmp_path: Path,
) -> None:
    first = Checkpoint(tmp_path, "xlarge", resume=False)
    first.record("retrieve", {"p50": 1.0})
    assert json.loads((tmp_path / "partial-xlarge.json").read_text()) == {"retrieve": {"p50": 1.0}}

    resumed = Checkpoint(tmp_path, "xlarge", resume=True)
    sections = ("retrieve", "filtered")
    assert not resumed.wants("retrieve", sections) and resumed.wants("filtered", sections)
    assert not resumed.wants("graph", sections)  # not asked for
    assert Checkpoint(tmp_path, "xlarge", resume=False).wants("retrieve", sections)  # a fresh run redoes all
    resumed.finish()
    assert not (tmp_path / "partial-xlarge.json").exists()
