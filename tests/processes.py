"""A command run to its end from a test: one place for how (output captured as text, a timeout, the
repository as the working directory) and for what a failure shows (the command, its exit status and
the end of its output), instead of the same ``subprocess.run`` block in every test file."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_SECONDS = 300.0
SHOWN_CHARS = 3000


def finished(
    command: Sequence[str | Path],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path = REPO,
    stdin: str | None = None,
    timeout: float = TIMEOUT_SECONDS,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run ``command``; with ``check``, a non-zero exit fails the test with what the command said."""
    args = [str(part) for part in command]
    done = subprocess.run(
        args,
        cwd=cwd,
        env=None if env is None else dict(env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if check:
        assert done.returncode == 0, (
            f"{shlex.join(args)} exited with {done.returncode}:\n"
            f"{done.stdout[-SHOWN_CHARS:]}\n{done.stderr[-SHOWN_CHARS:]}"
        )
    return done


def python(
    code: str, *, env: Mapping[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter of this venv (nothing imported yet), from the repository."""
    return finished([sys.executable, "-c", code], env=env, check=check)
