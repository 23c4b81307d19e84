"""Progress on a terminal: done, rate and time left in one redrawn line, at most ten redraws a second.
Off one, a plain line at least every 30 s (a heartbeat's while one item holds the count), on an injected
clock; nothing when the command prints JSON; the rebuilder's copy counts drawn as a bar."""

from __future__ import annotations

import io
import threading

import pytest
from retrieval_dev.cli.progress import CopyProgress, Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    """stderr's stand-in; stdout is a terminal too (set where the bar is built: pytest's capture
    replaces sys.stdout between a fixture's setup and the test)."""
    monkeypatch.setattr("retrieval_dev.cli.progress._is_terminal", lambda stream: stream.isatty())
    monkeypatch.setattr("retrieval_dev.cli.progress.sys", _Sys())
    return Terminal()


class _Sys:
    stdout = Terminal()
    stderr = Terminal()


def test_the_line_shows_done_rate_and_time_left(terminal: Terminal) -> None:
    now = [100.0]
    bar = Progress(40, stream=terminal, label="syncing", unit="files", clock=lambda: now[0])
    assert terminal.getvalue() == "\rsyncing [------------------------] 0/40 files\x1b[K"  # at once
    now[0] = 104.0
    bar.update(10)
    assert terminal.getvalue().endswith(
        "\rsyncing [######------------------] 10/40 files  2.5/s  0:12 left\x1b[K"
    )
    now[0] = 104.05
    bar.update(11)  # within a tenth of a second: not drawn again
    assert terminal.getvalue().count("\r") == 2
    now[0] = 116.0
    bar.update(40)  # the last step is always drawn, and ends the line
    assert terminal.getvalue().endswith("\rsyncing [########################] 40/40 files  0:16\x1b[K\n")


def test_no_bar_off_a_terminal_and_nothing_at_all_when_asked(
    terminal: Terminal, monkeypatch: pytest.MonkeyPatch
) -> None:
    piped = io.StringIO()
    Progress(3, stream=piped).advance(3)
    quiet = Progress(3, stream=terminal, quiet=True)  # --json
    quiet.advance(3)
    quiet.close()
    assert piped.getvalue() == terminal.getvalue() == ""
    monkeypatch.setattr(_Sys, "stdout", io.StringIO())  # stdout piped: no bar on stderr either
    Progress(3, stream=terminal).advance(3)
    assert terminal.getvalue() == ""


def test_a_bar_stopped_short_ends_its_line(terminal: Terminal) -> None:
    bar = Progress(5, stream=terminal)
    bar.advance(2)
    bar.close()
    assert terminal.getvalue().endswith("\x1b[K\n")


def test_rebuild_copies_draw_as_a_bar_and_other_lines_print(terminal: Terminal) -> None:
    progress = CopyProgress(terminal)
    progress("acme: copied 0 of ~2000")
    progress("acme: copied 2000 of ~2000")
    progress("acme: writes held while copying 0 last changes, 0 deletes; switched")
    out = terminal.getvalue()
    assert "acme: copied [########################] 2000/2000 documents" in out
    assert out.endswith("switched\n")


def test_off_a_terminal_a_plain_line_comes_at_least_every_30_seconds_then_where_it_ended() -> None:
    now = [0.0]
    log = io.StringIO()  # CI's log, an agent's shell: not a terminal
    bar = Progress(1000, stream=log, label="syncing", unit="files", clock=lambda: now[0], heartbeat=False)
    assert bar.plain and not bar.shown
    for second in range(1, 121):  # two minutes, ten files a second
        now[0] = float(second)
        bar.update(second * 5)
    lines = log.getvalue().splitlines()
    assert lines[0] == "syncing: 100/1000 files (10%)  5.0/s  3:00 left"  # 20 s in
    assert len(lines) == 6  # at 20, 40, ..., 120 s: never more than 30 s apart, never a flood
    now[0] = 130.0
    bar.tick()  # a slow file holds the count: 10 s after the last line, nothing yet
    now[0] = 150.0
    bar.tick()
    assert log.getvalue().splitlines()[-1] == "syncing: 600/1000 files (60%)  4.0/s  1:40 left"
    bar.update(1000)  # done: where it ended, once, and the heartbeat stops
    bar.close()
    assert log.getvalue().splitlines()[-1] == "syncing: 1000/1000 files (100%)  2:30  (done)"
    now[0] = 500.0
    bar.tick()
    assert len(log.getvalue().splitlines()) == 8  # six, the slow file's, the end: nothing after


def test_a_short_command_off_a_terminal_prints_nothing_more_than_before() -> None:
    now = [0.0]
    log = io.StringIO()
    bar = Progress(3, stream=log, clock=lambda: now[0], heartbeat=False)
    now[0] = 19.0
    bar.advance(2)
    bar.close()  # stopped short, within PLAIN_SECONDS: nothing said
    assert log.getvalue() == ""


def test_the_heartbeat_ticks_without_any_update(monkeypatch: pytest.MonkeyPatch) -> None:
    """One file that takes minutes still gets its lines: the heartbeat thread calls ``tick``."""
    written = threading.Event()

    class Log(io.StringIO):
        def write(self, text: str) -> int:
            written.set()
            return super().write(text)

    monkeypatch.setattr("retrieval_dev.cli.progress.HEARTBEAT_SECONDS", 0.001)
    now = [0.0]
    log = Log()
    bar = Progress(10, stream=log, label="syncing", unit="files", clock=lambda: now[0])
    now[0] = 25.0  # the clock moves on; nothing calls update
    assert written.wait(timeout=10)
    bar.close()
    assert log.getvalue().splitlines()[0] == "syncing: 0/10 files (0%)"


def test_slow_work_says_seconds_each_not_zero_per_second() -> None:
    now = [0.0]
    slow = Progress(90, stream=io.StringIO(), clock=lambda: now[0], heartbeat=False)
    now[0] = 250.0
    slow.advance(10)
    assert slow.plain_line(now[0]) == "loading: 10/90 lines (11%)  25 s each  33:20 left"
