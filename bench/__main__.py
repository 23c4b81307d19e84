"""``python -m bench --scale small``: generate, load, measure, print the markdown report, save the JSON.

Expects the local stack to be up (``make bench`` starts it). Progress goes to stderr, the report to stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from retrieval_core.config import Settings

from . import (
    bulk,
    coldstart,
    documents,
    embedder,
    filtered,
    floor,
    graph,
    ingest,
    isolation,
    knn_tuning,
    micro,
    multihop,
    paging,
    policy,
    quantized,
    retrieve,
    streaming,
    sync_scale,
    vectors,
)
from .corpus import METADATA_FIELDS, generate, pairs_at_distance
from .cost import cost_table
from .dynamodb_server import DynamoDBStartError, add_stack_dynamodb_flag, bench_dynamodb
from .handlers import HandlerFailedError, graph_path_event, retrieve_event, why_event
from .machine import facts
from .probes import Probe
from .progress import say
from .report import as_dicts, markdown, save, targets
from .scales import SCALES, Scale
from .workspace import StackDownError, load, stack_settings, workspace

REPO = Path(__file__).resolve().parents[1]
LOAD_FREE = {
    "packing", "ingest", "documents", "sync-scale", "multihop", "package", "embedder", "streaming", "bulk"
}  # fmt: skip
"""Sections that measure without the loaded corpus (their own data or none)."""
SECTIONS = (
    "retrieve",
    "floor",
    "filtered",
    "paging",
    "graph",
    "policy",
    "packing",
    "ingest",
    "documents",
    "sync-scale",
    "bulk",
    "embedder",
    "streaming",
    "multihop",
    "coldstart",
    "package",
    "isolation",
    "vectors",
    "knn",
    "int8",
)


DOCUMENTS_ONLY_SECTIONS = frozenset({"retrieve", "floor", "filtered", "vectors", "knn", "int8"})
"""What reads the index alone (sessionless requests, no graph): ``--documents-only`` loads no rows."""


class SectionsFailedError(RuntimeError):
    """Some sections failed; the report of the others is written, and the partial file kept."""


class Checkpoint:
    """Each finished section's result, written as it finishes (``<out>/partial-<scale>.json``): a run
    that stops is restarted with ``--resume`` and measures only the sections it had not finished (the
    corpus is loaded again first, unless every section that needs it is done). Removed by a run that
    completes."""

    def __init__(self, out_dir: Path, scale: str, resume: bool) -> None:
        self.path = out_dir / f"partial-{scale}.json"
        self.results: dict[str, Any] = (
            json.loads(self.path.read_text()) if resume and self.path.exists() else {}
        )
        if self.results:
            say(f"resuming: {', '.join(self.results)} already measured ({self.path})")

    def wants(self, section: str, sections: tuple[str, ...]) -> bool:
        return section in sections and section not in self.results

    def record(self, section: str, result: Any) -> None:
        self.results[section] = result
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.results, default=str))
        say(f"{section}: done (saved to {self.path.name})")

    def finish(self) -> None:
        self.path.unlink(missing_ok=True)


def run(
    scale_name: str,
    out_dir: Path,
    sam_build_dir: Path,
    sections: tuple[str, ...],
    keep: bool,
    stack_dynamodb: bool = False,
    *,
    resume: bool = False,
    encoding: str | None = None,
    documents_only: bool = False,
) -> dict[str, Any]:
    """Measure at ``scale_name``; DynamoDB is the bench's own indexed moto unless ``stack_dynamodb``;
    ``encoding`` (fp32 | int8) overrides the declared vector encoding of the index the bench loads;
    ``documents_only`` loads the corpus's documents and not its rows (``DOCUMENTS_ONLY_SECTIONS``)."""
    if documents_only and not set(sections) <= DOCUMENTS_ONLY_SECTIONS:
        others = ", ".join(sorted(set(sections) - DOCUMENTS_ONLY_SECTIONS))
        raise SectionsFailedError(
            f"--documents-only loads no DynamoDB rows, and {others} read them: choose from "
            f"{', '.join(sorted(DOCUMENTS_ONLY_SECTIONS))} with --only"
        )
    with bench_dynamodb(out_dir, use_stack=stack_dynamodb) as endpoint:
        label = "the stack's moto" if stack_dynamodb else "a fresh moto of its own (dev.moto_serialized)"
        update: dict[str, Any] = {"metadata_fields": METADATA_FIELDS}
        if encoding:
            update["opensearch_vector_encoding"] = encoding
        base = stack_settings(endpoint).model_copy(update=update)
        checkpoint = Checkpoint(out_dir, scale_name, resume)
        return _run(
            SCALES[scale_name],
            out_dir,
            sam_build_dir,
            sections,
            keep,
            base,
            label,
            checkpoint,
            documents_only,
        )


def _run(
    scale: Scale,
    out_dir: Path,
    sam_build_dir: Path,
    sections: tuple[str, ...],
    keep: bool,
    base: Settings,
    dynamodb_label: str,
    checkpoint: Checkpoint,
    documents_only: bool = False,
) -> dict[str, Any]:
    from retrieval_core.adapters.opensearch.client import build_client

    say(f"scale {scale.name}: generating {scale.items:,} items / {scale.edges:,} edges (fixed seed)")
    corpus = generate(scale)
    client = build_client(base)
    machine = {**facts(client), "dynamodb": dynamodb_label}
    client.close()
    results = checkpoint.results
    failed: list[str] = []
    loaded = [s for s in sections if s not in LOAD_FREE and checkpoint.wants(s, sections)]
    # The handlers print their metrics (EMF lines) and logs as in Lambda; stdout is for the report and
    # stderr for progress (which keeps its own handle), so both are sent away while measuring.
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    with (
        open(os.devnull, "w") as sink,
        contextlib.redirect_stdout(sink),
        contextlib.redirect_stderr(sink),
        workspace(base, scale.name, keep=keep) as settings,
    ):
        vectors_kind = "local model (all-MiniLM-L6-v2)" if scale.real_embeddings else "synthetic unit"
        load_seconds = results.get("load_seconds", 0.0)
        if loaded:
            say(f"loading through the real loader ({vectors_kind} vectors) for {', '.join(loaded)}")
            load_seconds = load(settings, corpus, rows=not documents_only)
            checkpoint.record("load_seconds", load_seconds)
        probe = Probe()
        truth = filtered.ExactTruth()  # exact search's answers, shared by filtered, knn and int8
        measures: dict[str, Callable[[], Any]] = {
            "retrieve": lambda: retrieve.measure(settings, corpus, probe),
            "floor": lambda: floor.measure(settings, corpus, scale.rounds),
            "filtered": lambda: filtered.measure(settings, corpus, truth),
            "vectors": lambda: vectors.measure(settings),
            "paging": lambda: paging.measure(settings, corpus, probe),
            "graph": lambda: graph.measure(corpus, probe),
            "policy": lambda: policy.measure(settings, corpus, probe),
            "isolation": lambda: isolation.measure(settings, corpus),
            "packing": lambda: micro.packing(runs=5),
            "ingest": lambda: ingest.measure(base, corpus, probe),
            "documents": lambda: documents.measure(base, scale.items // 10),
            "sync-scale": lambda: sync_scale.measure(
                base,
                sync_scale.PAGES[scale.name],
                sync_scale.DEPLOYED[scale.name],
                embed_only=scale.name in sync_scale.EMBED_ONLY,
            ),
            "bulk": lambda: bulk.measure(base, corpus),
            "embedder": lambda: embedder.measure(base, min(embedder.TEXTS, max(40, scale.items // 10))),
            "streaming": lambda: streaming.in_fresh_process(max(10_000, min(1_000_000, scale.items * 10))),
            # small and up: 20+ chains, and the development sets (minutes of syncing: not in tiny's smoke)
            "multihop": lambda: multihop.measure(base, max(6, scale.items // 100), scale.name != "tiny"),
            # the last two of the corpus's sections: they move the workspace's alias to rebuilt indices
            "knn": lambda: knn_tuning.measure(settings, corpus, truth),
            "int8": lambda: quantized.measure(settings, corpus, truth),
        }
        for section, measure in measures.items():
            if checkpoint.wants(section, sections):
                say(section)
                try:
                    result = measure()
                except Exception:  # a long run keeps the sections after a failed one (RESUME=1 retries it)
                    say(f"{section}: FAILED, the run goes on without it\n{traceback.format_exc()}")
                    failed.append(section)
                    continue
                checkpoint.record(section, result)
        if checkpoint.wants("coldstart", sections):
            source, target = pairs_at_distance(corpus, 2, 1)[0]
            events = {
                "retrieve": retrieve_event(
                    {"mode": "lexical", "text": corpus.entity_names[0], "session_id": "cold"}
                ),
                "graph_path": graph_path_event(source, target, 3),
                "why_explain": why_event(corpus.deepest[0], 3),
            }
            checkpoint.record(
                "coldstart",
                coldstart.measure(
                    # a fresh process reads the workspace's settings from its environment, as Lambda would
                    {**os.environ, **settings.to_env()},
                    events,
                    corpus.entity_names[0],
                    scale.import_repeats,
                    scale.first_call_repeats,
                ),
            )
    if checkpoint.wants("package", sections):
        checkpoint.record("package", micro.package_sizes(sam_build_dir))
    results = {k: v for k, v in checkpoint.results.items() if k != "load_seconds"}
    report = {
        "scale": scale.name,
        "machine": machine,
        "corpus": {
            "items": len(corpus.items),
            "edges": corpus.edge_rows,
            "entities": scale.entities,
            "vectors": "real (local model)" if scale.real_embeddings else "synthetic",
            "queries_per_mode": scale.queries,
            "rounds": scale.rounds,
            "seed": "bench.scales.SEED",
            "isolation_model": settings.isolation_model,
            "loaded": "documents only (no DynamoDB rows)" if documents_only else "documents and rows",
        },
        "load_seconds": load_seconds,
        "results": results,
    }
    report["cost"] = cost_table(results)
    report["targets"] = as_dicts(targets(scale.name, results))
    text = markdown(report)
    json_path, md_path = save(report, text, out_dir)
    print(text)
    say(f"saved {json_path} and {md_path}")
    if failed:
        raise SectionsFailedError(
            f"{', '.join(failed)} failed (above); {checkpoint.path} is kept for --resume"
        )
    checkpoint.finish()
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(SCALES), default="small")
    parser.add_argument("--out", type=Path, default=REPO / ".bench", help="where the JSON and markdown go")
    parser.add_argument(
        "--sam-build-dir", type=Path, default=REPO / ".aws-sam" / "build", help="`sam build` output to size"
    )
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS), help="run only these")
    parser.add_argument("--keep-data", action="store_true", help="leave the loaded index behind")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="skip the sections a stopped run of this scale already saved (<out>/partial-<scale>.json)",
    )
    parser.add_argument(
        "--vectors",
        choices=("fp32", "int8"),
        help="the index's vector encoding (default: RETRIEVAL_OPENSEARCH_VECTOR_ENCODING, else fp32)",
    )
    parser.add_argument(
        "--documents-only",
        action="store_true",
        help="load the documents without their DynamoDB rows (only for "
        + ", ".join(sorted(DOCUMENTS_ONLY_SECTIONS))
        + "; a million items' rows are most of an xlarge load)",
    )
    add_stack_dynamodb_flag(parser)
    args = parser.parse_args(argv)
    try:
        run(
            args.scale,
            args.out,
            args.sam_build_dir,
            tuple(args.only),
            args.keep_data,
            args.stack_dynamodb,
            resume=args.resume,
            encoding=args.vectors,
            documents_only=args.documents_only,
        )
    except (
        StackDownError,
        HandlerFailedError,
        coldstart.ColdStartError,
        DynamoDBStartError,
        SectionsFailedError,
    ) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
