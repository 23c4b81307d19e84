"""SnapStart's runtime hooks on the retrieve function: registered where the runtime's registry exists,
the before-snapshot hook builds what a first request would (reading nothing, buffering no metric), and
the after-restore hook gives each restored copy its own random state."""

from __future__ import annotations

import random
import sys

import pytest
import snapshot_restore_py
from fake_functions import REPO, fake_functions
from fakes_store import InMemoryStore
from retrieval_core.entrypoints import snapstart
from retrieval_dev.cli.lambda_runtime import handler_module

HOOKED = "retrieve"


def registered() -> tuple[list[object], list[object]]:
    before = [entry[0] for entry in snapshot_restore_py.get_before_snapshot()]
    after = [entry[0] for entry in snapshot_restore_py.get_after_restore()]
    return before, after


def test_the_retrieve_function_registers_both_hooks() -> None:
    app = handler_module(HOOKED, REPO / "functions")
    before, after = registered()
    assert app.SNAPSTART_HOOKS is True
    assert app._before_snapshot in before
    assert any(getattr(hook, "__qualname__", "").startswith("refreshed.") for hook in after)


def test_without_the_runtime_registry_nothing_is_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", None)  # import fails, as off Lambda
    assert snapstart.register(lambda: None, lambda: None) is False


def test_the_snapshot_hook_builds_the_services_and_reads_nothing() -> None:
    store = InMemoryStore([])
    with fake_functions(store=store) as functions:
        app = handler_module(HOOKED, REPO / "functions")
        assert "retrieve" not in functions.container.__dict__
        app._before_snapshot()
        assert "retrieve" in functions.container.__dict__  # built before the snapshot
        assert store.calls == []
        assert app.tools.metrics.metric_set == {}  # nothing counted that a first request would flush
        assert app.app.context == {}


def test_each_restored_copy_draws_its_own_random_numbers() -> None:
    refresh = snapstart.refreshed(handler_module(HOOKED, REPO / "functions").tools.logger)
    snapshot = random.getstate()
    draws = []
    for _ in range(2):  # two copies restored from one snapshot
        random.setstate(snapshot)
        refresh()
        draws.append(random.random())
    random.setstate(snapshot)
    assert draws[0] != draws[1]
