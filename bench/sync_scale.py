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

Runs of thousands of pages last hours on a shared machine, so both children and the handler loop print
a progress line at least every ``PROGRESS_SECONDS`` with the figures so far (files done, files/s, the
ratio to the embed-only process when it ran first, the first window's cost per file against the latest
window's): a run stopped early still says what it measured. ``--no-embed-only`` leaves the embed-only
process out; ``--deployed 0`` the handler loop; ``--sync-only`` both (a ``medium`` run, where only the
sync's growth matters: its hours and no more).

Wall time on a shared machine measures the machine (the load on this one went from 15 to 2 within one
run), so every figure is also given in CPU seconds (``cpu_meter``): each child's own CPU plus what this
worktree's OpenSearch node and moto server spent over the same files, per window of files, with the load
average beside it. ``--embedder stub`` replaces the local model in the children and the handler loop by
``stub_embedder.HashEmbedder`` (bench-only): the embedder costs the same per file at any size, so
without it what the sync's own cost per file does at 50,000 pages shows more plainly, in a run of hours
rather than a night.

``python -m bench.sync_scale measure FOLDER`` runs the same on a real folder's files (``--last N``: only
its last N, synced into a fresh context: the same files early, against their late window in a run over
the whole folder). ``python -m bench.sync_scale sync|embed FOLDER ...`` are the two child processes.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from retrieval_core.config import Settings

from dev.stack_env import DEFAULT_REGION, FAKE_AWS_CREDENTIALS

if TYPE_CHECKING:
    from retrieval_core.bootstrap import Container

from . import cpu_meter
from .progress import say
from .stub_embedder import EMBEDDERS, HashEmbedder
from .sync_pages import titles, write

SEED = 66
CONTEXT = "scale"
DEPLOYED_CONTEXT = "deployed"
WINDOW = 500
"""Files at each end of the run whose mean cost per file is compared (fewer when the run is short)."""
PAGES = {"tiny": 12, "small": 6_000, "medium": 50_000, "large": 50_000, "xlarge": 50_000}
DEPLOYED = {"tiny": 6, "small": 2_000, "medium": 10_000, "large": 10_000, "xlarge": 10_000}
"""Objects the deployed path invokes the handler for (one invocation each)."""
WORD = re.compile(r"\w+")
EMBED_ONLY = {"tiny", "small"}
"""Scales that run the embed-only process too (from ``medium`` up only the growth per file is measured:
the ratio to the embedder is ``small``'s figure, and the embed-only process would add hours)."""
PROGRESS_SECONDS = 30.0
"""At most this long between two progress lines of a child or the handler loop."""


def measure(
    base: Settings,
    pages: int,
    deployed: int,
    *,
    embed_only: bool = True,
    sync: bool = True,
    embedder: str = "model",
    threads: int | None = None,
    source: Path | None = None,
    last: int | None = None,
) -> dict[str, Any]:
    """The section at ``pages`` synced and ``deployed`` of them through the handler; ``embed_only``: the
    embed-only process too (first, so the sync's progress lines can say its ratio so far); ``sync``:
    the sync at all (without it, only the handler loop, over the first ``deployed`` of the pages);
    ``embedder``: ``stub`` for ``HashEmbedder`` in place of the local model (a growth-only run);
    ``threads``: the local model's intra-op threads in every process (None: its default); ``source``: a
    real folder's files in place of generated pages (``pages`` is then its count), ``last`` only its
    last files in the sync's order (a late file synced first: the same files' cost early and late)."""
    from retrieval_core import bootstrap

    from dev.ingest_resources import scratch_ingest
    from dev.tables import scratch_space

    from .ingest import _aws_endpoints

    endpoint = base.dynamodb_endpoint or ""
    found: dict[str, Any] = {
        "pages": pages,
        "embedder": embedder,
        "threads": threads,
        "embed_only": None,
        "sync_over_embed": None,
        "deployed": None,
    }
    with tempfile.TemporaryDirectory(prefix="sync-scale-") as folder_name:
        folder = Path(folder_name) / "pages"
        if source is None:
            say(f"sync-scale: writing {pages:,} generated pages that name each other")
            write(folder, pages, SEED)
        else:
            pages = found["pages"] = flattened(source, folder, last)
            found["folder"] = str(source)
            say(f"sync-scale: {pages:,} files of {source}, in one folder")
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
            if sync:
                found |= _synced(folder, env, embed_only, embedder, threads)
                found["links"] = _links(target, pages) if source is None else None
            if deployed:
                say(f"sync-scale: the ingest handler once per object, {deployed:,} objects")
                with bootstrap.use(_container(target, embedder, threads)):
                    found["deployed"] = _deployed(folder, deployed, resources.bucket, endpoint)
    return found


def _synced(
    folder: Path, env: dict[str, str], embed_only: bool, embedder: str, threads: int | None
) -> dict[str, Any]:
    """The embed-only process (when asked) and the sync over ``folder``: their figures, in wall and in
    CPU seconds."""
    pages = sum(1 for _ in folder.iterdir())
    window = min(WINDOW, max(1, pages // 3))
    found: dict[str, Any] = {}
    floor = []
    chosen = ["--embedder", embedder, *(["--threads", str(threads)] if threads else [])]
    if embed_only:
        say("sync-scale: the embed-only process over the pages")
        embedded = _child(["embed", str(folder), *chosen], env)
        say(f"sync-scale: embedded in {embedded['seconds']:,.0f} s ({embedded['chunks']:,} chunks)")
        found["embed_only"] = {
            "seconds": embedded["seconds"],
            "pages_per_second": pages / embedded["seconds"],
            **_cpu_of(embedded, window),
        }
        floor = ["--floor", f"{pages / embedded['seconds']:.6f}"]
    say(f"sync-scale: retrieval sync of {pages:,} pages (a process of its own)")
    synced = _child(["sync", str(folder), "--context", CONTEXT, *chosen, *floor], env)
    say(f"sync-scale: synced in {synced['seconds']:,.0f} s ({synced['statuses']})")
    sync = {
        "seconds": synced["seconds"],
        "pages_per_second": pages / synced["seconds"],
        "before_first_file": synced["before_first_file"],
        **_cpu_of(synced, window),
    }
    if embed_only:
        found["sync_over_embed"] = synced["seconds"] / found["embed_only"]["seconds"]
        found["cpu_sync_over_embed"] = _cpu_ratios(sync, found["embed_only"])
    return found | {
        "chunks": synced["chunks"],
        "statuses": synced["statuses"],
        "sync": sync,
        "window": window,
        "first_ms_per_file": sync["windows"]["first"]["wall_ms_per_file"],
        "last_ms_per_file": sync["windows"]["last"]["wall_ms_per_file"],
        "last_over_first": sync["windows"]["last_over_first_wall"],
        "cpu_last_over_first": sync["windows"]["last_over_first_cpu"],
        "dictionary_reads": synced["dictionary_reads"],
    }


def _cpu_of(child: dict[str, Any], window: int) -> dict[str, Any]:
    """A child's CPU seconds, whole (its own, and its stack's over its run) and per window of files."""
    readings = [cpu_meter.Reading.of(row) for row in child["readings"]]
    return {
        "cpu_seconds": child["cpu_seconds"],
        "stack_cpu_seconds": child["opensearch_cpu_seconds"] + child["moto_cpu_seconds"],
        "opensearch_cpu_seconds": child["opensearch_cpu_seconds"],
        "moto_cpu_seconds": child["moto_cpu_seconds"],
        "load": child["load"],
        "windows": cpu_meter.ends(readings, window),
    }


def _cpu_ratios(sync: dict[str, Any], embedded: dict[str, Any]) -> dict[str, float]:
    """The sync over the embed-only process in CPU seconds: whole processes (the sync's with what its
    stack spent meanwhile; the embed-only one's alone, its stack idle beside it: the idle share is in
    ``stack_cpu_seconds`` of each), and per file over the first and the last window."""
    sync_windows, embed_windows = sync["windows"], embedded["windows"]
    return {
        "whole": (sync["cpu_seconds"] + sync["stack_cpu_seconds"]) / embedded["cpu_seconds"],
        "first": sync_windows["first"]["cpu_ms_per_file"] / embed_windows["first"]["cpu_ms_per_file"],
        "last": sync_windows["last"]["cpu_ms_per_file"] / embed_windows["last"]["cpu_ms_per_file"],
    }


def growth_of(costs: list[float]) -> dict[str, Any]:
    """Mean cost per file of the first ``WINDOW`` files against the last (a third of the files each
    when there are fewer than three windows' worth)."""
    window = min(WINDOW, max(1, len(costs) // 3))
    first, last = statistics.fmean(costs[:window]), statistics.fmean(costs[-window:])
    return {
        "window": window,
        "first_ms": first * 1000,
        "last_ms": last * 1000,
        "last_over_first": last / first,
    }


def progress_line(label: str, costs: list[float], total: int, floor: float | None = None) -> str:
    """What a run has measured so far: ``sync-scale: sync 1,200/6,000 files in 640 s, 1.88 files/s (1.52x
    the embed-only process); ms per file, first 500 410, latest 500 530 (1.29x); 2,555 s left at this
    rate``."""
    elapsed = sum(costs)
    rate = len(costs) / elapsed if elapsed else 0.0
    ratio = f" ({floor / rate:.2f}x the embed-only process)" if floor and rate else ""
    line = (
        f"sync-scale: {label} {len(costs):,}/{total:,} files in {elapsed:,.0f} s, {rate:.2f} files/s{ratio}"
    )
    if len(costs) >= 2:
        window = min(WINDOW, max(1, len(costs) // 2))
        first, latest = statistics.fmean(costs[:window]), statistics.fmean(costs[-window:])
        line += (
            f"; ms per file, first {window:,} {first * 1000:,.0f}, latest {window:,} {latest * 1000:,.0f}"
            f" ({latest / first:.2f}x)"
        )
    if rate and len(costs) < total:
        line += f"; {(total - len(costs)) / rate:,.0f} s left at this rate"
    return line


class Ticker:
    """A progress line when ``PROGRESS_SECONDS`` have passed since the last (the caller keeps the
    per-file costs; ``meter``: its readings' CPU figures too)."""

    def __init__(
        self, label: str, total: int, floor: float | None = None, meter: cpu_meter.Meter | None = None
    ) -> None:
        self._label, self._total, self._floor, self._meter = label, total, floor, meter
        self._last = time.monotonic()

    def tick(self, costs: list[float]) -> None:
        now = time.monotonic()
        if now - self._last >= PROGRESS_SECONDS or len(costs) == self._total:
            self._last = now
            cpu = "" if self._meter is None else cpu_meter.progress_text(self._meter.readings, WINDOW)
            say(progress_line(self._label, costs, self._total, self._floor) + cpu)


def _child(arguments: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run ``python -m bench.sync_scale ARGUMENTS`` and return what it printed (JSON), with its wall
    time and CPU seconds (interpreter start and model load included, on both sides alike), the CPU
    seconds this worktree's stack spent meanwhile and the load average before and after. Its stderr
    (progress lines, and what went wrong) is the bench's."""
    import resource

    stack = cpu_meter.stack_pids()
    stack_before, load_before = cpu_meter.stack_seconds(stack), os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bench.sync_scale", *arguments],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"sync-scale {arguments[0]} failed ({done.returncode}): see its stderr above")
    return {
        **json.loads(done.stdout.strip().splitlines()[-1]),
        "seconds": seconds,
        "cpu_seconds": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
        **{
            f"{service}_cpu_seconds": spent - stack_before[service]
            for service, spent in cpu_meter.stack_seconds(stack).items()
        },
        "load": [load_before, os.getloadavg()[0]],
    }


def _deployed(folder: Path, count: int, bucket: str, endpoint: str) -> dict[str, Any]:
    """Each page uploaded and the handler invoked for its event, as S3 notifications would: the
    per-invocation wall time and CPU time (this process and its stack) of the first and the last
    ``window`` invocations (the container warm), and what each did at either end, so a growth can be
    placed: OpenSearch requests and DynamoDB calls (``probes``), and the entries it loaded (its own
    chunks, the earlier chunks its title re-links)."""
    from retrieval_core import bootstrap
    from retrieval_dev.cli.ingest import s3_event, sequencer
    from retrieval_dev.cli.lambda_runtime import invoke

    from dev.ingest_resources import aws_client

    from .probes import Probe, install

    bootstrap.container().ingest  # noqa: B018 - the warm container, not its cold start, is measured
    bootstrap.container().embedder.embed(["warm up"])
    probe = Probe()
    install(probe)
    loader = bootstrap.container().loader
    load, loaded = loader.load, [0]

    def counted(entries: Iterable[Any], **options: Any) -> Any:
        listed = list(entries)
        loaded[0] += len(listed)
        return load(listed, **options)

    loader.load = counted  # type: ignore[method-assign]
    s3 = aws_client("s3", endpoint)
    times: list[float] = []
    cpu: list[float] = []
    done: list[dict[str, float]] = []
    meter = cpu_meter.Meter()
    ticker = Ticker("handler", count, meter=meter)
    for path in sorted(folder.iterdir())[:count]:
        key = f"contexts/{DEPLOYED_CONTEXT}/{path.name}"
        body = path.read_bytes()
        put = s3.put_object(Bucket=bucket, Key=key, Body=body)
        event = s3_event(bucket, key, size=len(body), etag=put["ETag"], version_id=put["VersionId"])
        event["Records"][0]["s3"]["object"]["sequencer"] = sequencer()
        probe.take()
        loaded[0] = 0
        before = meter.read(len(times))
        document = invoke("ingest", event)["body"]["objects"][0]["document"]
        after = meter.read(len(times) + 1)
        times.append(after.wall - before.wall)
        cpu.append(after.own + after.stack - before.own - before.stack)
        cost = probe.take()
        done.append({"opensearch": cost.opensearch, "dynamodb": cost.dynamodb_calls, "entries": loaded[0]})
        if document["status"] != "indexed":
            raise RuntimeError(f"sync-scale: {key} was {document['status']}: {document.get('reason')}")
        ticker.tick(times)
    growth = growth_of(times)
    window = growth["window"]
    ends = {
        end: {name: statistics.fmean(d[name] for d in part) for name in ("opensearch", "dynamodb", "entries")}
        for end, part in (("first", done[:window]), ("last", done[-window:]))
    }
    loads = [reading.load for reading in meter.readings[1:]]  # two a file: before and after
    at_ends = {
        "load_first": statistics.fmean(loads[: 2 * window]),
        "load_last": statistics.fmean(loads[-2 * window :]),
    }
    return {"objects": count, **growth, **ends, "cpu": growth_of(cpu), **at_ends}


def flattened(source: Path, folder: Path, last: int | None = None) -> int:
    """``source``'s files of a format the ingest reads copied into ``folder`` (made here), one level
    deep as the children read it (``a/b.html`` as ``a__b.html``); with ``last``, only the last that
    many in the sync's order. Returns how many."""
    from retrieval_core.documents.formats import format_of

    names = {
        path.relative_to(source).as_posix().replace("/", "__"): path
        for path in source.rglob("*")
        if path.is_file() and not path.is_symlink() and format_of(path.name) is not None
    }
    kept = sorted(names)[-last:] if last else sorted(names)
    folder.mkdir(parents=True)
    for name in kept:
        (folder / name).write_bytes(names[name].read_bytes())
    return len(kept)


MISSING_SHOWN = 5
"""Links the index lacks that the report names (chunk id and title): enough to look one up."""


def _links(settings: Settings, pages: int) -> dict[str, Any]:
    """The links the pages' texts make (another page's title named in a chunk) and how many of them the
    index holds as page mentions (``link_count``)."""
    from opensearchpy import OpenSearch, helpers
    from retrieval_core.adapters.opensearch.client import IndexLayout

    client = OpenSearch(hosts=[settings.opensearch_endpoint], timeout=60)
    try:
        scan = helpers.scan(
            client,
            index=IndexLayout.of(settings).alias(CONTEXT),
            query={"query": {"match_all": {}}, "_source": ["id", "text", "mentions"]},
            size=1000,
        )
        return link_count((hit["_source"] for hit in scan), set(titles(pages, SEED)))
    finally:
        client.close()


def link_count(sources: Iterable[dict[str, Any]], named: set[str]) -> dict[str, Any]:
    """Of the links stored chunks' texts make (a title in ``named`` written in a chunk of another page),
    how many ``expected``, how many ``held`` as the chunk's page mentions, and the first
    ``MISSING_SHOWN`` missing ones (chunk id, title, how many mentions the chunk has: a chunk at the
    mention cap has dropped some by design)."""
    expected = held = 0
    missing: list[dict[str, Any]] = []
    for source in sources:
        mentions = source.get("mentions", [])
        own = {m["name"] for m in mentions if m.get("role") == "about"}
        wanted = titles_in(source["text"], named) - own
        pages_named = {m["name"] for m in mentions if m["type"] == "page" and m.get("role") != "about"}
        expected += len(wanted)
        held += len(wanted & pages_named)
        for title in sorted(wanted - pages_named)[: MISSING_SHOWN - len(missing)]:
            missing.append({"chunk": source.get("id"), "title": title, "mentions": len(mentions)})
    return {"expected": expected, "held": held, "missing": missing}


def titles_in(text: str, named: set[str]) -> set[str]:
    """The titles ``text`` names as written (whole words, the longest at each place, left to right): a
    lookup of its word bigrams and trigrams, as the generated titles are two or three words (one
    regular expression of 50,000 titles would cost the bench what the matcher no longer costs the sync)."""
    words = list(WORD.finditer(text))
    found, position = set(), 0
    while position < len(words):
        for length in (3, 2):
            span = words[position : position + length]
            phrase = text[span[0].start() : span[-1].end()] if len(span) == length else ""
            if phrase in named and all(text[a.end() : b.start()] == " " for a, b in itertools.pairwise(span)):
                found.add(phrase)
                position += length
                break
        else:
            position += 1
    return found


def markdown(found: dict[str, Any]) -> str:
    deployed, links = found["deployed"], found.get("links")
    handler = "The ingest handler was not invoked." if deployed is None else _handler_text(deployed)
    pages, named = (
        (f"{found['pages']:,} files of {found['folder']}", "")
        if found.get("folder")
        else (f"{found['pages']:,} generated pages", " that name each other")
    )
    if "sync" not in found:
        return f"{pages}, not synced. {handler}"
    window = found["window"]
    sides = (("sync", "`retrieval sync` (one process)"), ("embed_only", "embed-only process"))
    rows = [_process_row(label, found[side]) for side, label in sides if found.get(side) is not None]
    cpu = found.get("cpu_sync_over_embed")
    ratio = (
        "The embed-only process was not run."
        if cpu is None
        else f"Sync over embed-only: wall **{found['sync_over_embed']:.2f}x**; CPU (the sync with its "
        f"stack) **{cpu['whole']:.2f}x** whole, {cpu['first']:.2f}x over the first {window:,} files, "
        f"{cpu['last']:.2f}x over the last {window:,}."
    )
    stub = " Embedder: the bench's hash stub (growth only)." if found.get("embedder") == "stub" else ""
    if found.get("threads"):
        stub += f" The model ran with {found['threads']} intra-op thread(s) in each process."
    lines = [
        f"{pages} ({found['chunks']:,} chunks){named}.{stub}",
        "",
        f"| process | pages/s | wall s | CPU s: process + OpenSearch + moto "
        f"| first {window:,}: wall / CPU ms a file (load) | last {window:,} | last / first, wall / CPU |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *(f"| {' | '.join(row)} |" for row in rows),
        "",
        f"{ratio} {_before_first(found['sync'])}{_split(found['sync']['windows'])}"
        f"{_costliest(found['sync']['windows'])} The dictionary was "
        f"read {found['dictionary_reads']} "
        f"time(s). {handler}" + (_links_text(links) if links else ""),
    ]
    return "\n".join(lines)


def _links_text(links: dict[str, Any]) -> str:
    text = f" Links held: {links['held']:,} of the {links['expected']:,} the texts make."
    missing = links.get("missing") or []
    shown = "; ".join(f"{m['title']!r} in {m['chunk']} ({m['mentions']} mentions)" for m in missing)
    return text + (f" Missing: {shown}." if missing else "")


def _process_row(label: str, side: dict[str, Any]) -> list[str]:
    windows = side["windows"]

    def end(name: str) -> str:
        window = windows[name]
        return (
            f"{window['wall_ms_per_file']:,.0f} / {window['cpu_ms_per_file']:,.0f} "
            f"({window['load_low']:.1f}-{window['load_high']:.1f})"
        )

    return [
        label,
        f"{side['pages_per_second']:,.2f}",
        f"{side['seconds']:,.0f}",
        " + ".join(f"{side[f'{part}cpu_seconds']:,.0f}" for part in ("", "opensearch_", "moto_")),
        end("first"),
        end("last"),
        f"{windows['last_over_first_wall']:.2f}x / {windows['last_over_first_cpu']:.2f}x",
    ]


def _before_first(sync: dict[str, Any]) -> str:
    """What the sync spent before its first file (in the whole run's figures, not the first window's)."""
    row = sync.get("before_first_file")
    if row is None:
        return ""
    reading = cpu_meter.Reading.of(row)
    return (
        f"Before its first file (the folder's walk, the records' read, the titles' pre-pass): "
        f"{reading.wall:,.1f} s wall, {reading.own + reading.stack:,.1f} CPU s with its stack, in the "
        "whole run's figures and not in the first window's. "
    )


def _costliest(windows: dict[str, Any]) -> str:
    """The window of the run that cost the most CPU a file, by service (the JSON has every window)."""
    worst = windows.get("costliest")
    if worst is None:
        return ""
    each = ", ".join(
        f"{label} {_service_ms(worst, name):,.0f}"
        for name, label in (("own", "the process"), ("opensearch", "OpenSearch"), ("moto", "moto"))
    )
    return (
        f" The costliest {worst['files']:,} files (after {worst['after_files']:,}): "
        f"{worst['cpu_ms_per_file']:,.0f} CPU ms a file ({each}), {worst['wall_ms_per_file']:,.0f} wall."
    )


def _service_ms(window: dict[str, Any], name: str) -> float:
    """CPU ms a file one part of the run (``own``, ``opensearch``, ``moto``) spent over a window."""
    return float(window[f"{name}_cpu_seconds"] * 1000 / window["files"])


def _split(windows: dict[str, Any]) -> str:
    """Where the sync's CPU per file went, first window against last."""

    def each(name: str) -> str:
        return f"{_service_ms(windows['first'], name):,.0f} -> {_service_ms(windows['last'], name):,.0f}"

    return (
        f"The sync's CPU ms per file, first window against last: the process {each('own')}, OpenSearch "
        f"{each('opensearch')}, moto {each('moto')}."
    )


def _handler_text(deployed: dict[str, Any]) -> str:
    cpu = deployed["cpu"]
    return (
        f"The ingest handler once per object ({deployed['objects']:,} objects, a fresh context): "
        f"first {deployed['window']:,} invocations {deployed['first_ms']:,.0f} ms each (CPU "
        f"{cpu['first_ms']:,.0f}, load {deployed['load_first']:.1f}), last {deployed['window']:,} "
        f"{deployed['last_ms']:,.0f} ms (CPU {cpu['last_ms']:,.0f}, load {deployed['load_last']:.1f}): "
        f"{deployed['last_over_first']:.2f}x wall, {cpu['last_over_first']:.2f}x CPU; per invocation, first "
        f"against last: {_each(deployed, 'opensearch')} OpenSearch requests, {_each(deployed, 'dynamodb')} "
        f"DynamoDB calls, {_each(deployed, 'entries')} entries loaded (its chunks and the earlier chunks "
        "its title re-links)."
    )


def _each(deployed: dict[str, Any], name: str) -> str:
    return f"{deployed['first'][name]:.1f} -> {deployed['last'][name]:.1f}"


def _sync_child(folder: Path, context_id: str, floor: float | None) -> dict[str, Any]:
    """``retrieval sync``'s own function over the folder (the embedder loaded first, as the embed-only
    process does), a reading of wall and CPU seconds after each file and one when it returns (the last
    batch's commit), told on stderr as it goes; ``floor``: the embed-only process's pages/s."""
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
    bootstrap.container().embedder.embed(["warm up"])
    meter = cpu_meter.Meter()
    ticker = Ticker("sync", sum(1 for _ in folder.iterdir()), floor, meter)
    costs: list[float] = []

    def progress(done: int) -> None:
        if done <= meter.readings[-1].files:
            return
        previous = meter.readings[-1]
        now = meter.read(done)
        costs.extend([now.wall - previous.wall] + [0.0] * (done - previous.files - 1))
        ticker.tick(costs)

    before_first: list[list[float]] = []

    def titles_read(done: int) -> None:
        """The windows start where the pre-pass ends: what the sync does before its first file (the
        folder's walk, the records' read, every title read) grows with the folder and is the whole
        run's cost, not its first files' (at 50,000 pages, a quarter of the first window's wall time)."""
        before_first[:] = [meter.start_windows_here().row()]

    report = sync(folder, context_id, delete=False, progress=progress, reading=titles_read)
    meter.read(meter.readings[-1].files)  # the last batch's commit, after the last file's progress
    statuses: dict[str, int] = {}
    for entry in report:
        statuses[entry["status"]] = statuses.get(entry["status"], 0) + 1
    chunks = sum(entry["chunks"] for entry in report)
    readings = [reading.row() for reading in meter.readings]
    return {
        "readings": readings,
        "before_first_file": before_first[0] if before_first else None,
        "statuses": statuses,
        "chunks": chunks,
        "dictionary_reads": reads[0],
    }


def _embed_child(folder: Path) -> dict[str, Any]:
    """Each page parsed, chunked and embedded as the ingest does (the same chunking, the same embedder,
    a page's chunks in one call), nothing else; a reading of its wall and CPU seconds after each (no
    stack: it uses none)."""
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
    paths = sorted(folder.iterdir())
    embedder.embed(["warm up"])
    meter = cpu_meter.Meter(stack={})
    ticker, costs = Ticker("embed-only", len(paths), meter=meter), list[float]()
    for path in paths:
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
        previous, now = meter.readings[-1], meter.read(len(costs) + 1)
        costs.append(now.wall - previous.wall)
        ticker.tick(costs)
    return {"chunks": chunks, "readings": [reading.row() for reading in meter.readings]}


def main() -> None:
    """The two child processes, or ``measure --pages N --deployed M``: the section alone at any size
    (against the running stack), its table printed."""
    parser = command_line()
    args = parser.parse_args()
    if args.what == "measure":
        from .workspace import stack_settings

        found = measure(
            stack_settings(),
            embedder=args.embedder,
            threads=args.threads,
            source=args.folder,
            last=args.last,
            **runs(parser, args),
        )
        print(json.dumps(found))
        print(markdown(found))
        return
    assert args.folder is not None, "sync and embed read a folder"
    from retrieval_core import bootstrap
    from retrieval_core.config import settings

    with bootstrap.use(_container(settings(), args.embedder, args.threads)):
        result = (
            _sync_child(args.folder, args.context, args.floor)
            if args.what == "sync"
            else _embed_child(args.folder)
        )
    print(json.dumps(result))


def command_line() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.sync_scale")
    parser.add_argument("what", choices=("sync", "embed", "measure"))
    parser.add_argument(
        "folder",
        type=Path,
        nargs="?",
        help="sync, embed: the folder a child reads; measure: a real folder's files in place of generated "
        "pages (copied into one folder, as the children read it; no link count)",
    )
    parser.add_argument(
        "--last",
        type=int,
        help="measure FOLDER: only its last N files in the sync's order (synced first: a late file's cost "
        "early, against the same files' last window of a run over the whole folder)",
    )
    parser.add_argument("--context", default=CONTEXT)
    parser.add_argument("--pages", type=int, default=PAGES["small"])
    parser.add_argument(
        "--deployed", type=int, help=f"0: no handler loop (default: {DEPLOYED['small']:,} objects)"
    )
    parser.add_argument(
        "--no-embed-only", dest="embed_only", action="store_false", help="Leave the embed-only process out."
    )
    parser.add_argument("--no-sync", dest="sync", action="store_false", help="Only the handler loop.")
    parser.add_argument(
        "--sync-only",
        action="store_true",
        help="Only the sync (no embed-only process, no handler loop): its growth, first against last "
        "files, and its links; medium's 1.2x costs the sync's hours alone",
    )
    parser.add_argument("--floor", type=float, help="sync: the embed-only process's pages/s, for progress")
    parser.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default="model",
        help="stub: bench.stub_embedder's hash vectors in place of the local model (the growth alone)",
    )
    parser.add_argument(
        "--threads", type=int, help="The local model's intra-op threads in every process (default: its own)"
    )
    return parser


def runs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """What ``measure`` runs, from its options (``--sync-only`` with an option that runs more, or with
    ``--no-sync``, is refused rather than half obeyed)."""
    if args.sync_only and (args.deployed or not args.sync):
        parser.error("--sync-only runs the sync alone: drop --deployed and --no-sync")
    if args.last is not None and (args.folder is None or args.last < 1):
        parser.error("--last N keeps a real folder's last N files: give FOLDER, and N of 1 or more")
    deployed = 0 if args.sync_only else DEPLOYED["small"] if args.deployed is None else args.deployed
    return {
        "pages": args.pages,
        "deployed": deployed,
        "embed_only": args.embed_only and not args.sync_only,
        "sync": args.sync,
    }


def _container(settings: Settings, embedder: str, threads: int | None = None) -> Container:
    """The composition the children and the handler loop run in: the configured one, or with
    ``HashEmbedder`` in place of the embedder (``--embedder stub``), or the local model with ``threads``
    intra-op threads (``--threads``)."""
    from retrieval_core import bootstrap
    from retrieval_core.embedding.local import LocalEmbedder

    overrides: dict[str, Any] = {}
    if embedder == "stub":
        overrides["embedder"] = HashEmbedder()
    elif threads:
        overrides["embedder"] = LocalEmbedder(threads=threads)
    return bootstrap.Container(settings, overrides=overrides)


if __name__ == "__main__":
    main()
