"""Background processes for the dev stack: start detached, find out if they still live, stop them for good.

Why its own module: every service of the stack (OpenSearch, moto) needs the same lifecycle, and the
subtle parts (process groups, zombies, ports held by strangers) belong in one place.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

LOOPBACK = "127.0.0.1"


def spawn_detached(command: Sequence[str], log_path: Path, cwd: Path) -> int:
    """Start ``command`` in a new session (its own process group), output replacing ``log_path``.

    A new session means the service survives the ``up`` command that started it, and ``down`` can
    signal the whole group (the JVM or moto plus anything they fork) at once.
    """
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return process.pid


def _state(pid: int) -> str | None:
    """The kernel's one-letter state of ``pid`` (``None`` if there is no such process)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def is_alive(pid: int) -> bool:
    """True if ``pid`` runs; a zombie (exited, not yet reaped by its new parent) counts as gone."""
    return _state(pid) not in (None, "Z", "X")


def command_line(pid: int) -> str:
    """The process's command line joined by spaces, or an empty string if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def group_members(pgid: int) -> list[int]:
    """Live processes in process group ``pgid`` (what must be gone before ``down`` may say so)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            if os.getpgid(pid) == pgid and is_alive(pid):
                members.append(pid)
        except ProcessLookupError:
            continue
    return members


def resident_memory_mb(pid: int) -> float | None:
    """Resident set size of ``pid`` in MiB, from ``/proc`` (``None`` if it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return None


class StopError(RuntimeError):
    """A process group survived SIGTERM and SIGKILL; ``down`` must not claim it stopped."""


def stop_group(pgid: int, grace_seconds: float = 30.0) -> None:
    """SIGTERM the group, wait up to ``grace_seconds`` for it to exit, then SIGKILL what is left.

    Waits until no member is alive, so a following ``up`` never races a dying JVM for its port.
    """
    for sig, wait in ((signal.SIGTERM, grace_seconds), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not group_members(pgid):
                return
            time.sleep(0.2)
    survivors = group_members(pgid)
    if survivors:
        raise StopError(f"process group {pgid} still has live members {survivors} after SIGKILL")


def port_in_use(port: int, host: str = LOOPBACK) -> bool:
    """True if something listens on ``host:port`` (binding fails); TIME_WAIT leftovers do not count."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def free_port(host: str = LOOPBACK) -> int:
    """A port nothing listens on at ``host`` (now): the kernel's pick."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class NotServingError(RuntimeError):
    """A child meant to serve on a port exited first, or did not accept a connection in time."""


def _wait_until_accepting(process: subprocess.Popen[bytes], name: str, port: int, seconds: float) -> None:
    """Return once the loopback ``port`` accepts a connection. Between tries it waits on ``process``, so
    a child that crashed is reported at once (with its exit code), not after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection((LOOPBACK, port), timeout=1):
                return
        except OSError:
            pass
        try:
            code = process.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                raise NotServingError(
                    f"{name} did not accept connections on port {port} in {seconds:.0f}s"
                ) from None
            continue
        raise NotServingError(f"{name} exited with {code} before accepting connections")


@contextmanager
def serving(
    command: Sequence[str],
    *,
    port: int,
    log: Path,
    env: Mapping[str, str],
    cwd: Path | None = None,
    ready_seconds: float = 30.0,
) -> Iterator[str]:
    """``command`` (which listens on the loopback ``port``) running until the block ends, its output in
    ``log``; yields its base URL. Raises ``NotServingError`` when it does not come up; stopped with
    SIGTERM, then SIGKILL after 10 s."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            list(command), cwd=cwd, env=dict(env), stdout=output, stderr=subprocess.STDOUT
        )
        try:
            _wait_until_accepting(process, Path(command[0]).name, port, ready_seconds)
            yield f"http://{LOOPBACK}:{port}"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
