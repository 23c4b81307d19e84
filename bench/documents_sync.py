"""``retrieval sync`` at the size of a team's folder: a few thousand generated text files, each with a
Bedrock sidecar, one multi-page PDF and one corrupt PDF, synced through the ingest function, then an
edit and a removal synced again. It checks what docs/DOCUMENTS.md ("A few thousand files") promises:

- every file is indexed; the corrupt PDF alone fails, named with its reason;
- a PDF hit carries its page;
- the sidecars' metadata filters inside every mode (``lexical``, ``vector``, ``hybrid``, ``entity``,
  ``graph_walk``): a filtered page is full, and every hit matches;
- after the edit and the removal no mode answers with the old text or the removed file.

It reports files/s of each sync. ``make sync-check`` runs it at ``FILES`` (2,500 by default) within
``MAX_SECONDS``; ``tests/integration/test_documents_sync_scale.py`` runs a fixed-seed sample of the same
scenario in ``make test``. Everything is generated from ``seed``: which file names the shared entities,
its team and year, so the expected answer of each filtered query is known exactly.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval_core.models.metadata import FieldType

from .documents import WORDS

TEAMS = ("ops", "fleet", "payments", "legal")
FIRST_YEAR = 2020
YEARS = 5
NAMED_EVERY = 7
"""Every seventh file names both shared entities (so its chunk carries their edge)."""
JET, DEPOT = "Falcon Jet", "North Depot"
PDF_PAGES = (
    "The ejection seat harness is inspected before every sortie.",
    "Hydraulic accumulators hold pressure for the emergency brakes.",
    "The anti-icing boots on the tailplane are replaced yearly.",
)
FILTER_TEAM, FILTER_YEAR = "ops", FIRST_YEAR + 2
METADATA_FIELDS = {"year": FieldType.NUMBER}
"""The deployment's declared types: years compare as numbers."""
CONTEXT = "sync"


class ScenarioFailedError(AssertionError):
    """A promise of the scenario did not hold; the message says which and shows the evidence."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise ScenarioFailedError(message)


@dataclass(frozen=True)
class TextFile:
    n: int
    text: str
    team: str
    year: int

    @property
    def key(self) -> str:
        return f"notes/{self.n // 1000:02d}/t{self.n:05d}.txt"

    @property
    def file_id(self) -> str:
        return f"{CONTEXT}:doc/{self.key}"

    @property
    def names_entities(self) -> bool:
        return self.n % NAMED_EVERY == 0

    @property
    def filtered_in(self) -> bool:
        return self.team == FILTER_TEAM and self.year >= FILTER_YEAR

    def sidecar(self) -> bytes:
        typed_year = {"value": {"type": "NUMBER", "numberValue": self.year}, "includeForEmbedding": False}
        attributes = {"team": self.team, "year": typed_year, "n": str(self.n)}
        return json.dumps({"metadataAttributes": attributes}).encode()


def code_word(n: int) -> str:
    """A word only file ``n`` contains (letters only, so every analyzer keeps it whole)."""
    letters = ""
    n += 26**3
    while n:
        n, digit = divmod(n, 26)
        letters = chr(ord("a") + digit) + letters
    return f"zq{letters}"


def text_files(count: int, seed: int) -> list[TextFile]:
    rng = random.Random(seed)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14))).capitalize() + "."

    files = []
    for n in range(count):
        body = [sentence(), f"Logbook entry {code_word(n)} closes the shift.", sentence()]
        if n % NAMED_EVERY == 0:
            body.insert(1, f"The {JET} was refuelled at the {DEPOT}.")
        team, year = TEAMS[n % len(TEAMS)], FIRST_YEAR + (n // len(TEAMS)) % YEARS
        files.append(TextFile(n, " ".join(body), team, year))
    return files


@dataclass
class Figures:
    files: int
    first_sync_seconds: float
    second_sync_seconds: float
    changed_files: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "first_sync_seconds": round(self.first_sync_seconds, 1),
            "files_per_second": round(self.files / self.first_sync_seconds, 2),
            "second_sync_seconds": round(self.second_sync_seconds, 1),
            "changed_files": self.changed_files,
        }


Say = Callable[[str], None]


def run_scenario(
    folder: Path,
    count: int,
    *,
    seed: int = 11,
    deadline: float | None = None,
    say: Say = lambda line: None,
) -> Figures:
    """Generate the folder under ``folder``, sync it twice into the bucket ``RETRIEVAL_INGEST_BUCKET``
    names (the handlers' container must already point at scratch tables and alias) and check every
    promise; raises ``ScenarioFailedError``."""
    from retrieval_dev.cli.sync import sync

    from tests.document_fixtures import corrupt_pdf, pdf

    files = text_files(count, seed)
    for file in files:
        path = folder / file.key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.text)
        path.with_name(path.name + ".metadata.json").write_bytes(file.sidecar())
    (folder / "manuals").mkdir(exist_ok=True)
    (folder / "manuals" / "systems.pdf").write_bytes(pdf(list(PDF_PAGES)))
    (folder / "manuals" / "broken.pdf").write_bytes(corrupt_pdf())
    total = count + 2
    say(f"sync: {count:,} text files with sidecars, a {len(PDF_PAGES)}-page PDF and a corrupt PDF")

    started = time.perf_counter()
    report, reasons = _statuses(
        sync(folder, CONTEXT, delete=True, progress=_progress(say, total, started, deadline))
    )
    first = time.perf_counter() - started
    say(f"sync: {total:,} files in {first:.1f} s ({total / first:.2f} files/s)")
    _check_first_sync(report, reasons, files)
    _check_pdf_pages()
    _check_filters(files)

    edited, removed = _named(files, 0), _named(files, 1)
    new_text = f"The hangar was repainted; entry {code_word(count + 1)} replaces the old log."
    (folder / edited.key).write_text(new_text)
    (folder / removed.key).unlink()
    (folder / (removed.key + ".metadata.json")).unlink()
    started = time.perf_counter()
    again, _ = _statuses(sync(folder, CONTEXT, delete=True))
    second = time.perf_counter() - started
    say(f"sync: the edit and the removal in {second:.1f} s")
    expected = {f.key: "unchanged" for f in files} | {
        edited.key: "updated",
        removed.key: "deleted",
        "manuals/systems.pdf": "unchanged",
        "manuals/broken.pdf": "failed",
    }
    check(again == expected, f"second sync statuses: {_difference(again, expected)}")
    _check_nothing_stale(edited, removed, new_text)
    remaining = [f for f in files if f.n not in {edited.n, removed.n}]
    _check_filters(remaining)
    return Figures(total, first, second, 2)


def _statuses(report: list[dict[str, Any]]) -> tuple[dict[str, str], dict[str, str]]:
    """Each file's status, and the reasons of those that have one."""
    statuses = {entry["key"]: entry["status"] for entry in report}
    return statuses, {entry["key"]: entry["reason"] for entry in report if entry["reason"]}


def _difference(got: dict[str, str], wanted: dict[str, str]) -> dict[str, tuple[str | None, str | None]]:
    """The first few files whose status is not the wanted one: (got, wanted)."""
    keys = sorted(got.keys() | wanted.keys())
    wrong = {k: (got.get(k), wanted.get(k)) for k in keys if got.get(k) != wanted.get(k)}
    return dict(list(wrong.items())[:5])


def _progress(say: Say, total: int, started: float, deadline: float | None) -> Callable[[int], None]:
    step = max(1, total // 10)

    def advance(done: int) -> None:
        if done % step == 0 or done == total:
            elapsed = time.perf_counter() - started
            say(f"sync: {done:,}/{total:,} files, {done / elapsed:.2f} files/s")
        if deadline is not None and time.monotonic() > deadline:
            raise ScenarioFailedError(f"the first sync passed its time limit after {done:,} files")

    return advance


def _check_first_sync(report: dict[str, str], reasons: dict[str, str], files: list[TextFile]) -> None:
    expected = {f.key: "indexed" for f in files} | {
        "manuals/systems.pdf": "indexed",
        "manuals/broken.pdf": "failed",
    }
    check(report == expected, f"first sync statuses: {_difference(report, expected)}")
    reason = reasons.get("manuals/broken.pdf", "")
    check("not a readable PDF" in reason, f"the corrupt PDF's reason: {reason!r}")
    check(list(reasons) == ["manuals/broken.pdf"], f"files with a reason: {list(reasons)[:5]}")


def _check_pdf_pages() -> None:
    for page, text in enumerate(PDF_PAGES, start=1):
        for mode in ("lexical", "hybrid"):
            hit = retrieve({"mode": mode, "text": text, "top_k": 1})[0]
            check(
                hit["id"].startswith(f"{CONTEXT}:doc/manuals/systems.pdf#")
                and hit["location"]["page"] == page
                and hit["location"]["uri"].endswith("contexts/sync/manuals/systems.pdf"),
                f"{mode} hit for page {page}: {hit['id']} at {hit['location']}",
            )


FILTER = {
    "all_of": [
        {"equals": {"key": "metadata.team", "value": FILTER_TEAM}},
        {"gte": {"key": "metadata.year", "value": FILTER_YEAR}},
    ]
}


def _check_filters(files: list[TextFile]) -> None:
    """Filtered pages are full and match (search modes); the entity and graph modes return exactly the
    generated files that name the entity and pass the filter."""
    matching = sum(f.filtered_in for f in files)
    top_k = min(10, matching)
    for mode in ("lexical", "vector", "hybrid"):
        hits = retrieve({"mode": mode, "text": "hangar crew fuel tank", "filter": FILTER, "top_k": top_k})
        wrong = [h["id"] for h in hits if not _passes(h)]
        check(len(hits) == top_k and not wrong, f"{mode} with the filter: {len(hits)} hits, {wrong[:3]}")
    expected = {f"{f.file_id}#0000" for f in files if f.names_entities and f.filtered_in}
    jet = f"{CONTEXT}:entity/falcon-jet"
    for request in (
        {"mode": "entity", "entity_id": jet},
        {"mode": "graph_walk", "entity_id": jet, "depth": 1},
    ):
        hits = retrieve({**request, "filter": FILTER, "top_k": 100})
        got = {h["id"] for h in hits}
        check(
            got == expected,
            f"{request['mode']} with the filter: {len(got)} hits, {len(expected)} expected, "
            f"e.g. extra {sorted(got - expected)[:2]}, missing {sorted(expected - got)[:2]}",
        )


def _passes(hit: dict[str, Any]) -> bool:
    metadata = hit.get("metadata") or {}
    return metadata.get("team") == FILTER_TEAM and metadata.get("year", 0) >= FILTER_YEAR


def _named(files: list[TextFile], index: int) -> TextFile:
    """The ``index``-th file that names the entities and passes the filter (edited or removed)."""
    return [f for f in files if f.names_entities and f.filtered_in][index]


def _check_nothing_stale(edited: TextFile, removed: TextFile, new_text: str) -> None:
    for mode in ("lexical", "vector", "hybrid"):
        hits = retrieve({"mode": mode, "text": edited.text, "top_k": 10})
        stale = [h["id"] for h in hits if h["text"] == edited.text or code_word(edited.n) in h["text"]]
        check(not stale, f"{mode} still answers with the edited file's old text: {stale}")
        mine = [h["text"] for h in hits if h["id"].startswith(edited.file_id)]
        check(all(text == new_text for text in mine), f"{mode}: the edited file answers {mine}")
        hits = retrieve({"mode": mode, "text": removed.text, "top_k": 10})
        gone = [h["id"] for h in hits if h["id"].startswith(removed.file_id)]
        check(not gone, f"{mode} still answers with the removed file: {gone}")
    for file in (edited, removed):
        only = {"equals": {"key": "metadata.n", "value": str(file.n)}}
        for request in (
            {"mode": "entity", "entity_id": f"{CONTEXT}:entity/falcon-jet"},
            {"mode": "graph_walk", "entity_id": f"{CONTEXT}:entity/north-depot", "depth": 1},
            {"mode": "lexical", "text": code_word(file.n)},
        ):
            hits = retrieve({**request, "filter": only, "top_k": 10})
            check(not hits, f"{request['mode']} still finds file {file.n}'s old chunk: {hits[:1]}")


def retrieve(body: dict[str, Any]) -> list[dict[str, Any]]:
    from retrieval_dev.cli.events import api_event
    from retrieval_dev.cli.lambda_runtime import invoke

    response = invoke("retrieve", api_event("POST", "/v1/retrieve", CONTEXT, body=body))
    payload = json.loads(response["body"])
    check(response["statusCode"] == 200, f"{body.get('mode')} failed: {payload}")
    hits: list[dict[str, Any]] = payload["hits"]
    return hits


def main(argv: list[str] | None = None) -> int:
    """Run the scenario on scratch tables, alias and bucket of the local stack; print the figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.documents_sync", description=__doc__)
    parser.add_argument("--files", type=int, default=2500, help="Generated text files (each with a sidecar).")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--max-seconds", type=float, default=1800, help="Limit of the first sync.")
    parser.add_argument("--out", type=Path, default=Path(".bench"), help="Folder for the JSON record.")
    args = parser.parse_args(argv)

    import os
    import tempfile
    from datetime import UTC, datetime

    from retrieval_core import bootstrap
    from retrieval_core.adapters.opensearch.client import shared_client

    from dev.ingest_resources import scratch_ingest
    from dev.tables import scratch_space

    from .ingest import _aws_endpoints
    from .machine import facts
    from .progress import say
    from .workspace import stack_settings

    base = stack_settings(None).model_copy(update={"metadata_fields": METADATA_FIELDS})
    endpoint = base.dynamodb_endpoint or ""
    with (
        _aws_endpoints(endpoint),
        scratch_space(base, "sync-check") as scratch,
        scratch_ingest(base, "sync-check") as resources,
        tempfile.TemporaryDirectory() as folder,
    ):
        os.environ["RETRIEVAL_INGEST_BUCKET"] = resources.bucket
        settings = scratch.model_copy(update={"ingest_queue_url": None, "entity_extractor": "local"})
        with bootstrap.use(bootstrap.Container(settings)):
            bootstrap.container().embedder.embed(["warm up"])
            machine = facts(shared_client(settings))
            figures = run_scenario(
                Path(folder),
                args.files,
                seed=args.seed,
                deadline=time.monotonic() + args.max_seconds,
                say=say,
            )
    record = {"date": f"{datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ}", "machine": machine, **figures.as_dict()}
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"sync-check-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    path.write_text(json.dumps(record, indent=2))
    print(json.dumps(figures.as_dict(), indent=2))
    print(f"every check passed; saved {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
