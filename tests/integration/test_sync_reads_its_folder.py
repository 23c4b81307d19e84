"""`retrieval sync` reads only its folder (issue 52): a link to a file outside it (or inside it), a
linked directory and a FIFO are `skipped` with their reason and never read; a name S3 cannot take (a
newline, a key over 1,024 bytes) is `failed` by name before any upload, and the files after it are
still synced. `retrieval ingest` refuses a link and a key under another context in one line."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_process import RETRIEVAL
from hostile_folder import Deployment, deployment, status, texts
from retrieval_core.config import Settings

from tests.processes import finished

SECRET_LINE = "root-marker:x:0:0:outside the folder"


@pytest.fixture
def docs(fresh_settings: Settings) -> Iterator[Deployment]:
    with deployment(fresh_settings, "fold") as scratch:
        yield scratch


def _folder(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "passwd").write_text(SECRET_LINE + "\n")
    (outside / "dir" / "inner.txt").write_text(SECRET_LINE + " in a directory\n")
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "a_good.txt").write_text("The lighthouse keeper logs every passing ship.")
    (folder / "passwd_link.txt").symlink_to(outside / "passwd")
    (folder / "linked_dir").symlink_to(outside / "dir")
    os.mkfifo(folder / "pipe.txt")
    (folder / "b_new\nline.txt").write_text("A name with a newline.")
    deep = folder / ("d" * 250) / ("e" * 250) / ("f" * 250) / ("g" * 250)
    deep.mkdir(parents=True)
    (deep / "long.txt").write_text("A key over S3's limit.")
    for n in range(15):  # the files after the bad name are all read
        (folder / f"z{n:02}.txt").write_text(f"Harbour note {n}: the tide turns at noon.")
    return folder


def _sync(scratch: Deployment, folder: Path) -> list[dict[str, object]]:
    done = finished(
        [RETRIEVAL, "sync", folder, "--context", "acme", "--json"], env=scratch.env(), check=False
    )
    assert done.returncode == 1, done.stderr  # the failed names
    assert "Traceback" not in done.stderr
    return list(json.loads(done.stdout)["files"])


def test_a_sync_reads_only_its_folder_and_survives_bad_names(docs: Deployment, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    first = _sync(docs, folder)
    fates = {entry["key"]: entry["status"] for entry in first}
    assert {k: v for k, v in fates.items() if not str(k).endswith("long.txt")} == {
        "a_good.txt": "indexed",
        "passwd_link.txt": "skipped",
        "linked_dir": "skipped",
        "pipe.txt": "skipped",
        "b_new\\nline.txt": "failed",
        **{f"z{n:02}.txt": "indexed" for n in range(15)},
    }
    (long_key,) = [key for key in fates if str(key).endswith("long.txt")]
    assert fates[long_key] == "failed"
    reasons = {entry["key"]: entry["reason"] for entry in first}
    assert "symbolic link" in str(reasons["passwd_link.txt"])
    assert "control character" in str(reasons["b_new\\nline.txt"])
    assert "1,024 bytes" in str(reasons[long_key])
    assert texts("root marker outside folder") == []
    # What the sync never read is marked so (its summary counts it apart): exactly the entries with no status.
    unread = {str(entry["key"]) for entry in first if entry.get("read") is False}
    assert unread == {"passwd_link.txt", "linked_dir", "pipe.txt", "b_new\\nline.txt", str(long_key)}
    assert status("passwd_link.txt")[0] == 404 and status("pipe.txt")[0] == 404
    assert all(status(str(key))[0] == 200 for key in set(fates) - unread)
    assert len(texts("tide turns noon")) == 15
    again = _sync(docs, folder)
    assert {e["key"]: e["status"] for e in again} == fates | {
        k: "unchanged" for k, v in fates.items() if v == "indexed"
    }


def test_ingest_refuses_a_link_and_a_key_under_another_context(docs: Deployment, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text(SECRET_LINE)
    (tmp_path / "passwd_link.txt").symlink_to(tmp_path / "outside.txt")
    (tmp_path / "x.txt").write_text("Meant for acme.")
    for args in (
        [tmp_path / "passwd_link.txt", "--context", "acme"],
        [tmp_path / "x.txt", "--context", "acme", "--key", "contexts/globex/x.txt"],
    ):
        done = finished([RETRIEVAL, "ingest", *args], env=docs.env(), check=False)
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert status("x.txt", "globex")[0] == 404
    assert texts("root marker outside folder") == []


def test_a_malformed_documents_query_is_400_naming_the_field(docs: Deployment, tmp_path: Path) -> None:
    from retrieval_dev.cli.events import api_event
    from retrieval_dev.cli.lambda_runtime import invoke

    folder = tmp_path / "kb"
    folder.mkdir()
    for name in ("a.txt", "b.txt"):
        (folder / name).write_text(f"The file {name} holds a sentence.")
    finished([RETRIEVAL, "sync", folder, "--context", "acme"], env=docs.env())

    def listed(query: dict[str, str]) -> tuple[int, dict[str, object]]:
        response = invoke("retrieve", api_event("GET", "/v1/documents", "acme", query=query))
        return response["statusCode"], json.loads(response["body"])

    for query, field in [
        ({"next_token": "garbage"}, "next_token"),
        ({"next_token": "a.txt"}, "next_token"),  # a bare key is no token
        ({"limit": "-1"}, "limit"),
        ({"limit": "abc"}, "limit"),
    ]:
        code, body = listed(query)
        assert (code, body.get("field")) == (400, field), (query, body)
    code, first = listed({"limit": "1"})
    assert code == 200 and [d["key"] for d in first["documents"]] == ["a.txt"]  # type: ignore[union-attr]
    code, second = listed({"limit": "1", "next_token": str(first["next_token"])})
    assert code == 200 and [d["key"] for d in second["documents"]] == ["b.txt"]  # type: ignore[union-attr]
    assert listed({"prefix": "b", "next_token": str(first["next_token"])})[0] == 400  # another listing's


def test_a_sync_that_cannot_reach_its_bucket_says_so_in_one_line(docs: Deployment, tmp_path: Path) -> None:
    from dev.processes import free_port

    (tmp_path / "a.txt").write_text("Never sent.")
    env = docs.env() | {"AWS_ENDPOINT_URL_S3": f"http://127.0.0.1:{free_port()}", "AWS_MAX_ATTEMPTS": "1"}
    done = finished([RETRIEVAL, "sync", tmp_path, "--context", "acme"], env=env, check=False)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert done.stderr.startswith("retrieval sync: stopped:") and len(done.stderr.strip().splitlines()) == 1
    bad = finished([RETRIEVAL, "sync", tmp_path, "--context", "../globex"], env=docs.env(), check=False)
    assert bad.returncode == 2 and "not a context id" in bad.stderr


def test_hard_links_deep_nests_and_oversized_files_are_refused_unread(
    docs: Deployment, tmp_path: Path
) -> None:
    # Before: the hard link's outside text was indexed, 1,100 nested folders ended the sync with a
    # RecursionError traceback and no report, and a 1 GB file was read whole (1.18 GB RSS).
    from hostile_folder import run_measured
    from retrieval_dev.cli import folder_files

    from tests.deep_folders import flattened, nested

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(SECRET_LINE + "\n")
    folder = tmp_path / "kb"
    (folder / "well").mkdir(parents=True)
    (folder / "a_good.txt").write_text("The lighthouse keeper logs every passing ship.")
    os.link(outside / "passwd", folder / "passwd.txt")
    with (folder / "big.pdf").open("wb") as sparse:  # 1 GiB on paper, nothing on disk
        sparse.write(b"%PDF-1.7\n")
        sparse.truncate(1 << 30)
    nested(folder / "well", 1_100)
    try:
        code, out, err, rss_mb = run_measured(
            [str(RETRIEVAL), "sync", str(folder), "--context", "acme", "--json"], docs.env()
        )
    finally:
        flattened(folder / "well")
    assert code == 1 and "Traceback" not in err, err[-2000:]  # 1: the nest's line is a failure
    fates = {entry["key"]: (entry["status"], entry["reason"]) for entry in json.loads(out)["files"]}
    deep_key = "well/" + "/".join(["d"] * folder_files.MAX_DEPTH)
    assert fates == {
        "a_good.txt": ("indexed", None),
        "passwd.txt": ("skipped", folder_files.hard_link_reason(2)),
        "big.pdf": ("skipped", "larger than 50 MB (the size limit)"),
        deep_key: ("failed", folder_files.DEPTH_REASON),
    }
    assert rss_mb < 512, rss_mb  # never the 1 GiB file's bytes
    assert texts("root marker outside folder") == [] and status("passwd.txt")[0] == 404


def test_a_folder_swapped_for_a_link_mid_sync_is_never_followed(
    docs: Deployment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: O_NOFOLLOW guarded the last component only, so the outside folder's file was indexed.
    from retrieval_dev.cli import sync as sync_command

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "inner.txt").write_text(SECRET_LINE)
    folder = tmp_path / "kb"
    (folder / "dir").mkdir(parents=True)
    (folder / "dir" / "inner.txt").write_text("The inner notes name the pier.")
    (folder / "b_after.txt").write_text("The file after the swap is synced.")
    walk = sync_command.folder_files

    def walked_then_swapped(*args: object, **kwargs: object) -> object:
        found = walk(*args, **kwargs)  # type: ignore[arg-type]
        (folder / "dir").rename(tmp_path / "moved")
        (folder / "dir").symlink_to(outside)  # between the walk and the reads
        return found

    monkeypatch.setattr(sync_command, "folder_files", walked_then_swapped)
    report = {entry["key"]: entry for entry in sync_command.sync(folder, "acme", delete=False)}
    assert {key: entry["status"] for key, entry in report.items()} == {
        "b_after.txt": "indexed",
        "dir/inner.txt": "skipped",
    }
    assert "symbolic link" in report["dir/inner.txt"]["reason"]
    assert texts("root marker outside folder") == [] and status("dir/inner.txt")[0] == 404
