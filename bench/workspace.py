"""A private copy of the corpus in the running stack: fresh tables, a fresh alias, and the environment
the handlers read pointing at them (the same recipe as tests/integration/corpus_stack.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_core.models.item import Item
from retrieval_core.ports import ItemKey
from retrieval_dev.cli.environment import use_local_stack_env

from dev import moto_server, opensearch_node
from dev.stack_env import DEFAULT_DYNAMODB_ENDPOINT, DEFAULT_OPENSEARCH_ENDPOINT, ENV_FILE
from dev.tables import scratch_space

from .corpus import Corpus
from .progress import Counter, say

LOAD_BATCH = 16_384
"""Lines per load call: each call ends with a refresh, so a call's documents become one segment (about
50 MiB of documents and vectors) rather than a segment a second."""
LOAD_REFRESH_INTERVAL = "-1"
"""The workspace index's declared ``refresh_interval`` (a deployment setting,
``RETRIEVAL_OPENSEARCH_REFRESH_INTERVAL``): every load call refreshes at its end, so the sections see
everything, and without a periodic refresh the node is spared merging hundreds of small segments (each
merge rebuilding their k-NN graphs), OpenSearch's own advice for a bulk load."""


@contextmanager
def environment(changes: dict[str, str]) -> Iterator[None]:
    """``changes`` in the process's environment for the block, every name as it was afterwards."""
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class NoRows:
    """A ``LineageWriter`` that writes nothing: the loader's documents alone (``load(rows=False)``)."""

    def write(self, items: Sequence[Item]) -> set[str]:
        return set()

    def discard(self, items: Sequence[Item]) -> None:
        return None

    def delete_links(self, keys: Sequence[ItemKey]) -> set[str]:
        return set()

    def delete_cards(self, keys: Sequence[ItemKey]) -> None:
        return None


class StackDownError(RuntimeError):
    """The local stack does not answer; ``make up`` (or ``make bench``) starts it."""


def stack_settings(dynamodb_endpoint: str | None = None) -> Settings:
    """The stack's endpoints and fake credentials (environment first, then ``.stack/env``), with
    ``dynamodb_endpoint`` instead of the stack's when given."""
    use_local_stack_env(ENV_FILE)
    os.environ.setdefault("RETRIEVAL_OPENSEARCH_ENDPOINT", DEFAULT_OPENSEARCH_ENDPOINT)
    os.environ.setdefault("RETRIEVAL_DYNAMODB_ENDPOINT", DEFAULT_DYNAMODB_ENDPOINT)
    settings = Settings.from_env()
    if dynamodb_endpoint:
        settings = settings.model_copy(update={"dynamodb_endpoint": dynamodb_endpoint})
    for name, url, healthy in (
        ("OpenSearch", settings.opensearch_endpoint, opensearch_node.is_healthy),
        ("DynamoDB (moto)", settings.dynamodb_endpoint or "", moto_server.is_healthy),
    ):
        if not healthy(url):
            raise StackDownError(f"{name} is not reachable at {url}: start the stack with `make up`")
    return settings


@contextmanager
def workspace(base: Settings, scale_name: str, *, keep: bool = False) -> Iterator[Settings]:
    """Fresh tables and alias for this run, this process's handlers served from them; removed afterwards
    unless ``keep``."""
    declared = base.model_copy(update={"opensearch_refresh_interval": LOAD_REFRESH_INTERVAL})
    with (
        scratch_space(declared, f"bench-{scale_name}", keep=keep) as settings,
        bootstrap.use(bootstrap.Container(settings)),
    ):
        say(f"workspace: alias {settings.opensearch_alias}")
        yield settings
        if keep:
            say(f"kept the corpus: alias {settings.opensearch_alias} and its tables")


def load(settings: Settings, corpus: Corpus, *, rows: bool = True) -> float:
    """Load the corpus through the real loader in batches; returns the seconds the loader took (the
    bench rendering each batch's JSON lines beforehand is not counted: at a million lines of 384 floats
    it is minutes of the bench's own work). Without ``rows`` the loader writes the documents and no
    DynamoDB rows (``NoRows``): for the sections that read the index alone."""
    import time

    from retrieval_core.bootstrap import Container

    container = Container(settings) if rows else Container(settings, overrides={"lineage_writer": NoRows()})
    loader = container.loader
    total = len(corpus.items)
    counter = Counter(total, "loading items")
    loading = 0.0
    for start in range(0, total, LOAD_BATCH):
        lines = list(corpus.lines(start, min(start + LOAD_BATCH, total)))
        started = time.monotonic()
        report = loader.load_lines(lines, progress=counter)
        loading += time.monotonic() - started
        if not report.ok:
            reason = f" ({report.stopped})" if report.stopped else ""
            raise RuntimeError(f"the loader rejected part of the bench corpus: {report.summary()}{reason}")
    return loading
