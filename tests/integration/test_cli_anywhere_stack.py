"""`retrieval sync` and `retrieval search` as a user runs them from a directory outside the checkout,
with nothing in the environment: they find the checkout's handlers and its stack's settings
(`.stack/env`) and work against the local stack; pointed at a closed port, each prints one line that
says how to start the stack."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

from cli_process import RETRIEVAL
from stack_state import REPO

from dev.processes import free_port


def _run(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RETRIEVAL_", "AWS_", "STACK_"))}
    return subprocess.run(
        [str(RETRIEVAL), *args], cwd=cwd, env={**env, **extra}, capture_output=True, text=True, timeout=300
    )


def test_sync_and_search_work_from_outside_the_checkout(stack_settings: object, tmp_path: Path) -> None:
    assert not tmp_path.is_relative_to(REPO)
    context = f"anywhere-{uuid.uuid4().hex[:8]}"
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "lighthouse.md").write_text("# Harbour\n\nThe lighthouse keeper lights the lamp at dusk.\n")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    try:
        synced = _run(["sync", "kb", "--context", context, "--json"], tmp_path)
        assert synced.returncode == 0, synced.stderr
        statuses = {f["key"]: f["status"] for f in json.loads(synced.stdout)["files"]}
        assert statuses == {"lighthouse.md": "indexed", "logo.png": "skipped"}
        found = _run(["search", "who lights the lamp", "--context", context, "--mode", "lexical"], tmp_path)
        assert found.returncode == 0, found.stderr
        lines = found.stdout.splitlines()
        assert lines[0].startswith(" 1. ") and "lighthouse.md" in lines[0]
        assert "section Harbour" in lines[1] and "**lamp**" in lines[2]
        assert lines[1].startswith(f"    {(folder / 'lighthouse.md').resolve().as_uri()}")  # where it opens
        # A typo in the context is said to be one, naming the contexts that hold items, not "no hits".
        typo = _run(["search", "who lights the lamp", "--context", f"{context}x"], tmp_path)
        assert typo.returncode == 1 and typo.stdout == "no hits for 'who lights the lamp'\n"
        assert f"the context '{context}x' holds no items (unknown or empty)" in typo.stderr
        assert f"{context} (1 item)" in typo.stderr
    finally:
        for path in folder.iterdir():
            path.unlink()
        _run(["sync", "kb", "--context", context, "--delete"], tmp_path)


def test_with_the_stack_unreachable_each_says_in_one_line_how_to_start_it(tmp_path: Path) -> None:
    closed = free_port()
    settings = tmp_path / "down.env"
    settings.write_text(
        f"RETRIEVAL_OPENSEARCH_ENDPOINT=http://127.0.0.1:{closed}\n"
        f"RETRIEVAL_DYNAMODB_ENDPOINT=http://127.0.0.1:{closed}\n"
    )
    (tmp_path / "kb").mkdir()
    for args in (["search", "anything", "--context", "acme"], ["sync", "kb", "--context", "acme"]):
        done = _run(args, tmp_path, RETRIEVAL_STACK_ENV=str(settings))
        assert done.returncode == 3 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert "the local stack is not running" in done.stderr and f"make -C {REPO} up" in done.stderr
