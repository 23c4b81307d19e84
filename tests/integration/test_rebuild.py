"""``retrieval rebuild`` on the real node: a declaration change rebuilt while readers and writers keep
going, then rolled back.

Reads run all through the rebuild from another thread (every one a 200 holding the item it asks for);
writes arrive at the two moments that matter, chosen by wrapping the real adapter: after the first full
copy (new items, an update and deletes, to be caught up by sequence number) and while the old index is
blocked for the switch (a load that must be held and retried until the alias names the new index, not
refused). Afterwards the new index holds exactly what the writers' reports say, filters by the newly
declared type, and ``--rollback`` goes back with what was written since.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from retrieval_core import bootstrap
from retrieval_core.adapters.errors import IndexMetadataMismatchError
from retrieval_core.adapters.opensearch import writer
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.adapters.opensearch.generations import OpenSearchGenerations
from retrieval_core.config import Settings
from retrieval_core.lifecycle.ports import Checkpoint
from retrieval_core.lifecycle.rebuild import RebuildService
from retrieval_core.models.metadata import FieldType
from retrieval_dev.cli import main
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import LambdaContext, handler_module

from dev.tables import scratch_space

CONTEXT = "acme"
SEEDED = 120
PROBES = range(0, SEEDED, 7)  # items the writers never touch: each read asks for one of them
UPDATED = range(1, 30, 7)
DELETED = range(2, 30, 7)
WAIT_SECONDS = 60


def word(n: int) -> str:
    """A word only item ``n``'s text holds."""
    letters = "".join(chr(ord("b") + int(d)) for d in f"{n:04d}")
    return f"zq{letters}"


def line(n: int, text: str = "") -> str:
    return json.dumps(
        {
            "id": f"{CONTEXT}:r-{n:04d}",
            "context_id": CONTEXT,
            "kind": "proposition",
            "text": text or f"Item {n} is about {word(n)}.",
            "created_at": "2026-03-02T09:00:00Z",
            "metadata": {"priority": n % 5},
        }
    )


def delete_line(n: int) -> str:
    return json.dumps({"op": "delete", "id": f"{CONTEXT}:r-{n:04d}"})


def progress(line: str) -> None:
    """To the process's own stderr: the handlers' runtime redirects sys.stdout and sys.stderr while the
    reader thread invokes one."""
    print(line, file=sys.__stderr__, flush=True)


def retrieve(settings: Settings, body: dict[str, Any]) -> tuple[int, list[str]]:
    event = api_event("POST", "/v1/retrieve", CONTEXT, body=body)
    with bootstrap.use(bootstrap.Container(settings)):
        result = handler_module("retrieve").lambda_handler(event, LambdaContext(function_name="retrieve"))
    hits = json.loads(result["body"]).get("hits", []) if result["statusCode"] == 200 else []
    return int(result["statusCode"]), [hit["id"] for hit in hits]


class Reader(threading.Thread):
    """Asks for probe items by their own word until stopped; keeps every answer that was wrong."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(daemon=True)
        self.settings = settings
        self.stop = threading.Event()
        self.reads = 0
        self.wrong: list[tuple[int, int, list[str]]] = []

    def run(self) -> None:
        while not self.stop.is_set():
            n = PROBES[self.reads % len(PROBES)]
            status, ids = retrieve(self.settings, {"mode": "lexical", "text": word(n), "top_k": 3})
            if status != 200 or f"{CONTEXT}:r-{n:04d}" not in ids:
                self.wrong.append((n, status, ids))
            self.reads += 1


class Hooked:
    """The real adapter, with a callback after the first full copy and after the write block."""

    def __init__(self, inner: OpenSearchGenerations, on: Callable[[str], None]) -> None:
        self._inner = inner
        self._on = on

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def copy(self, source: str, target: str, since: Checkpoint | None, **options: Any) -> int:
        copied = self._inner.copy(source, target, since, **options)
        if since is None:
            self._on("copied")
        return copied

    def block_writes(self, index: str, blocked: bool) -> None:
        self._inner.block_writes(index, blocked)
        if blocked:
            self._on("blocked")


@pytest.fixture
def space(stack_settings: Settings) -> Iterator[Settings]:
    with scratch_space(stack_settings, "rb") as settings:
        yield settings


def searchable(opensearch: Any, settings: Settings) -> dict[str, str]:
    alias = IndexLayout.of(settings).alias(CONTEXT)
    opensearch.indices.refresh(index=alias)
    hits = opensearch.search(index=alias, body={"query": {"match_all": {}}, "size": 10_000})["hits"]["hits"]
    return {hit["_id"]: hit["_source"]["text"] for hit in hits}


def test_a_rebuild_under_reads_and_writes_loses_nothing_and_rolls_back(
    space: Settings, opensearch: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    old = space
    new = old.model_copy(update={"metadata_fields": {"priority": FieldType.NUMBER}})
    old_writer = bootstrap.Container(old).loader
    assert old_writer.load_lines([line(n) for n in range(SEEDED)]).ok
    alias = IndexLayout.of(old).alias(CONTEXT)
    (first_index,) = opensearch.indices.get_alias(name=alias)
    # The error: the declaration no longer fits the index, and the message names the command.
    with pytest.raises(IndexMetadataMismatchError, match=r"Rebuild the index \(`retrieval rebuild`\)"):
        bootstrap.Container(new).indices.ensure(CONTEXT)

    expected = {f"{CONTEXT}:r-{n:04d}": f"Item {n} is about {word(n)}." for n in range(SEEDED)}
    sleeps = threading.Event()

    def held_sleep(seconds: float) -> None:
        sleeps.set()
        time.sleep(seconds)

    monkeypatch.setattr(writer, "time", SimpleNamespace(monotonic=time.monotonic, sleep=held_sleep))
    held: list[threading.Thread] = []
    held_reports: list[Any] = []

    def on(step: str) -> None:
        if step == "copied":  # writes the catch-up rounds must replay: new items, an update, deletes
            lines = [line(n) for n in range(SEEDED, SEEDED + 20)]
            lines += [line(n, f"Item {n} was updated during the rebuild, {word(n)}.") for n in UPDATED]
            lines += [delete_line(n) for n in DELETED]
            assert old_writer.load_lines(lines).ok
            expected.update(
                {f"{CONTEXT}:r-{n:04d}": f"Item {n} is about {word(n)}." for n in range(SEEDED, SEEDED + 20)}
            )
            expected.update(
                {
                    f"{CONTEXT}:r-{n:04d}": f"Item {n} was updated during the rebuild, {word(n)}."
                    for n in UPDATED
                }
            )
            for n in DELETED:
                expected.pop(f"{CONTEXT}:r-{n:04d}")
        else:  # a load while the old index refuses writes: held and retried, never refused
            batch = range(SEEDED + 20, SEEDED + 30)
            thread = threading.Thread(
                target=lambda: held_reports.append(old_writer.load_lines([line(n) for n in batch]))
            )
            thread.start()
            held.append(thread)
            assert sleeps.wait(WAIT_SECONDS), "the load during the write block was never held back"
            expected.update({f"{CONTEXT}:r-{n:04d}": f"Item {n} is about {word(n)}." for n in batch})

    reader = Reader(new)
    reader.start()
    started = time.monotonic()
    rebuilt = bootstrap.Container(new)
    (switch,) = RebuildService(Hooked(rebuilt.generations, on), progress).rebuild(CONTEXT)
    elapsed = time.monotonic() - started
    for thread in held:
        thread.join(WAIT_SECONDS)
    reader.stop.set()
    reader.join(WAIT_SECONDS)

    assert reader.reads > 0 and reader.wrong == [], reader.wrong[:5]
    assert [report.ok for report in held_reports] == [True]
    assert (switch.source, switch.documents) == (first_index, SEEDED + 20 - len(DELETED))
    assert list(opensearch.indices.get_alias(name=alias)) == [switch.target]
    assert searchable(opensearch, new) == expected
    # The new index filters by the declared type: priority is a number now.
    status, ids = retrieve(
        new,
        {
            "mode": "lexical",
            "text": "Item",
            "top_k": 100,
            "filter": {"gte": {"key": "metadata.priority", "value": 4}},
        },
    )
    assert status == 200 and ids and all(int(i.rsplit("-", 1)[1]) % 5 == 4 for i in ids)
    bootstrap.Container(new).indices.ensure(CONTEXT)  # the declaration fits now
    progress(f"rebuild under load: {elapsed:.1f}s, {reader.reads} reads during it")

    # Rolled back with what was written since the switch: the first index is served again, open.
    after = [line(n) for n in range(SEEDED + 30, SEEDED + 35)]
    assert bootstrap.Container(new).loader.load_lines(after).ok
    expected.update(
        {f"{CONTEXT}:r-{n:04d}": f"Item {n} is about {word(n)}." for n in range(SEEDED + 30, SEEDED + 35)}
    )
    for name, value in old.to_env().items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    assert main(["rebuild", "--context", CONTEXT, "--rollback"]) == 0
    assert f"{alias}: {switch.target} -> {first_index}" in capsys.readouterr().out
    assert list(opensearch.indices.get_alias(name=alias)) == [first_index]
    assert searchable(opensearch, old) == expected
    assert main(["rebuild", "--context", CONTEXT, "--rollback"]) == 1  # nothing before the first index


def test_the_rebuild_function_embeds_again_on_request_and_rolls_back(
    space: Settings, opensearch: Any
) -> None:
    """The deployed form, run in-process: the same use case behind the function's event."""
    given = [1.0] + [0.0] * (space.embedding_dimension - 1)  # vectors the items brought, not the model's
    lines = [json.dumps(json.loads(line(n)) | {"embedding": given}) for n in range(5)]
    assert bootstrap.Container(space).loader.load_lines(lines).ok
    alias = IndexLayout.of(space).alias(CONTEXT)
    (first_index,) = opensearch.indices.get_alias(name=alias)

    def invoke(event: dict[str, Any]) -> dict[str, Any]:
        with bootstrap.use(bootstrap.Container(space)):
            result: dict[str, Any] = handler_module("rebuild").lambda_handler(
                event, LambdaContext(function_name="rebuild", timeout_ms=900_000)
            )
        return result

    result = invoke({"context_id": CONTEXT, "reembed": True})
    assert result["statusCode"] == 200, result
    (switch,) = result["body"]["switches"]
    assert (switch["source"], switch["documents"], switch["reembedded"]) == (first_index, 5, True)
    stored = opensearch.get(index=alias, id=f"{CONTEXT}:r-0003", routing=CONTEXT)["_source"]
    expected = bootstrap.Container(space).embedder.embed([stored["text"]])[0]
    assert stored["embedding"] != given
    assert stored["embedding"] == pytest.approx(expected, abs=1e-5)

    result = invoke({"context_id": CONTEXT, "rollback": True})
    assert result["statusCode"] == 200, result
    assert list(opensearch.indices.get_alias(name=alias)) == [first_index]
    assert (
        opensearch.get(index=alias, id=f"{CONTEXT}:r-0003", routing=CONTEXT)["_source"]["embedding"] == given
    )


def index_state(opensearch: Any, index: str) -> tuple[str, str | None]:
    """``(open | close, index.blocks.write)`` of ``index`` as the node reports them."""
    (row,) = opensearch.cat.indices(index=index, format="json", expand_wildcards="all")
    settings = opensearch.indices.get_settings(index=index, expand_wildcards="all")[index]["settings"]
    return row["status"], settings["index"].get("blocks", {}).get("write")


def test_a_rebuild_closes_the_old_index_and_the_next_lifts_a_stale_write_block(
    space: Settings, opensearch: Any
) -> None:
    loader = bootstrap.Container(space).loader
    assert loader.load_lines([line(n) for n in range(5)]).ok
    alias = IndexLayout.of(space).alias(CONTEXT)
    (first_index,) = opensearch.indices.get_alias(name=alias)

    (switch,) = bootstrap.Container(space).rebuilder(progress).rebuild(CONTEXT)
    assert switch.source == first_index
    assert index_state(opensearch, first_index)[0] == "close"  # kept for --rollback, serving nothing
    assert index_state(opensearch, switch.target) == ("open", None)

    # A rebuild killed between its write block and its switch leaves the block on the serving index.
    opensearch.indices.add_block(index=switch.target, block="write")
    assert index_state(opensearch, switch.target) == ("open", "true")
    seen: dict[str, Any] = {}

    def on(step: str) -> None:
        if step == "copied":  # the next rebuild is copying: the serving index must take writes again
            seen["state"] = index_state(opensearch, switch.target)
            seen["written"] = loader.load_lines([line(5)]).ok

    generations = bootstrap.Container(space).generations
    (following,) = RebuildService(Hooked(generations, on), progress).rebuild(CONTEXT)
    assert seen == {"state": ("open", "false"), "written": True}
    assert following.source == switch.target and following.documents == 6  # the write was replayed
    assert index_state(opensearch, switch.target)[0] == "close"
    assert sorted(searchable(opensearch, space)) == [f"{CONTEXT}:r-{n:04d}" for n in range(6)]


class IntervalAtCopy:
    """The real adapter, noting the new index's refresh interval after each copy."""

    def __init__(self, inner: OpenSearchGenerations, opensearch: Any) -> None:
        self._inner = inner
        self._opensearch = opensearch
        self.intervals: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def copy(self, source: str, target: str, since: Checkpoint | None, **options: Any) -> int:
        copied = self._inner.copy(source, target, since, **options)
        self.intervals.append(refresh_interval(self._opensearch, target))
        return copied


def refresh_interval(opensearch: Any, index: str) -> str:
    return str(opensearch.indices.get_settings(index=index)[index]["settings"]["index"]["refresh_interval"])


def test_the_new_index_copies_without_periodic_refresh_and_serves_with_the_declared_one(
    space: Settings, opensearch: Any
) -> None:
    settings = space.model_copy(update={"opensearch_refresh_interval": "2s"})
    assert bootstrap.Container(settings).loader.load_lines([line(n) for n in range(30)]).ok
    watched = IntervalAtCopy(bootstrap.Container(settings).generations, opensearch)
    (switch,) = RebuildService(watched, progress).rebuild(CONTEXT)
    assert watched.intervals and set(watched.intervals) == {"-1"}
    assert refresh_interval(opensearch, switch.target) == "2s"
    assert switch.documents == 30 and len(searchable(opensearch, settings)) == 30
