"""The suite's documentation collection: Sphinx's manual as Debian's ``sphinx-doc`` ships it (its HTML
pages, fetched by ``debian_docs`` into a git-ignored cache: never committed) and the team's own questions
about it (``data/sphinx-doc-questions/``, written by reading the pages first), the pages synced as files
by ``retrieval sync``'s own function, as a team syncs its documentation folder.

Judgments are at page level: a page is its path in the manual (``usage/configuration.html``), and a
ranking of hits is scored as a ranking of pages (a page where its best chunk ranks), so R@5 is page-level
recall, and all@5 on a two-page question is "both pages in the top 5". A judgment may also name the
section (``anchors``: the anchor in that page the answer sits under), kept for a reader of the set.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from retrieval_core.config import Settings
from retrieval_core.ports import Embedder

from .as_files import synced_folder_index
from .collection import CollectionFileError, Query
from .metrics import mean
from .runner import ModeResult

NAME = "Sphinx manual"
"""The collection's name in the suite's tables."""
QUESTIONS = Path(__file__).resolve().parents[3] / "data" / "sphinx-doc-questions" / "questions.jsonl"
TWO_PAGE = "two-page"


class DocumentationQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    text: str = Field(min_length=1)
    kind: Literal["how-to", "keyword", "two-page"]
    judgments: dict[str, int]
    """Page path -> grade: 2 answers the question (on a two-page question, each page holds half of
    the answer), 1 helps."""
    anchors: dict[str, str] = Field(default_factory=dict)
    """Page path -> the anchor of the section the answer sits under, where one section holds it."""


def read_questions(path: Path = QUESTIONS) -> list[DocumentationQuestion]:
    """The questions, one JSON object a line; raises ``CollectionFileError`` naming the bad line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as error:
        raise CollectionFileError(f"{path}: no such file") from error
    questions = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                questions.append(DocumentationQuestion.model_validate(json.loads(line)))
            except ValueError as error:
                raise CollectionFileError(f"{path}:{number}: not a question ({error})") from error
    return questions


def queries_and_qrels(
    questions: Sequence[DocumentationQuestion],
) -> tuple[list[Query], dict[str, dict[str, int]]]:
    return [Query(id=q.id, text=q.text) for q in questions], {q.id: dict(q.judgments) for q in questions}


def pages(folder: Path) -> list[Path]:
    """The manual's HTML pages, relative to its folder: every ``.html`` outside the folders Sphinx
    writes its machinery into (``_static``, ``_sources``: the reST again as text, ``_modules``: the
    highlighted source of Sphinx's own code), in path order."""
    return sorted(
        path.relative_to(folder)
        for path in folder.rglob("*.html")
        if not any(part.startswith("_") for part in path.relative_to(folder).parts)
    )


def fetched_folder() -> Path | None:
    """The manual's folder, fetched on first use; None (with the reason printed) when it cannot be."""
    from .debian_docs import FetchError, folder

    try:
        return folder()
    except FetchError as error:
        print(f"{NAME}: not fetched ({error}): the suite runs without it", flush=True)
        return None


@contextmanager
def folder_index(settings: Settings, folder: Path, *, embedder: Embedder | None = None) -> Iterator[Settings]:
    """The manual's pages synced by ``retrieval sync``'s function into a fresh alias and bucket (the
    tree kept, so a page's id is its path); the handlers serve it until the block ends."""
    found = pages(folder)

    def copy(into: Path) -> None:
        for page in found:
            (into / page).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / page, into / page)

    names = [page.as_posix() for page in found]
    with synced_folder_index(settings, names, copy, embedder=embedder, what="pages") as scoped:
        yield scoped


def summary(result: ModeResult, questions: Sequence[DocumentationQuestion]) -> dict[str, float | None]:
    """One configuration's scores: nDCG@10, MRR@10 and hit@1 over every question, page-level R@5, and
    on the two-page questions both pages in the top 5 (all@5) and page-level R@5."""
    two_page = {q.id for q in questions if q.kind == TWO_PAGE}
    scores = result.scores
    paired = [s for q, s in scores.items() if q in two_page]
    return {
        "ndcg@10": mean(s.ndcg for s in scores.values()),
        "mrr@10": mean(s.reciprocal_rank for s in scores.values()),
        "hit@1": mean(s.hit_at_1 for s in scores.values()),
        "recall@5": mean(s.recall_at_5 for s in scores.values()),
        "two_page_all_found@5": mean(s.all_found_at_5 for s in paired),
        "two_page_recall@5": mean(s.recall_at_5 for s in paired),
        "latency_ms_p50": result.summary()["latency_ms_p50"],
        "round_trips_mean": result.summary()["round_trips_mean"],
    }


COLUMNS = (
    ("ndcg@10", "nDCG@10"),
    ("mrr@10", "MRR@10"),
    ("hit@1", "hit@1"),
    ("recall@5", "page R@5"),
    ("two_page_all_found@5", "two-page: both in top 5"),
    ("two_page_recall@5", "two-page: page R@5"),
    ("latency_ms_p50", "p50 ms"),
    ("round_trips_mean", "round trips"),
)


def table(summaries: Mapping[str, Mapping[str, float | None]]) -> str:
    """A Markdown table, one row per configuration."""
    lines = [["configuration", *(label for _, label in COLUMNS)]]
    lines.append(["---"] * len(lines[0]))
    for name, found in summaries.items():
        lines.append([name, *_cells(found)])
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def _cells(found: Mapping[str, float | None]) -> list[str]:
    return [
        "n/a" if found[key] is None else f"{found[key]:.1f}" if key in _ONE_PLACE else f"{found[key]:.3f}"
        for key, _ in COLUMNS
    ]


_ONE_PLACE = frozenset({"latency_ms_p50", "round_trips_mean"})
