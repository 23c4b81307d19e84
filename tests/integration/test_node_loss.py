"""A data node of a three-node cluster dies (SIGKILL) while retrieves and a load run against the cluster.

What must hold, as on a production domain losing an instance: every retrieve answers 200 or a 503 in
time (never a hang, never another 5xx); the load loses no write (a chunk that failed while the cluster
re-elected and promoted replicas is re-run, as an operator re-runs a load: loading is idempotent), so
the ids the loader reports written are exactly the ids searchable afterwards; and the cluster is green
again on the two surviving nodes without anyone touching it (the lost replicas are rebuilt there).

The reduced form runs in ``make test`` (one context, a small load); ``RETRIEVAL_CLUSTER_FULL=1`` runs
the full form: a larger load, and the killed node restarted and rejoining a green three-node cluster.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from local_cluster import LocalCluster, running_cluster
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import LambdaContext, handler_module
from test_loader import proposition

from dev.tables import TABLE_SETTINGS, delete_tables, scratch_space

FULL = os.environ.get("RETRIEVAL_CLUSTER_FULL") == "1"
CONTEXT = "acme"
CHUNKS = 40 if FULL else 6
CHUNK_ITEMS = 50 if FULL else 20
KILL_AFTER_CHUNKS = CHUNKS // 3
FUNCTION_TIMEOUT_MS = LambdaContext(function_name="retrieve").timeout_ms
ANSWER_WITHIN_SECONDS = 0.8 * FUNCTION_TIMEOUT_MS / 1000
RELOAD_WITHIN_SECONDS = 90
# The loader has no request deadline (it is not behind the API); a write waiting for a replica's
# promotion may take longer than a retrieve may.
LOADER_TIMEOUT_SECONDS = 30.0
QUERIES = ("who links thing", "entity x2 and x3")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    started = time.monotonic()
    with running_cluster(tmp_path_factory.mktemp("cluster")) as local:
        print(f"\n3-node cluster formed in {time.monotonic() - started:.1f}s")
        yield local


@contextmanager
def dropped_tables(settings: Settings) -> Iterator[None]:
    try:
        yield
    finally:
        assert settings.dynamodb_endpoint is not None
        delete_tables(settings.dynamodb_endpoint, [getattr(settings, f) for f in TABLE_SETTINGS.values()])


def chunk_lines(chunk: int) -> list[str]:
    return [
        proposition(
            f"{CONTEXT}:n-{chunk:03d}-{i:03d}", [f"{CONTEXT}:e/x{i % 7}", f"{CONTEXT}:e/x{(i + 1) % 7}"]
        )
        for i in range(CHUNK_ITEMS)
    ]


def item_ids(lines: list[str]) -> set[str]:
    import json

    return {json.loads(line)["id"] for line in lines}


class Load(threading.Thread):
    """Loads chunk after chunk; a chunk that did not fully load is loaded again (bounded in time)."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(daemon=True)
        self.settings = settings
        self.written: set[str] = set()
        self.chunks_done = 0
        self.retries = 0
        self.failure: str | None = None

    def run(self) -> None:
        loader = bootstrap.Container(self.settings).loader
        for chunk in range(1, CHUNKS + 1):
            lines = chunk_lines(chunk)
            deadline = time.monotonic() + RELOAD_WITHIN_SECONDS
            while not (report := loader.load_lines(lines)).ok:
                self.retries += 1
                if time.monotonic() > deadline:
                    self.failure = f"chunk {chunk} never loaded: {report.summary()} ({report.stopped})"
                    return
                threading.Event().wait(0.2)  # back off between re-runs, as an operator would
            self.written |= item_ids(lines)
            self.chunks_done = chunk


def retrieve(settings: Settings, mode: str, text: str) -> tuple[int, float]:
    event = api_event("POST", "/v1/retrieve", CONTEXT, body={"mode": mode, "text": text, "top_k": 5})
    handler = handler_module("retrieve").lambda_handler
    with bootstrap.use(bootstrap.Container(settings)):
        started = time.monotonic()
        result = handler(event, LambdaContext(function_name="retrieve"))
        return int(result["statusCode"]), time.monotonic() - started


def primary_node(cluster: LocalCluster, index: str) -> int:
    shards = cluster.request(0, f"/_cat/shards/{index}?format=json&h=prirep,node,state")
    return cluster.node_of(next(s["node"] for s in shards if s["prirep"] == "p"))


def searchable_ids(settings: Settings) -> set[str]:
    from retrieval_core.adapters.opensearch.client import IndexLayout, build_client

    client = build_client(settings)
    alias = IndexLayout.of(settings).alias(CONTEXT)
    client.indices.refresh(index=alias)
    response = client.search(index=alias, body={"query": {"match_all": {}}, "_source": False, "size": 10_000})
    client.close()
    return {hit["_id"] for hit in response["hits"]["hits"]}


def test_a_node_killed_during_retrieves_and_a_load_loses_no_write_and_heals(
    cluster: LocalCluster, stack_settings: Settings
) -> None:
    started = time.monotonic()
    base = stack_settings.model_copy(
        update={"opensearch_endpoint": cluster.endpoint(0), "opensearch_replicas": 1}
    )
    # The indices die with the test's cluster; the tables (on the shared moto) are removed here, since
    # the scratch space's own clean-up would reach for node 1, which may be the one killed.
    with scratch_space(base, "n", keep=True) as seeded, dropped_tables(seeded):
        first = chunk_lines(0)
        loading = {"opensearch_timeout_seconds": LOADER_TIMEOUT_SECONDS}
        assert bootstrap.Container(seeded.model_copy(update=loading)).loader.load_lines(first).ok
        cluster.wait_for(0, "green", 3)
        from retrieval_core.adapters.opensearch.client import IndexLayout

        # The victim holds the primary: its writes must fail over to the promoted replica. Clients go
        # through another node (a domain's endpoint balances over the nodes that are alive).
        victim = primary_node(cluster, IndexLayout.of(seeded).alias(CONTEXT))
        entry = next(node for node in range(3) if node != victim)
        settings = seeded.model_copy(update={"opensearch_endpoint": cluster.endpoint(entry)})
        load = Load(settings.model_copy(update=loading))
        load.start()
        answers: list[tuple[bool, int, float]] = []
        killed = False
        while load.is_alive() or len(answers) < 2 * len(QUERIES):
            for mode in ("lexical", "hybrid"):
                for text in QUERIES:
                    answers.append((killed, *retrieve(settings, mode, text)))
            if not killed and load.chunks_done >= KILL_AFTER_CHUNKS:
                cluster.kill(victim)
                killed = True
        load.join(timeout=RELOAD_WITHIN_SECONDS)
        assert killed and load.failure is None, load.failure
        health = cluster.wait_for(entry, "green", 2, within=90)

        statuses = {status for _, status, _ in answers}
        assert statuses <= {200, 503}, answers
        slowest = max(elapsed for _, _, elapsed in answers)
        assert slowest < ANSWER_WITHIN_SECONDS, slowest
        assert [a for a in answers if a[0] and a[1] == 200], "no retrieve answered after the node died"
        written = item_ids(first) | load.written
        assert len(written) == (CHUNKS + 1) * CHUNK_ITEMS
        assert searchable_ids(settings) == written
        # Every shard has its replica again, on the two nodes left.
        assert health["number_of_nodes"] == 2 and health["unassigned_shards"] == 0

        if FULL:
            restart_and_rejoin(cluster, victim, entry)
            assert searchable_ids(settings) == written
    print(
        f"\nnode loss: {len(answers)} retrieves ({sorted(statuses)}), slowest {slowest:.2f}s, "
        f"{len(written)} items, {load.retries} chunk re-runs, {time.monotonic() - started:.1f}s"
    )


def restart_and_rejoin(cluster: LocalCluster, victim: int, entry: int) -> None:
    """The killed node started again on its data directory: it rejoins, the cluster is green on 3."""
    cluster.start(victim)
    cluster.wait_for(entry, "green", 3, within=180)
