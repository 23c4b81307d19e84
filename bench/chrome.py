"""``python -m bench.chrome``: how much of a folder of real documentation is chrome, before and after
the HTML and PDF parsers leave it out (docs/DOCUMENTS.md, "Content, not chrome").

The folder is package documentation installed on this machine (Debian's /usr/share/doc: libffi's
texinfo HTML, some of Valgrind's DocBook HTML, the libtasn1 manual and the shared-mime-info
specification as PDF), copied to a temporary folder and never into the repository. Each file is
read twice, as before (``keep_chrome``) and as now, chunked with the defaults, and:

- **boilerplate share**: the chunks that are chrome by rules written for these files and independent
  of the parsers' own (``is_chrome`` below), over all chunks;
- **rank-1**: both versions synced into their own context on the local stack, then each question of
  ``QUESTIONS`` (written for this folder) asked in hybrid mode, top 1: a hit when the first hit is the
  expected file and holds the expected words.

Needs the stack (``make up``); prints a table and writes ``.bench/chrome-<time>.json``."""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

DOC = Path("/usr/share/doc")
SOURCES = [
    *sorted((DOC / "libffi8" / "html").glob("*.html")),
    *[
        DOC / "valgrind" / "html" / name
        for name in ("QuickStart.html", "FAQ.html", "manual-intro.html", "ms-manual.html", "cg-manual.html")
    ],
    DOC / "libtasn1-doc" / "libtasn1.pdf",
    DOC / "shared-mime-info" / "shared-mime-info-spec.pdf",
]
QUESTIONS = [
    ("is libffi thread safe", "Thread-Safety.html", "not completely thread-safe"),
    (
        "which environment variable names the directory for closure memory",
        "Memory-Usage.html",
        "LIBFFI_TMPDIR",
    ),
    ("what features is libffi missing", "Missing-Features.html", "bit fields"),
    ("does libffi support C99 complex types", "Complex.html", "_Complex"),
    (
        "when does libffi set the size and alignment of a new structure type",
        "Size-and-Alignment.html",
        "until it has been passed",
    ),
    ("can one platform have several ABIs such as stdcall and fastcall", "Multiple-ABIs.html", "fastcall"),
    (
        "how do closures get executable memory on a non-executable heap",
        "The-Closure-API.html",
        "ffi_closure_alloc",
    ),
    ("what does Massif tell you about heap memory", "ms-manual.html", "which parts of your program"),
    ("which cache read misses does Cachegrind count", "cg-manual.html", "I1 cache read misses"),
    ("is the ASN.1 parser case sensitive", "libtasn1.pdf", "case sensitive"),
    ("what does asn1Decoding generate", "libtasn1.pdf", "asn1Decoding generates"),
    ("which string does the MIME magic file start with", "shared-mime-info-spec.pdf", "MIME-Magic"),
    ("can treematch elements be nested", "shared-mime-info-spec.pdf", "treematch elements can be nested"),
]
NAVIGATION = re.compile(
    r"\b(Next|Previous|Prev|Up):\s|\[(Contents|Index)\]|^(Prev|Up|Home|Next)( (Prev|Up|Home|Next))+\b"
    r"|^Table of Contents$|Valgrind User Manual$"
)
RUNNING_HEAD = re.compile(r"^((Chapter|Appendix) [0-9A-Z]+: .* \d+|\d+|Shared MIME-info Database)$")


def is_chrome(text: str, repeated: bool) -> bool:
    """A chunk that is navigation (texinfo's and DocBook's "Next: ... Up: ..." panels, tables of
    contents), text repeated in three or more files, or a chunk opened by a PDF running head."""
    first = text.strip().split("\n", 1)[0].strip()
    return repeated or bool(NAVIGATION.search(" ".join(text.split()))) or bool(RUNNING_HEAD.match(first))


def chunks_of(path: Path, keep_chrome: bool) -> list[str]:
    from retrieval_core.bootstrap import container
    from retrieval_core.documents.chunking import DEFAULT_CHUNKING, chunk_document
    from retrieval_core.documents.limits import DOCUMENT_LIMITS
    from retrieval_core.documents.parsers import html, pdf
    from retrieval_core.models.text_window import token_counter, window_of

    parser = pdf if path.suffix == ".pdf" else html
    parsed = parser.parse(path.read_bytes(), DOCUMENT_LIMITS, keep_chrome=keep_chrome)
    embedder = container().embedder
    chunks = chunk_document(
        parsed,
        DEFAULT_CHUNKING,
        window=window_of(embedder.name),
        embed=embedder.embed,
        count_tokens=token_counter(embedder),
    )
    return [chunk.text for chunk in chunks]


def share(folder: Path, keep_chrome: bool) -> dict[str, Any]:
    texts = {path.name: chunks_of(path, keep_chrome) for path in sorted(folder.iterdir())}
    files_of: Counter[str] = Counter()
    for chunks in texts.values():
        files_of.update({" ".join(c.split()) for c in chunks})
    flagged = sum(
        is_chrome(c, files_of[" ".join(c.split())] >= 3) for chunks in texts.values() for c in chunks
    )
    total = sum(len(chunks) for chunks in texts.values())
    return {"chunks": total, "chrome": flagged, "share": round(flagged / max(total, 1), 3)}


@contextmanager
def parsers(keep_chrome: bool) -> Iterator[None]:
    """The ingest function's HTML and PDF parsers as before (``keep_chrome``) or as now."""
    from retrieval_core.documents.parsers import html, pdf

    originals = html.parse, pdf.parse
    html.parse = partial(originals[0], keep_chrome=keep_chrome)
    pdf.parse = partial(originals[1], keep_chrome=keep_chrome)
    try:
        yield
    finally:
        html.parse, pdf.parse = originals


def rank_one(folder: Path, context_id: str, keep_chrome: bool) -> dict[str, Any]:
    from retrieval_dev.cli.search import retrieve
    from retrieval_dev.cli.sync import sync

    with parsers(keep_chrome):
        report = sync(folder, context_id, delete=True)
    failed = [entry for entry in report if entry["status"] == "failed"]
    answers = []
    for question, expected, words in QUESTIONS:
        status, body = retrieve(context_id, {"mode": "hybrid", "text": question, "top_k": 1})
        hit = (body.get("hits") or [None])[0] if status == 200 else None
        uri = ((hit or {}).get("location") or {}).get("uri") or ""
        text = " ".join(((hit or {}).get("text") or "").split())
        answers.append(
            {
                "question": question,
                "hit": uri.endswith("/" + expected) and words.lower() in text.lower(),
                "got": f"{uri.rsplit('/', 1)[-1]}: {text[:120]}",
            }
        )
    return {
        "rank_1": sum(a["hit"] for a in answers),
        "questions": len(answers),
        "failed": failed,
        "answers": answers,
    }


def main() -> int:
    from retrieval_dev.cli.environment import use_local_stack_env

    use_local_stack_env()
    missing = [str(path) for path in SOURCES if not path.is_file()]
    if missing:
        print(f"bench.chrome: not installed here: {missing}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "docs"
        folder.mkdir()
        for path in SOURCES:
            shutil.copy(path, folder / path.name)
        run = str(int(time.time()))
        result: dict[str, Any] = {
            "files": len(SOURCES),
            "before": {**share(folder, True), **rank_one(folder, f"chrome-before-{run}", True)},
            "after": {**share(folder, False), **rank_one(folder, f"chrome-after-{run}", False)},
        }
        from retrieval_dev.cli.sync import sync

        for path in folder.iterdir():
            path.unlink()
        for side in ("before", "after"):  # an empty folder synced with --delete: nothing left behind
            sync(folder, f"chrome-{side}-{run}", delete=True)
    for side in ("before", "after"):
        r = result[side]
        print(
            f"{side:<7} chunks {r['chunks']:>5}  chrome {r['chrome']:>4} ({r['share']:.1%})  "
            f"rank-1 {r['rank_1']}/{r['questions']}"
        )
        for answer in r["answers"]:
            print(f"   {'hit ' if answer['hit'] else 'miss'} {answer['question']}: {answer['got']}")
    out = Path(".bench") / f"chrome-{time.strftime('%Y%m%dT%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"saved {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
