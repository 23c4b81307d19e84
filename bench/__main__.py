"""``python -m bench --scale small``: generate, load, measure, print the markdown report, save the JSON.

Expects the local stack to be up (``make bench`` starts it). Progress goes to stderr, the report to stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from pathlib import Path
from typing import Any

from retrieval_core.config import Settings

from . import coldstart, documents, filtered, floor, graph, ingest, isolation, micro, paging, policy, retrieve
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
    "coldstart",
    "package",
    "isolation",
)


def run(
    scale_name: str,
    out_dir: Path,
    sam_build_dir: Path,
    sections: tuple[str, ...],
    keep: bool,
    stack_dynamodb: bool = False,
) -> dict[str, Any]:
    """Measure at ``scale_name``; DynamoDB is the bench's own indexed moto unless ``stack_dynamodb``."""
    with bench_dynamodb(out_dir, use_stack=stack_dynamodb) as endpoint:
        label = (
            "the stack's moto" if stack_dynamodb else "moto with partition-indexed Query (bench.moto_indexed)"
        )
        base = stack_settings(endpoint).model_copy(update={"metadata_fields": METADATA_FIELDS})
        return _run(SCALES[scale_name], out_dir, sam_build_dir, sections, keep, base, label)


def _run(
    scale: Scale,
    out_dir: Path,
    sam_build_dir: Path,
    sections: tuple[str, ...],
    keep: bool,
    base: Settings,
    dynamodb_label: str,
) -> dict[str, Any]:
    from retrieval_core.adapters.opensearch.client import build_client

    say(f"scale {scale.name}: generating {scale.items:,} items / {scale.edges:,} edges (fixed seed)")
    corpus = generate(scale)
    client = build_client(base)
    machine = {**facts(client), "dynamodb": dynamodb_label}
    client.close()
    results: dict[str, Any] = {}
    # The handlers print their metrics (EMF lines) and logs as in Lambda; stdout is for the report and
    # stderr for progress (which keeps its own handle), so both are sent away while measuring.
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    with (
        open(os.devnull, "w") as sink,
        contextlib.redirect_stdout(sink),
        contextlib.redirect_stderr(sink),
        workspace(base, scale.name, keep=keep) as settings,
    ):
        vectors = "local model (all-MiniLM-L6-v2)" if scale.real_embeddings else "synthetic unit"
        say(f"loading through the real loader ({vectors} vectors)")
        load_seconds = load(settings, corpus)
        say(f"loaded in {load_seconds:.0f}s")
        probe = Probe()
        if "retrieve" in sections:
            results["retrieve"] = retrieve.measure(settings, corpus, probe)
        if "floor" in sections:
            results["floor"] = floor.measure(settings, corpus, scale.rounds)
        if "filtered" in sections:
            results["filtered"] = filtered.measure(settings, corpus)
        if "paging" in sections:
            results["paging"] = paging.measure(settings, corpus, probe)
        if "graph" in sections:
            results["graph"] = graph.measure(corpus, probe)
        if "policy" in sections:
            results["policy"] = policy.measure(settings, corpus, probe)
        if "isolation" in sections:
            results["isolation"] = isolation.measure(settings, corpus)
        if "packing" in sections:
            say("packing")
            results["packing"] = micro.packing(runs=5)
        if "ingest" in sections:
            results["ingest"] = ingest.measure(base, corpus, probe)
        if "documents" in sections:
            results["documents"] = documents.measure(base, scale.items // 10)
        if "coldstart" in sections:
            source, target = pairs_at_distance(corpus, 2, 1)[0]
            events = {
                "retrieve": retrieve_event(
                    {"mode": "lexical", "text": corpus.entity_names[0], "session_id": "cold"}
                ),
                "graph_path": graph_path_event(source, target, 3),
                "why_explain": why_event(corpus.deepest[0], 3),
            }
            results["coldstart"] = coldstart.measure(
                # a fresh process reads the workspace's settings from its environment, as Lambda would
                {**os.environ, **settings.to_env()},
                events,
                corpus.entity_names[0],
                scale.import_repeats,
                scale.first_call_repeats,
            )
    if "package" in sections:
        results["package"] = micro.package_sizes(sam_build_dir)
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
    add_stack_dynamodb_flag(parser)
    args = parser.parse_args(argv)
    try:
        run(args.scale, args.out, args.sam_build_dir, tuple(args.only), args.keep_data, args.stack_dynamodb)
    except (StackDownError, HandlerFailedError, coldstart.ColdStartError, DynamoDBStartError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
