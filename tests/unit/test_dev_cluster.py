"""The local multi-node cluster's plan: ports that cannot collide with single nodes or other stacks,
discovery settings only for a real cluster, and one stack service per node."""

from __future__ import annotations

from pathlib import Path

import pytest

from dev import opensearch_node, stack


def test_a_single_node_keeps_single_node_discovery() -> None:
    assert opensearch_node.Cluster(9200, 1).node_settings(0) == []
    command = opensearch_node.command(9200, Path("/tmp/h"))
    assert not [arg for arg in command if arg.startswith("discovery.")]


def test_three_nodes_seed_each_other_on_fixed_loopback_transport_ports_outside_the_single_node_range() -> (
    None
):
    cluster = opensearch_node.Cluster(9261, 3)
    settings = [dict(arg.split("=", 1) for arg in cluster.node_settings(node)) for node in range(3)]
    assert [s["transport.port"] for s in settings] == ["10261", "10262", "10263"]
    assert all(not 9300 <= int(s["transport.port"]) <= 9400 for s in settings)
    assert {s["discovery.seed_hosts"] for s in settings} == {
        "127.0.0.1:10261,127.0.0.1:10262,127.0.0.1:10263"
    }
    assert {s["cluster.initial_cluster_manager_nodes"] for s in settings} == {"node-1,node-2,node-3"}
    assert {s["cluster.name"] for s in settings} == {"retrieval-dev-9261"}
    assert len({s["node.attr.zone"] for s in settings}) == 3
    command = opensearch_node.command(9262, Path("/tmp/h"), cluster, 1, heap="256m")
    assert "-Xmx256m" in command and "http.port=9262" in command and "node.name=node-2" in command


def test_the_stack_runs_one_service_per_node_on_consecutive_ports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STACK_OPENSEARCH_PORT", "9261")
    nodes = [service for service in stack.services(3) if service.name.startswith("opensearch")]
    assert [s.name for s in nodes] == ["opensearch", "opensearch-2", "opensearch-3"]
    assert [s.requested_port() for s in nodes] == [9261, 9262, 9263]
    assert "discovery.seed_hosts=127.0.0.1:10261,127.0.0.1:10262,127.0.0.1:10263" in nodes[2].command(9263)
    monkeypatch.setenv("STACK_OPENSEARCH_NODES", "9")
    with pytest.raises(stack.StackError, match="STACK_OPENSEARCH_NODES"):
        stack.opensearch_nodes()


def test_every_node_enforces_search_backpressure_and_cancels_abandoned_searches() -> None:
    for command in (
        opensearch_node.command(9200, Path("/tmp/h")),
        opensearch_node.command(9262, Path("/tmp/h"), opensearch_node.Cluster(9261, 3), 1),
    ):
        settings = dict(arg.split("=", 1) for arg in command if "=" in arg and not arg.startswith("-"))
        assert settings["search_backpressure.mode"] == "enforced"
        assert settings["search.cancel_after_time_interval"] == "10s"
