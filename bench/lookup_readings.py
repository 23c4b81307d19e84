"""``python -m bench.lookup_readings [SET ...]``: what an in-process dictionary lookup would change in
``auto``'s readings (issue 68's latency: the lookup is the largest body auto adds to hybrid's first
``_msearch``).

Each multi-hop development set (``multihop/<set>/beir`` under ``$RETRIEVAL_EVAL_DATA``, else
``../shared/data``) is synced as pages, as ``retrieval eval --as-files`` syncs it; then every question is
read by the linker twice: against the entries auto's lookup returns today (``names_body``: at most
``NAME_ENTRIES``, the best scored first, under the caller's filters) and against the context's whole
dictionary (``entity_names``: what a per-container copy, as the ingest keeps, would hold). Printed per
set: the dictionary's size, how many lookups the cap cut, how many readings are the same (the links'
entity ids and how each matched), the differences, and the linker's CPU per question over the whole
dictionary: every entry tried, and only the entries ``understanding.alias_index.AliasIndex`` finds for
the question (what the retrieve function holds: its readings must be the whole dictionary's, and the
count of those that are not is printed too), with the index's build time.
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from retrieval_core import bootstrap
from retrieval_core.adapters.opensearch.question_queries import NAME_ENTRIES
from retrieval_core.ports import SearchFilters
from retrieval_core.understanding.alias_index import AliasIndex
from retrieval_core.understanding.reading import read

from dev.ingest_resources import scratch_ingest
from dev.tables import scratch_space

from .ingest import _aws_endpoints
from .progress import say
from .workspace import environment, stack_settings

REPO = Path(__file__).resolve().parents[1]


def compare(name: str, folder: Path) -> dict[str, Any]:
    """One set's readings, the lookup's against the whole dictionary's."""
    from retrieval_dev.evaluation.as_files import files_index
    from retrieval_dev.evaluation.beir import read_beir
    from retrieval_dev.evaluation.collection import CONTEXT_ID
    from retrieval_dev.evaluation.embedding_cache import DEFAULT_CACHE, CachedEmbedder

    base = stack_settings()
    collection = read_beir(folder)
    now = datetime.now(UTC)
    with (
        _aws_endpoints(base.dynamodb_endpoint or ""),
        scratch_space(base, "bench-readings") as settings,
        scratch_ingest(base, "bench-readings") as resources,
        environment({"RETRIEVAL_INGEST_BUCKET": resources.bucket}),
    ):
        embedder = CachedEmbedder(bootstrap.Container(settings).embedder, REPO / DEFAULT_CACHE)
        with files_index(settings, collection.documents, embedder=embedder, pages=True):
            store = bootstrap.container().store
            whole = store.entity_names(CONTEXT_ID)
            started = time.process_time()
            index = AliasIndex(whole)
            built = time.process_time() - started
            same = capped = indexed_differ = 0
            spent = indexed_spent = 0.0
            differences = []
            for question in collection.queries:
                vector = embedder.embed([question.text])[0]
                _, looked_up = store.hybrid_with_names(
                    CONTEXT_ID, question.text, vector, SearchFilters(size=10), 100
                )
                capped += len(looked_up) >= NAME_ENTRIES
                today = _links(read(question.text, looked_up, now))
                started = time.process_time()
                everything = _links(read(question.text, whole, now))
                spent += time.process_time() - started
                started = time.process_time()
                indexed = _links(read(question.text, index.candidates(question.text), now))
                indexed_spent += time.process_time() - started
                indexed_differ += indexed != everything
                if today == everything:
                    same += 1
                else:
                    differences.append(
                        {
                            "question": question.text,
                            "lookup only": sorted(today - everything),
                            "whole dictionary only": sorted(everything - today),
                        }
                    )
    count = max(1, len(collection.queries))
    return {
        "set": name,
        "dictionary entries": len(whole),
        "questions": len(collection.queries),
        "lookups cut at the cap": capped,
        "same readings": same,
        "linker CPU ms a question, whole dictionary": spent * 1000 / count,
        "linker CPU ms a question, entries the index finds": indexed_spent * 1000 / count,
        "index built in CPU ms": built * 1000,
        "indexed readings unlike the whole dictionary's": indexed_differ,
        "differences": differences,
    }


def _links(reading: Any) -> set[tuple[str, str]]:
    return {(link.entity_id, link.how) for link in reading.links}


def main() -> None:
    from retrieval_dev.evaluation.suite import multihop_sets

    root = Path(os.environ.get("RETRIEVAL_EVAL_DATA") or REPO.parent / "shared" / "data")
    sets = multihop_sets(root)
    wanted = sys.argv[1:] or list(sets)
    if not sets:
        sys.exit(f"no multi-hop development sets under {root / 'multihop'} (<set>/beir/)")
    for name in wanted:
        if name not in sets:
            sys.exit(f"no set {name!r} under {root / 'multihop'}: {', '.join(sets)}")
        say(f"lookup readings: {name}")
        print(json.dumps(compare(name, sets[name]), indent=1))


if __name__ == "__main__":
    main()
