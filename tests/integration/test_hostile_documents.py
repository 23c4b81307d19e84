"""Issue 52 against the local stack, through `retrieval sync` as a process: a folder holding every
hostile file of the issue (a link out of the folder, a newline in a name, a key past S3's limit, a
sidecar nested 4,000 deep, a CSV row of 1,000,000 columns, 100,000 code-fence lines, NUL bytes, invalid
UTF-8) and two good files. The report lists every one, the good ones indexed, the others failed or
skipped naming their bound, no text from outside the folder anywhere, the sync's memory bounded, and a
second sync reports the same fates. A sync killed mid-file leaves the file `pending`, and the next one
indexes it (before, the next sync said `unchanged` of a file that was never indexed)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_process import RETRIEVAL
from hostile_folder import Deployment, deployment, run_measured, status, texts
from retrieval_core.bootstrap import container
from retrieval_core.config import Settings

from tests import hostile_documents as hostile
from tests.processes import REPO, finished

OUTSIDE = "root-marker:x:0:0:root:/root:/bin/bash"
MAX_SYNC_RSS_MB = 1_024
"""What the sync process may reach on this folder, measured as its own peak
(``hostile_folder.run_measured``); the wide CSV alone took 2.67 GB before. The fenced Markdown's
1.56 GB is caught by its ``(chunks)`` failure and the time bound."""
GOOD = {
    "good.txt": "The harbour master keeps the lighthouse log.",
    "guide.md": "# Guide\n\nTides turn twice a day.",
}


@pytest.fixture
def docs(fresh_settings: Settings) -> Iterator[Deployment]:
    with deployment(fresh_settings, "host") as scratch:
        yield scratch


def _hostile_folder(tmp_path: Path) -> Path:
    (tmp_path / "passwd").write_text(OUTSIDE + "\n")
    folder = tmp_path / "kb"
    folder.mkdir()
    for name, text in GOOD.items():
        (folder / name).write_text(text)
    (folder / "passwd_link.txt").symlink_to(tmp_path / "passwd")
    (folder / "new\nline.txt").write_text("A newline in the name.")
    deep = folder / ("d" * 250) / ("e" * 250) / ("f" * 250) / ("g" * 250)
    deep.mkdir(parents=True)
    (deep / "long.txt").write_text("A key past S3's limit.")
    (folder / "deep.txt").write_text("A file whose sidecar nests too deep.")
    (folder / "deep.txt.metadata.json").write_bytes(hostile.deep_sidecar())
    (folder / "wide.csv").write_bytes(hostile.wide_csv())
    (folder / "fences.md").write_bytes(hostile.fenced_markdown())
    (folder / "nul.txt").write_bytes(b"text\x00with NUL bytes")
    (folder / "latin1.txt").write_bytes(b"caf\xe9 au lait")
    return folder


EXPECTED = {
    "good.txt": ("indexed", ""),
    "guide.md": ("indexed", ""),
    "passwd_link.txt": ("skipped", "symbolic link"),
    "new\\nline.txt": ("failed", "control character"),
    "deep.txt": ("failed", "(json_depth)"),
    "wide.csv": ("failed", "(columns)"),
    "fences.md": ("failed", "(chunks)"),
    "nul.txt": ("failed", "NUL"),
    "latin1.txt": ("failed", "UTF-8"),
}


def _sync(scratch: Deployment, folder: Path) -> tuple[dict[str, tuple[str, str]], float]:
    returncode, stdout, stderr, rss_mb = run_measured(
        [str(RETRIEVAL), "sync", str(folder), "--context", "acme", "--json"], scratch.env()
    )
    assert returncode == 1 and "Traceback" not in stderr, stderr[-2000:]
    report = json.loads(stdout)["files"]
    fates = {e["key"]: (e["status"], e["reason"] or "") for e in report if not e["key"].endswith("long.txt")}
    (long_entry,) = [e for e in report if e["key"].endswith("long.txt")]
    assert long_entry["status"] == "failed" and "1,024 bytes" in long_entry["reason"]
    return fates, rss_mb


def test_a_hostile_folder_syncs_each_file_to_its_fate_twice(docs: Deployment, tmp_path: Path) -> None:
    folder = _hostile_folder(tmp_path)
    started = time.monotonic()
    fates, rss_mb = _sync(docs, folder)
    assert fates.keys() == EXPECTED.keys()
    for key, (fate, words) in EXPECTED.items():
        assert fates[key][0] == fate and words in fates[key][1], (key, fates[key])
    assert time.monotonic() - started < 240  # the CSV alone ran 20 minutes before
    assert rss_mb < MAX_SYNC_RSS_MB, rss_mb
    assert texts("root marker bin bash") == [] and texts("harbour lighthouse") == [GOOD["good.txt"]]
    for key in ("wide.csv", "fences.md", "deep.txt"):
        code, body = status(key)
        assert (code, body["status"]) == (200, "failed")  # recorded, never a silent 404
    again, _ = _sync(docs, folder)
    assert again == fates | {key: ("unchanged", "") for key in GOOD}


def _pending(key: str) -> bool:
    recorded = container().document_statuses.get("acme", key)
    return recorded is not None and recorded.status == "pending"


def test_a_sync_killed_mid_file_leaves_it_pending_and_the_next_sync_indexes_it(
    docs: Deployment, tmp_path: Path
) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    # About 40 chunks: seconds of embedding, the window the kill lands in.
    (folder / "long.txt").write_text(
        " ".join(f"Sentence {n} names the tide table of pier {n}." for n in range(1_200))
    )
    command = [str(RETRIEVAL), "sync", str(folder), "--context", "acme", "--json"]
    child = subprocess.Popen(
        command, env=docs.env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while not _pending("long.txt"):
            assert child.poll() is None, "the sync ended before it was killed"
            assert time.monotonic() < deadline, "the file never became pending"
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.communicate()
    code, recorded = status("long.txt")
    assert (code, recorded["status"]) == (200, "pending")
    done = finished(command, env=docs.env())
    (entry,) = json.loads(done.stdout)["files"]
    assert (entry["key"], entry["status"]) == ("long.txt", "indexed") and entry["chunks"] > 1
    assert status("long.txt")[1]["status"] == "indexed"
    assert any("pier 600" in text for text in texts("tide table pier 600"))
    again = finished(command, env=docs.env())
    assert [e["status"] for e in json.loads(again.stdout)["files"]] == ["unchanged"]
