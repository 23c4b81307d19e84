"""The index layout: the one place index names are built, and names that can never collide or widen."""

from __future__ import annotations

import itertools

import pytest
from pydantic import ValidationError
from retrieval_core.adapters.opensearch.client import ContextNameError, IndexLayout
from retrieval_core.config import Settings

CONTEXTS = ("acme", "acme-v1", "acme_v1", "v1", "a", "acme-1", "0")


def test_silo_is_the_default_and_gives_each_context_its_own_alias_and_index() -> None:
    layout = IndexLayout.of(Settings(opensearch_alias="items"))
    assert layout.model == "silo"
    assert (layout.alias("acme"), layout.index("acme")) == ("items.acme", "items.acme.v2")
    assert layout.alias_pattern == layout.index_pattern == "items.*"


def test_pool_keeps_the_shared_alias_and_index_of_earlier_releases() -> None:
    layout = IndexLayout.of(Settings(opensearch_alias="items", isolation_model="pool"))
    assert {layout.alias(c) for c in CONTEXTS} == {"items"}
    assert layout.index("acme") == "items-v2"
    assert (layout.alias_pattern, layout.index_pattern) == ("items", "items-v*")


def test_no_two_silo_names_collide_even_for_contexts_that_look_like_versions() -> None:
    layout = IndexLayout("items")
    names = [name for c in CONTEXTS for name in (layout.alias(c), layout.index(c))]
    assert len(set(names)) == len(names)
    pool = IndexLayout("items", "pool")
    for a, b in itertools.product(CONTEXTS, repeat=2):
        assert layout.alias(a) not in (pool.alias(b), pool.index(b))


@pytest.mark.parametrize("bad", ["", "*", "acme*", "acme,globex", "../x", "Acme", "a.b", "_all", "-x"])
def test_a_context_that_could_widen_or_escape_an_index_name_is_refused(bad: str) -> None:
    for layout in (IndexLayout("items"), IndexLayout("items", "pool")):
        with pytest.raises(ContextNameError):
            layout.alias(bad)


@pytest.mark.parametrize("prefix", ["items.acme", "Items", "items*", "", "-items"])
def test_the_prefix_is_validated_so_it_cannot_alias_a_context(prefix: str) -> None:
    with pytest.raises(ValidationError):
        Settings(opensearch_alias=prefix)


def test_the_isolation_model_comes_from_the_environment() -> None:
    assert Settings.from_env({"RETRIEVAL_ISOLATION_MODEL": "pool"}).isolation_model == "pool"
    with pytest.raises(ValidationError):
        Settings.from_env({"RETRIEVAL_ISOLATION_MODEL": "bridge"})
