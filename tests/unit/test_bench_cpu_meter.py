"""``bench/cpu_meter.py``'s arithmetic: the CPU seconds read from a ``/proc/<pid>/stat`` line, the windows
at either end of a run (files counted as a batch reports them), their figures per file, and the progress
text. No timing is asserted: the readings are made up."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench.cpu_meter import (
    TICKS_PER_SECOND,
    Meter,
    Reading,
    between,
    costliest,
    cpu_seconds_in_stat,
    ends,
    first,
    last,
    process_cpu_seconds,
    progress_text,
    series,
    stack_pids,
)


def readings(*rows: tuple[int, float, float, float, float]) -> list[Reading]:
    """``(files, wall, own, stack, load)`` each: the stack's CPU 3/4 OpenSearch's, 1/4 moto's."""
    return [
        Reading(files, wall, own, stack * 0.75, stack * 0.25, load) for files, wall, own, stack, load in rows
    ]


def test_the_cpu_seconds_are_user_plus_system_read_after_the_command() -> None:
    # pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    tail = "S 1 2 3 4 5 6 7 8 9 10 250 50 7 7 20 0 1 0"
    assert cpu_seconds_in_stat(f"42 (java) {tail}") == pytest.approx(300 / TICKS_PER_SECOND)
    # a command holding spaces and a parenthesis does not shift the fields
    assert cpu_seconds_in_stat(f"42 (a) b (c) {tail}") == pytest.approx(300 / TICKS_PER_SECOND)


def test_a_process_that_is_gone_has_no_readable_time_and_this_one_has_some() -> None:
    assert process_cpu_seconds(2**22 + 12345) == 0.0
    assert process_cpu_seconds(os.getpid()) >= 0.0


def test_a_window_adds_the_process_and_its_stack_per_file() -> None:
    window = between(
        readings((100, 10.0, 5.0, 1.0, 3.0), (150, 30.0, 12.0, 4.0, 7.0), (200, 60.0, 20.0, 6.0, 5.0))
    )
    assert window.files == 100 and window.wall_seconds == 50.0
    assert window.cpu_seconds == pytest.approx(20.0)  # (20 - 5) own + (6 - 1) stack
    assert window.opensearch_cpu_seconds == pytest.approx(3.75) and window.moto_cpu_seconds == pytest.approx(
        1.25
    )
    assert window.wall_ms_per_file == pytest.approx(500.0) and window.cpu_ms_per_file == pytest.approx(200.0)
    assert window.files_per_second == pytest.approx(2.0)
    assert (window.load_low, window.load_high) == (3.0, 7.0)


def test_the_first_window_ends_at_the_first_reading_its_size_past_the_start() -> None:
    run = readings(
        (0, 0.0, 0.0, 0.0, 1.0),
        (32, 10.0, 4.0, 1.0, 2.0),
        (64, 20.0, 8.0, 2.0, 2.0),  # a batch: 32 files at once
        (96, 30.0, 12.0, 3.0, 9.0),
    )
    head = first(run, 50)
    assert head.files == 64 and head.cpu_seconds == pytest.approx(10.0) and head.load_high == 2.0


def test_the_last_window_starts_at_the_latest_reading_its_size_before_the_end() -> None:
    run = readings(
        (0, 0.0, 0.0, 0.0, 1.0),
        (40, 10.0, 4.0, 0.0, 1.0),
        (80, 20.0, 8.0, 0.0, 1.0),
        (100, 50.0, 20.0, 4.0, 6.0),
        (100, 55.0, 22.0, 5.0, 6.0),  # the last batch's commit, after the last file's reading
    )
    tail = last(run, 50)
    assert tail.files == 60 and tail.wall_seconds == pytest.approx(45.0)
    assert tail.cpu_seconds == pytest.approx(23.0)  # own 22 - 4, stack 5 - 0


def test_the_ends_compare_cost_per_file_in_wall_and_in_cpu() -> None:
    # the machine got busier (wall doubles) while the work per file stayed the same (CPU flat)
    run = [
        Reading(
            files,
            files * (1.0 if files <= 500 else 2.0) - (files > 500) * 500,
            files * 0.3,
            files * 0.1,
            files * 0.05,
            2.0,
        )
        for files in range(0, 1_501, 50)
    ]
    found = ends(run, 500)
    assert found["first"]["files"] == 500 and found["last"]["files"] == 500
    assert found["last_over_first_wall"] == pytest.approx(2.0)
    assert found["last_over_first_cpu"] == pytest.approx(1.0)
    assert found["whole"]["files"] == 1_500


def test_the_progress_text_says_first_and_latest_cpu_per_file_and_the_load() -> None:
    run = readings((0, 0.0, 0.0, 0.0, 2.0), (500, 100.0, 150.0, 50.0, 3.0), (1_000, 200.0, 370.0, 80.0, 4.5))
    text = progress_text(run, 500)
    assert "first 500 400, latest 500 500 (1.25x); load 4.5" in text
    assert progress_text(run[:2], 500) == ""


def test_the_stack_is_read_by_service_from_its_pid_files(tmp_path) -> None:
    assert stack_pids(tmp_path) == {"opensearch": [], "moto": []}
    # A child in a session of its own stands for a service, as dev.stack starts each: the live leader
    # of its own group, whatever group the test runner is in (that group's leader may have exited).
    service = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE, start_new_session=True
    )
    try:
        (tmp_path / "dynamodb.pid").write_text(json.dumps({"pid": service.pid, "port": 1, "command": "x"}))
        (tmp_path / "opensearch.pid").write_text("not json")
        found = stack_pids(tmp_path)
        assert found["opensearch"] == [] and found["moto"] == [service.pid]
    finally:
        service.kill()
        service.wait()


def test_without_a_stack_here_the_meter_reads_only_this_process() -> None:
    meter = Meter(stack={})
    reading = meter.read(3)
    assert reading.files == 3 and reading.stack == 0.0 and reading.own >= 0.0 and reading.wall >= 0.0
    assert [r.files for r in meter.readings] == [0, 3]


def test_a_reading_survives_its_json_row() -> None:
    reading = Reading(7, 1.5, 0.75, 0.25, 0.125, 3.0)
    assert Reading.of(reading.row()) == reading


def test_the_series_cuts_a_run_into_windows_and_names_the_costliest_with_its_services() -> None:
    run = readings(
        (0, 0.0, 0.0, 0.0, 1.0),
        (2, 2.0, 1.0, 1.0, 1.0),
        (4, 4.0, 2.0, 2.0, 1.0),  # a window of 4 files: 0.5 s own and 0.5 s of stack a file
        (7, 8.0, 5.0, 6.0, 1.0),  # a batch finishing three at once: not yet 4 files past the cut
        (9, 9.0, 6.0, 6.0, 1.0),  # 5 files past it: the window ends here
        (12, 10.0, 7.0, 7.0, 1.0),  # what is left (3 files) joins the last window
        (13, 10.5, 7.5, 7.5, 1.0),
    )
    assert [(w.files, w.cpu_seconds) for w in series(run, 4)] == [(4, 4.0), (5, 8.0), (4, 3.0)]
    worst = costliest(run, 4)
    assert worst is not None
    done, window = worst
    assert done == 4 and window.files == 5 and window.cpu_ms_per_file == pytest.approx(1600)
    figures = ends(run, 4)
    assert figures["costliest"]["after_files"] == 4  # type: ignore[index]
    assert figures["series"] == [  # files done, then wall, process, OpenSearch, moto ms a file
        [4, 1000.0, 500.0, 375.0, 125.0],
        [9, 1000.0, 800.0, 600.0, 200.0],
        [13, 375.0, 375.0, 281.2, 93.8],
    ]
    assert [(w.files, w.cpu_seconds) for w in series(run[:3], 40)] == [(4, 4.0)]  # fewer than a window


def test_the_final_commit_reading_with_no_file_more_joins_the_last_window() -> None:
    """A sync's last reading is its last batch's commit, after the last file's progress: no file more.
    It belongs to the last window (as in ``last``), never a window of its own (no cost a file)."""
    run = readings(
        (0, 0.0, 0.0, 0.0, 1.0),
        (4, 4.0, 2.0, 2.0, 1.0),
        (8, 8.0, 4.0, 4.0, 1.0),
        (8, 9.0, 5.0, 5.0, 1.0),  # the final commit
    )
    windows = series(run, 4)
    assert [(w.files, w.wall_seconds) for w in windows] == [(4, 4.0), (4, 5.0)]
    assert windows[-1].cpu_seconds == last(run, 4).cpu_seconds
    assert ends(run, 4)["costliest"]["after_files"] == 4  # type: ignore[index]
    assert series(readings((0, 0.0, 0.0, 0.0, 1.0), (0, 1.0, 1.0, 1.0, 1.0)), 4) == []
    assert costliest(readings((0, 0.0, 0.0, 0.0, 1.0)), 4) is None


def test_windows_started_later_leave_what_came_before_out_of_every_window() -> None:
    meter = Meter(stack={})
    meter.read(0)  # a pre-pass's progress, before any file
    start = meter.start_windows_here()
    meter.read(3)
    assert [reading.files for reading in meter.readings] == [0, 3]
    assert meter.readings[0] is start
    assert between(meter.readings).wall_seconds == meter.readings[1].wall - start.wall
