"""Progress on a terminal: done, rate and time left in one redrawn line, at most ten redraws a second;
nothing when stdout or stderr is not a terminal or the command prints JSON; the rebuilder's copy counts
drawn as a bar."""

from __future__ import annotations

import io

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


def test_quiet_when_not_a_terminal_or_asked(terminal: Terminal, monkeypatch: pytest.MonkeyPatch) -> None:
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
