"""``make docs-check``: a real documentation folder (Sphinx's manual from Debian's ``sphinx-doc``,
``evaluation/debian_docs.py``) synced off a terminal into the running local stack, as a user's first hour
would, and checked (issue 69): the sync exits 0, no page fails (pages that are only navigation are
``skipped`` with their reason), and the top hit of each of five questions cites a file that exists in
the folder at an anchor that exists in that file (an HTML page; a plain text file opens whole).
Prints the figures (pages, chunks, statuses, time, the longest silence on stderr) and writes them to
``.cache/debian-docs/check.json``; exits 1 when a check fails. Opt-in (minutes, not CI's budget):
``make docs-check`` starts the stack and runs it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from collections import Counter
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, unquote

from retrieval_dev.evaluation import debian_docs

QUESTIONS = (
    "How do I link to another project's documentation with intersphinx?",
    "Which toctree option limits how deep the table of contents goes?",
    "How do I add my own CSS file to the HTML output?",
    "In which order does autodoc document the members of a class?",
    "How do I build a PDF through LaTeX?",
)
RETRIEVAL = Path(sys.executable).with_name("retrieval")
MARKUP = frozenset({".html", ".htm", ".xhtml"})
"""Files whose anchors are ids in them; a citation of another file (a ``.txt``) opens the file itself,
with no anchor."""
RECORD = debian_docs.CACHE / "check.json"
STATUS_PAGE = 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--context", default=f"docs{int(time.time())}", help="Default: a new one per run.")
    parser.add_argument("--folder", type=Path, help="Default: Sphinx's manual, fetched on first use.")
    args = parser.parse_args(argv)
    try:
        folder = args.folder or debian_docs.folder()
    except debian_docs.FetchError as error:
        print(f"docs-check: {error}", file=sys.stderr)
        return 2
    from retrieval_dev.cli.environment import use_local_stack_env

    if use_local_stack_env() is None:
        print("docs-check: no local stack (.stack/env): run `make up` first", file=sys.stderr)
        return 2
    print(f"syncing {folder} into context {args.context} (off a terminal: output to pipes)", flush=True)
    sync = _sync(folder, args.context)
    statuses = _statuses(args.context)
    citations = [_citation(question, folder, args.context) for question in QUESTIONS]
    record = {
        "folder": str(folder),
        "context": args.context,
        **sync,
        **_figures(statuses),
        "citations": citations,
    }
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(json.dumps(record, indent=2) + "\n")
    problems = _problems(record)
    print(_report(record, problems))
    return 1 if problems else 0


def _sync(folder: Path, context: str) -> dict[str, Any]:
    """``retrieval sync`` as a process whose output is not a terminal; the time between the lines it
    writes to stderr is measured as they arrive."""
    started = time.monotonic()
    process = subprocess.Popen(
        [RETRIEVAL, "sync", folder, "--context", context],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    arrivals: list[float] = []
    lines: list[str] = []
    reader = threading.Thread(target=_read, args=(process.stderr, arrivals, lines, started))
    reader.start()
    stdout = process.stdout.read()
    code = process.wait()
    reader.join()
    seconds = time.monotonic() - started
    moments = [0.0, *arrivals, seconds]
    return {
        "exit_code": code,
        "seconds": round(seconds, 1),
        "stderr_lines": len(lines),
        "longest_silence_seconds": round(max(b - a for a, b in pairwise(moments)), 1),
        "stderr_tail": lines[-3:],
        "stdout_tail": stdout.strip().splitlines()[-3:],
    }


def _read(stream: IO[str], arrivals: list[float], lines: list[str], started: float) -> None:
    for line in stream:
        arrivals.append(time.monotonic() - started)
        lines.append(line.rstrip("\n"))


def _statuses(context: str) -> list[dict[str, Any]]:
    from retrieval_core.bootstrap import container

    store = container().document_statuses
    found: list[dict[str, Any]] = []
    after: str | None = None
    while True:
        page = store.page(context, "", limit=STATUS_PAGE, after=after)
        found += [status.public() for status in page.documents]
        if page.next_token is None:
            return found
        after = page.next_token


def _figures(statuses: list[dict[str, Any]]) -> dict[str, Any]:
    skipped = [s for s in statuses if s["status"] == "skipped"]
    return {
        "files": len(statuses),
        "statuses": dict(Counter(s["status"] for s in statuses)),
        "chunks": sum(s["chunks"] for s in statuses),
        "html_pages": sum(s["key"].endswith(".html") for s in statuses),
        "navigation_skipped": sorted(s["key"] for s in skipped if "navigation" in (s["reason"] or "")),
        "failed": [{"key": s["key"], "reason": s["reason"]} for s in statuses if s["status"] == "failed"],
    }


def _citation(question: str, folder: Path, context: str) -> dict[str, Any]:
    """The top hit's citation, opened: the file it names in the folder, and its anchor in that file.
    The location's ``path`` and ``anchor`` when the API gives them, else the path under the context's
    prefix in its URI and the anchor stored with the chunk (why_explain's grounding)."""
    from retrieval_dev.cli.events import api_event
    from retrieval_dev.cli.lambda_runtime import invoke

    body = {"mode": "hybrid", "text": question, "top_k": 1}
    answer = json.loads(invoke("retrieve", api_event("POST", "/v1/retrieve", context, body=body))["body"])
    if not answer.get("hits"):
        return {"question": question, "opens": False, "why": "no hit"}
    hit = answer["hits"][0]
    location = hit.get("location") or {}
    path = location.get("path") or unquote(location.get("uri", "").partition(f"/contexts/{context}/")[2])
    anchor = location.get("anchor")
    if anchor is None:
        encoded = quote(hit["id"], safe="")
        why = api_event("GET", f"/v1/why/{encoded}", context, path_parameters={"proposition_id": encoded})
        grounding = json.loads(invoke("why_explain", why)["body"]).get("grounding", [])
        anchor = next((span.get("anchor") for span in grounding if span.get("chunk_id") == hit["id"]), None)
    file = folder / path
    exists = bool(path) and file.is_file()
    markup = file.suffix.lower() in MARKUP
    anchored = anchor is not None and exists and anchor in _anchors(file) if markup else anchor is None
    return {
        "question": question,
        "path": path,
        "anchor": anchor,
        "section": location.get("section"),
        "file_exists": exists,
        "anchor_in_file": anchored,
        "opens": exists and anchored,
    }


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.names: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name == "id" or (name == "name" and tag == "a")):
                self.names.add(value)


def _anchors(file: Path) -> set[str]:
    parser = _Anchors()
    parser.feed(file.read_text(encoding="utf-8", errors="replace"))
    return parser.names


def _problems(record: dict[str, Any]) -> list[str]:
    problems = []
    if record["exit_code"] != 0:
        problems.append(f"the sync exited {record['exit_code']}")
    if record["failed"]:
        problems.append(f"{len(record['failed'])} files failed: {record['failed'][:3]}")
    closed = [c["question"] for c in record["citations"] if not c["opens"]]
    if closed:
        problems.append(f"{len(closed)} of {len(record['citations'])} citations do not open: {closed}")
    return problems


def _location(citation: dict[str, Any]) -> str:
    """Where a citation points: a file without anchors (plain text, Markdown) is cited by its path alone."""
    anchor = citation.get("anchor")
    return f"{citation.get('path')}#{anchor}" if anchor else str(citation.get("path"))


def _report(record: dict[str, Any], problems: list[str]) -> str:
    lines = [
        f"{record['files']} files ({record['html_pages']} HTML pages), {record['chunks']} chunks, "
        f"statuses {record['statuses']}, {record['seconds']} s; exit {record['exit_code']}",
        f"longest silence on stderr: {record['longest_silence_seconds']} s ({record['stderr_lines']} lines)",
        f"skipped as navigation: {', '.join(record['navigation_skipped']) or 'none'}",
    ]
    for citation in record["citations"]:
        mark = "opens" if citation["opens"] else "DOES NOT OPEN"
        lines.append(f"  {mark}: {_location(citation)}  <- {citation['question']}")
    lines.append("; ".join(problems) if problems else f"docs-check passed (record: {RECORD})")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
