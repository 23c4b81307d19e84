"""``bench/sync_scale.py``'s figures: the growth of the cost per file (first window against the last), the
progress line a long run prints with its figures so far, and the link oracle's title lookup."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bench.sync_pages import page, titles
from bench.sync_scale import (
    DEPLOYED,
    WINDOW,
    command_line,
    flattened,
    growth_of,
    link_count,
    progress_line,
    runs,
    titles_in,
)


def test_growth_compares_the_first_window_with_the_last() -> None:
    costs = [0.2] * WINDOW + [0.3] * 1_000 + [0.5] * WINDOW
    growth = growth_of(costs)
    assert growth["window"] == WINDOW
    assert growth["first_ms"] == pytest.approx(200) and growth["last_ms"] == pytest.approx(500)
    assert growth["last_over_first"] == pytest.approx(2.5)


def test_a_short_run_compares_its_thirds() -> None:
    growth = growth_of([1.0, 1.0, 2.0, 2.0, 3.0, 3.0])
    assert growth["window"] == 2 and growth["last_over_first"] == pytest.approx(3.0)


def test_the_progress_line_says_the_rate_the_ratio_the_growth_and_the_time_left() -> None:
    costs = [0.5] * 600 + [1.0] * 600  # 900 s for 1,200 files
    line = progress_line("sync", costs, 6_000, floor=2.0)
    assert "sync 1,200/6,000 files in 900 s, 1.33 files/s (1.50x the embed-only process)" in line
    assert "first 500 500, latest 500 1,000 (2.00x)" in line
    assert "3,600 s left at this rate" in line


def test_the_progress_line_of_a_run_just_begun_has_no_window_and_no_ratio() -> None:
    line = progress_line("handler", [0.25], 10)
    assert line == "sync-scale: handler 1/10 files in 0 s, 4.00 files/s; 2 s left at this rate"


def test_the_link_oracle_finds_what_one_alternation_of_every_title_finds() -> None:
    names = titles(200, seed=3)
    longest_first = sorted(names, key=len, reverse=True)
    alternation = re.compile(r"\b(?:" + "|".join(re.escape(name) for name in longest_first) + r")\b")
    rng = random.Random(4)
    for title in names[:20]:
        text = page(title, names, rng)
        expected = {found.group() for found in alternation.finditer(text)}
        assert len(expected) > 1
        assert titles_in(text, set(names)) == expected


def test_the_link_oracle_takes_whole_words_written_one_space_apart() -> None:
    named = {"Kalo Ven", "Kalo Ven Mir", "Dra Sol"}
    assert titles_in("the Kalo Ven Mir road and Dra  Sol and Dra Solx and Kalo Ven.", named) == {
        "Kalo Ven Mir",
        "Kalo Ven",
    }


def test_the_link_count_names_the_links_the_index_lacks_and_not_a_pages_own_title() -> None:
    named = {"Kalo Ven", "Dra Sol", "Mir Tas"}
    page = {"entity_id": "c:page/kalo", "name": "Kalo Ven", "type": "page"}
    sources = [
        {  # names Dra Sol and Mir Tas; holds Dra Sol only
            "id": "c:doc/kalo#0001",
            "text": "Kalo Ven lies by Dra Sol and Mir Tas.",
            "mentions": [
                page | {"role": "about"},
                {"entity_id": "c:page/dra", "name": "Dra Sol", "type": "page"},
            ],
        },
        {
            "id": "c:doc/dra#0000",
            "text": "Dra Sol borders Kalo Ven.",
            "mentions": [
                {"entity_id": "c:page/dra", "name": "Dra Sol", "type": "page", "role": "about"},
                page,
            ],
        },
    ]
    found = link_count(sources, named)
    assert (found["expected"], found["held"]) == (3, 2)
    assert found["missing"] == [{"chunk": "c:doc/kalo#0001", "title": "Mir Tas", "mentions": 2}]


def _runs(*options: str) -> dict[str, object]:
    parser = command_line()
    return runs(parser, parser.parse_args(["measure", *options]))


def test_sync_only_runs_the_sync_alone_and_refuses_an_option_that_runs_more() -> None:
    """``medium``'s target (last 500 files over first 500) needs the sync alone: no embed-only process
    and no handler loop, hours of their own at 50,000 pages."""
    assert _runs("--pages", "50000", "--sync-only") == {
        "pages": 50_000,
        "deployed": 0,
        "embed_only": False,
        "sync": True,
    }
    assert _runs() == {"pages": 6_000, "deployed": DEPLOYED["small"], "embed_only": True, "sync": True}
    assert _runs("--deployed", "0", "--no-embed-only")["deployed"] == 0
    for conflicting in (["--deployed", "10"], ["--no-sync"]):
        with pytest.raises(SystemExit):
            _runs("--sync-only", *conflicting)


def test_a_real_folder_is_flattened_to_the_files_the_ingest_reads_and_last_keeps_the_sync_orders_end(
    tmp_path: Path,
) -> None:
    """``measure FOLDER``: the children read one level, so ``a/b.html`` becomes ``a__b.html``; files of
    no format the ingest reads stay out; ``--last N`` keeps the last N in the sync's (sorted) order."""
    source = tmp_path / "manual"
    for relative in ("index.html", "library/os.html", "library/re.html", "tutorial/intro.md", "logo.png"):
        (source / relative).parent.mkdir(parents=True, exist_ok=True)
        (source / relative).write_text(f"<h1>{relative}</h1>")
    assert flattened(source, tmp_path / "all") == 4
    assert sorted(path.name for path in (tmp_path / "all").iterdir()) == [
        "index.html",
        "library__os.html",
        "library__re.html",
        "tutorial__intro.md",
    ]
    assert (tmp_path / "all" / "library__os.html").read_text() == "<h1>library/os.html</h1>"
    assert flattened(source, tmp_path / "late", last=2) == 2
    assert sorted(path.name for path in (tmp_path / "late").iterdir()) == [
        "library__re.html",
        "tutorial__intro.md",
    ]


def test_last_without_a_folder_is_refused() -> None:
    for options in (["--last", "10"], ["some-folder", "--last", "0"]):
        with pytest.raises(SystemExit):
            _runs(*options)
