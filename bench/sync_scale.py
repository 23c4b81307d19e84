"""``sync-scale``: does a file cost the same whether it is the 50th or the 50,000th of its context (issue 66)?

Generated Markdown pages that name each other (``sync_pages``) are synced through ``retrieval sync``'s
own function in a process of its own (a whole process: interpreter, model load, every file's event),
beside an embed-only process over the same pages (parse, chunk and embed each page as the ingest does,
nothing written): the embedder is the floor a sync approaches. Reported: pages/s of each, their ratio,
and the sync's cost per file over its first files against its last (the growth a dictionary read or a
pattern compiled per file caused). Then the deployed path: the ingest handler invoked once per object
into a fresh context (an event is searchable when it returns), its per-invocation time at the start
and at the end of the run. Last, how many of the links the pages' texts make (a title named in another
page's chunk) the index holds: the speed must not cost a link.

``python -m bench.sync_scale sync|embed FOLDER ...`` are the two child processes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from retrieval_core.config import Settings

from dev.stack_env import DEFAULT_REGION, FAKE_AWS_CREDENTIALS

from .progress import say
from .sync_pages import titles, write

SEED = 66
CONTEXT = "scale"
DEPLOYED_CONTEXT = "deployed"
WINDOW = 500
"""Files at each end of the run whose mean cost per file is compared (fewer when the run is short)."""
PAGES = {"tiny": 12, "small": 6_000, "medium": 50_000, "large": 50_000, "xlarge": 50_000}
DEPLOYED = {"tiny": 6, "small": 2_000, "medium": 10_000, "large": 10_000, "xlarge": 10_000}
"""Objects the deployed path invokes the handler for (one invocation each)."""


def measure(base: Settings, pages: int, deployed: int) -> dict[str, Any]:
    """The section at ``pages`` synced and ``deployed`` objects through the handler."""
    from retrieval_core import bootstrap

    from dev.ingest_resources import scratch_ingest
    from dev.tables import scratch_space

    from .ingest import _aws_endpoints

    endpoint = base.dynamodb_endpoint or ""
    with tempfile.TemporaryDirectory(prefix="sync-scale-") as folder_name:
        folder = Path(folder_name) / "pages"
        say(f"sync-scale: writing {pages:,} generated pages that name each other")
        write(folder, pages, SEED)
        with (
            _aws_endpoints(endpoint),
            scratch_space(base, "bench-sync") as settings,
            scratch_ingest(base, "bench-sync") as resources,
        ):
            target = settings.model_copy(update={"ingest_queue_url": None})
            env = {
                **os.environ,
                **target.to_env(),
                **FAKE_AWS_CREDENTIALS,
                "AWS_DEFAULT_REGION": DEFAULT_REGION,
                "AWS_REGION": DEFAULT_REGION,
                "AWS_ENDPOINT_URL_S3": endpoint,
                "RETRIEVAL_INGEST_BUCKET": resources.bucket,
            }
            env.pop("RETRIEVAL_INGEST_QUEUE_URL", None)
            say(f"sync-scale: retrieval sync of {pages:,} pages (a process of its own)")
            synced = _child(["sync", str(folder), "--context", CONTEXT], env)
            say(f"sync-scale: synced in {synced['seconds']:,.0f} s ({synced['statuses']})")
            say("sync-scale: the embed-only process over the same pages")
            embedded = _child(["embed", str(folder)], env)
            say(f"sync-scale: embedded in {embedded['seconds']:,.0f} s ({embedded['chunks']:,} chunks)")
            links = _links(target, pages)
            say(f"sync-scale: the ingest handler once per object, {deployed:,} objects")
            with bootstrap.use(bootstrap.Container(target)):
                handler = _deployed(folder, deployed, resources.bucket, endpoint)
    window = min(WINDOW, max(1, pages // 3))
    stamps = synced["stamps"]
    costs = [later - earlier for earlier, later in zip([0.0, *stamps], stamps, strict=False)]
    first, last = statistics.fmean(costs[:window]), statistics.fmean(costs[-window:])
    return {
        "pages": pages,
        "chunks": embedded["chunks"],
        "statuses": synced["statuses"],
        "sync": {"seconds": synced["seconds"], "pages_per_second": pages / synced["seconds"]},
        "embed_only": {"seconds": embedded["seconds"], "pages_per_second": pages / embedded["seconds"]},
        "sync_over_embed": synced["seconds"] / embedded["seconds"],
        "window": window,
        "first_ms_per_file": first * 1000,
        "last_ms_per_file": last * 1000,
        "last_over_first": last / first,
        "dictionary_reads": synced["dictionary_reads"],
        "deployed": handler,
        "links": links,
    }


def _child(arguments: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run ``python -m bench.sync_scale ARGUMENTS`` and return what it printed (JSON), with its wall
    time (interpreter start and model load included, on both sides alike)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bench.sync_scale", *arguments],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"sync-scale {arguments[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "seconds": seconds}


def _deployed(folder: Path, count: int, bucket: str, endpoint: str) -> dict[str, Any]:
    """Each page uploaded and the handler invoked for its event, as S3 notifications would: the
    per-invocation wall time of the first and the last ``window`` invocations (the container warm)."""
    from retrieval_core import bootstrap
    from retrieval_dev.cli.ingest import s3_event, sequencer
    from retrieval_dev.cli.lambda_runtime import invoke

    from dev.ingest_resources import aws_client

    bootstrap.container().ingest  # noqa: B018 - the warm container, not its cold start, is measured
    bootstrap.container().embedder.embed(["warm up"])
    s3 = aws_client("s3", endpoint)
    times = []
    for path in sorted(folder.iterdir())[:count]:
        key = f"contexts/{DEPLOYED_CONTEXT}/{path.name}"
        body = path.read_bytes()
        put = s3.put_object(Bucket=bucket, Key=key, Body=body)
        event = s3_event(bucket, key, size=len(body), etag=put["ETag"], version_id=put["VersionId"])
        event["Records"][0]["s3"]["object"]["sequencer"] = sequencer()
        started = time.perf_counter()
        document = invoke("ingest", event)["body"]["objects"][0]["document"]
        times.append(time.perf_counter() - started)
        if document["status"] != "indexed":
            raise RuntimeError(f"sync-scale: {key} was {document['status']}: {document.get('reason')}")
    window = min(WINDOW, max(1, count // 3))
    first, last = statistics.fmean(times[:window]), statistics.fmean(times[-window:])
    return {
        "objects": count,
        "window": window,
        "first_ms": first * 1000,
        "last_ms": last * 1000,
        "last_over_first": last / first,
    }


def _links(settings: Settings, pages: int) -> dict[str, int]:
    """The links the pages' texts make (another page's title named in a chunk) and how many of them the
    index holds as page mentions."""
    from opensearchpy import OpenSearch, helpers
    from retrieval_core.adapters.opensearch.client import IndexLayout

    named = titles(pages, SEED)
    pattern = re.compile(
        r"\b(?:" + "|".join(re.escape(t) for t in sorted(named, key=len, reverse=True)) + r")\b"
    )
    client = OpenSearch(hosts=[settings.opensearch_endpoint], timeout=60)
    expected = held = 0
    try:
        scan = helpers.scan(
            client,
            index=IndexLayout.of(settings).alias(CONTEXT),
            query={"query": {"match_all": {}}, "_source": ["text", "mentions"]},
            size=1000,
        )
        for hit in scan:
            source = hit["_source"]
            mentions = source.get("mentions", [])
            own = {m["name"] for m in mentions if m.get("role") == "about"}
            wanted = {found.group() for found in pattern.finditer(source["text"])} - own
            pages_named = {m["name"] for m in mentions if m["type"] == "page" and m.get("role") != "about"}
            expected += len(wanted)
            held += len(wanted & pages_named)
    finally:
        client.close()
    return {"expected": expected, "held": held}


def markdown(found: dict[str, Any]) -> str:
    deployed = found["deployed"]
    links = found["links"]
    rows = [
        [label, f"{found[side]['pages_per_second']:,.2f}", f"{found[side]['seconds']:,.0f}"]
        for side, label in (("sync", "`retrieval sync` (one process)"), ("embed_only", "embed-only process"))
    ]
    lines = [
        f"{found['pages']:,} generated pages ({found['chunks']:,} chunks) that name each other.",
        "",
        "| process | pages/s | s |",
        "|---|---:|---:|",
        *(f"| {' | '.join(row)} |" for row in rows),
        "",
        f"Sync over embed-only: **{found['sync_over_embed']:.2f}x**. Cost per file, first "
        f"{found['window']:,} files {found['first_ms_per_file']:,.0f} ms, last {found['window']:,} "
        f"{found['last_ms_per_file']:,.0f} ms: **{found['last_over_first']:.2f}x**; the dictionary was read "
        f"{found['dictionary_reads']} time(s). The ingest handler once per object ({deployed['objects']:,} "
        f"objects, a fresh context): first {deployed['window']:,} invocations {deployed['first_ms']:,.0f} ms "
        f"each, last {deployed['window']:,} {deployed['last_ms']:,.0f} ms: "
        f"{deployed['last_over_first']:.2f}x. "
        f"Links held: {links['held']:,} of the {links['expected']:,} the texts make.",
    ]
    return "\n".join(lines)


def _sync_child(folder: Path, context_id: str) -> dict[str, Any]:
    from retrieval_core import bootstrap
    from retrieval_core.ports import NamedEntity
    from retrieval_dev.cli.sync import sync

    store = bootstrap.container().store
    reads = [0]
    whole = store.entity_names

    def counted(context_id: str) -> list[NamedEntity]:
        reads[0] += 1
        return whole(context_id)

    store.entity_names = counted  # type: ignore[method-assign]
    started = time.perf_counter()
    stamps: list[float] = []

    def progress(done: int) -> None:
        stamps.extend([time.perf_counter() - started] * (done - len(stamps)))

    report = sync(folder, context_id, delete=False, progress=progress)
    statuses: dict[str, int] = {}
    for entry in report:
        statuses[entry["status"]] = statuses.get(entry["status"], 0) + 1
    return {"stamps": stamps, "statuses": statuses, "dictionary_reads": reads[0]}


def _embed_child(folder: Path) -> dict[str, Any]:
    """Each page parsed, chunked and embedded as the ingest does (the same chunking, the same embedder,
    a page's chunks in one call), nothing else."""
    from retrieval_core import bootstrap
    from retrieval_core.documents.chunk_items import heading_of
    from retrieval_core.documents.chunking import chunk_document
    from retrieval_core.documents.formats import format_of
    from retrieval_core.documents.limits import DOCUMENT_LIMITS
    from retrieval_core.documents.parsers import parse
    from retrieval_core.documents.policy import ChunkingPolicy
    from retrieval_core.models.item import embedding_input
    from retrieval_core.models.text_window import token_counter, window_of

    container = bootstrap.container()
    embedder = container.embedder
    policy = ChunkingPolicy.model_validate(container.settings.document_chunking)
    chunks = 0
    for path in sorted(folder.iterdir()):
        fmt = format_of(path.name)
        assert fmt is not None
        parsed = parse(fmt, path.read_bytes(), DOCUMENT_LIMITS)
        found = chunk_document(
            parsed,
            policy.for_key(path.name),
            window=window_of(embedder.name),
            embed=embedder.embed,
            count_tokens=token_counter(embedder),
        )
        embedder.embed([embedding_input(c.text, heading_of(c)) for c in found])
        chunks += len(found)
    return {"chunks": chunks}


def main() -> None:
    """The two child processes, or ``measure --pages N --deployed M``: the section alone at any size
    (against the running stack), its table printed."""
    parser = argparse.ArgumentParser(prog="python -m bench.sync_scale")
    parser.add_argument("what", choices=("sync", "embed", "measure"))
    parser.add_argument("folder", type=Path, nargs="?")
    parser.add_argument("--context", default=CONTEXT)
    parser.add_argument("--pages", type=int, default=PAGES["small"])
    parser.add_argument("--deployed", type=int, default=DEPLOYED["small"])
    args = parser.parse_args()
    if args.what == "measure":
        from .workspace import stack_settings

        found = measure(stack_settings(), args.pages, args.deployed)
        print(json.dumps(found))
        print(markdown(found))
        return
    assert args.folder is not None, "sync and embed read a folder"
    result = _sync_child(args.folder, args.context) if args.what == "sync" else _embed_child(args.folder)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
