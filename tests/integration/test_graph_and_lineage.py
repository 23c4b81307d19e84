"""graph_path and why_explain through their handlers on the sample corpus."""

from __future__ import annotations

from typing import Any

from corpus_stack import graph_path, why
from retrieval_core.config import Settings

from dev.sample import known


def path_query(start: str, end: str, **extra: Any) -> dict[str, Any]:
    return {"from": start, "to": end} | extra


def test_the_known_four_hop_path_is_found_and_is_the_shortest(corpus_settings: Settings) -> None:
    path = known.FOUR_HOP_PATH
    status, body = graph_path(path.context, **path_query(path.start, path.end, max_depth=5))
    assert status == 200 and body["found"] and not body["truncated"]
    assert body["paths"][0]["entity_ids"] == list(path.entities)
    edges = body["paths"][0]["edges"]
    assert len(edges) == 4
    for edge, (a, b) in zip(edges, zip(path.entities, path.entities[1:], strict=False), strict=True):
        assert (edge["from"], edge["to"], edge["status"]) == (a, b, "ACTIVE")
        assert edge["text"] and edge["proposition_id"].startswith(f"{path.context}:")
    _, too_short = graph_path(path.context, **path_query(path.start, path.end, max_depth=3))
    assert too_short["found"] is False
    _, widened = graph_path(
        path.context,
        **path_query(path.start, path.end, max_depth=5, statuses="ACTIVE,SUPERSEDED,CONTRADICTED,STALE"),
    )
    assert len(widened["paths"][0]["edges"]) < 4  # the inactive shortcut only counts when asked for
    assert path.inactive_shortcut in {e["proposition_id"] for e in widened["paths"][0]["edges"]}


def test_max_paths_returns_distinct_paths_of_equal_length(corpus_settings: Settings) -> None:
    equal = known.EQUAL_PATHS
    _, body = graph_path(equal.context, **path_query(equal.start, equal.end, max_paths=5))
    found = {tuple(p["entity_ids"]) for p in body["paths"]}
    assert found == set(equal.paths)
    assert len({len(p["edges"]) for p in body["paths"]}) == 1
    _, one = graph_path(equal.context, **path_query(equal.start, equal.end))
    assert len(one["paths"]) == 1


def test_depth_and_path_clamps_hold(corpus_settings: Settings) -> None:
    path = known.FOUR_HOP_PATH
    _, body = graph_path(path.context, **path_query(path.start, path.end, max_depth=99, max_paths=99))
    assert body["applied"] == {"max_depth": 5, "max_paths": 5}
    _, body = graph_path(path.context, **path_query(path.start, path.end, max_depth=0, max_paths=0))
    assert body["applied"] == {"max_depth": 1, "max_paths": 1} and body["found"] is False


def test_a_cycle_does_not_loop(corpus_settings: Settings) -> None:
    cycle = known.CYCLE
    status, body = graph_path(cycle.context, **path_query(cycle.entities[0], cycle.entities[-1], max_depth=5))
    assert status == 200 and body["found"]
    assert len(body["paths"][0]["edges"]) == 1  # the closing edge, not the long way round
    _, self_path = graph_path(cycle.context, **path_query(cycle.entities[0], cycle.entities[0]))
    assert self_path["found"] and self_path["paths"][0] == {"entity_ids": [cycle.entities[0]], "edges": []}


def test_the_visited_node_cap_reports_truncated(corpus_settings: Settings, monkeypatch: Any) -> None:
    from retrieval_core.bootstrap import container
    from retrieval_core.context import CallerContext
    from retrieval_core.graph.models import GraphPathRequest
    from retrieval_core.graph.service import GraphPathService

    path = known.FOUR_HOP_PATH
    request = GraphPathRequest.model_validate(path_query(path.start, path.end, max_depth=5))
    service = GraphPathService(container().edges, container().store, node_cap=3)
    capped = service.find(CallerContext(path.context), request)
    assert capped.truncated is True and capped.found is False


def test_a_foreign_entity_and_a_missing_entity_answer_identically(corpus_settings: Settings) -> None:
    foreign = known.FACTS["globex"].four_hop_path
    a = graph_path("acme", **path_query(known.FOUR_HOP_PATH.start, foreign.end))
    b = graph_path("acme", **path_query(known.FOUR_HOP_PATH.start, "acme:org/does-not-exist"))
    assert a == b and a[1]["found"] is False


def test_graph_path_backend_calls_grow_with_levels_not_frontier(corpus_settings: Settings) -> None:
    path = known.FOUR_HOP_PATH
    _, body = graph_path(path.context, **path_query(path.start, path.end, max_depth=5))
    explored = body["explored"]
    assert explored["nodes_visited"] > explored["hops"]
    # one DynamoDB round per frontier level on each side, plus one read for the edge texts
    assert (
        explored["backend_calls"] <= 2 * explored["hops"] + 2
        or explored["backend_calls"] < explored["nodes_visited"]
    )


def test_a_three_deep_chain_is_returned_whole(corpus_settings: Settings) -> None:
    chain = known.LINEAGE_CHAIN
    status, body = why(chain.context, chain.leaf, depth=5)
    assert status == 200 and body["item"]["id"] == chain.leaf
    by_level: dict[int, set[str]] = {}
    for node in body["derived_from"]["nodes"]:
        by_level.setdefault(node["level"], set()).add(node["id"])
    expected = {level: set(ids) for level, ids in enumerate(chain.levels, start=1) if level <= 5}
    assert by_level == expected and len(expected) >= 3
    ids = [n["id"] for n in body["derived_from"]["nodes"]]
    assert len(ids) == len(set(ids))  # a DAG: each node once
    _, shallow = why(chain.context, chain.leaf, depth=1)
    assert {n["id"] for n in shallow["derived_from"]["nodes"]} == set(chain.levels[0])


def test_why_explain_calls_grow_with_depth_not_nodes(corpus_settings: Settings) -> None:
    chain = known.LINEAGE_CHAIN
    calls = []
    for depth in (1, 2, 3):
        _, body = why(chain.context, chain.leaf, depth=depth)
        calls.append(body["explored"]["backend_calls"])
        nodes = len(body["derived_from"]["nodes"])
        assert body["explored"]["backend_calls"] <= depth + 2 < nodes + depth + 2
    assert calls == sorted(calls)


def test_a_superseded_item_names_its_successor(corpus_settings: Settings) -> None:
    case = known.SUPERSEDED
    _, old = why(case.context, case.old)
    assert old["item"]["status"] == "SUPERSEDED"
    assert [v["id"] for v in old["superseded_by"]] == [case.new]
    _, new = why(case.context, case.new)
    assert [v["id"] for v in new["supersedes"]] == [case.old]
    contradicted = known.CONTRADICTED
    _, body = why(contradicted.context, contradicted.contradicted)
    assert contradicted.by in [v["id"] for v in body["contradicts"]]


def test_foreign_and_missing_ids_give_byte_identical_404s(corpus_settings: Settings) -> None:
    from corpus_stack import call
    from retrieval_dev.cli.events import why_event

    def raw(item_id: str) -> str:
        event = why_event("acme", item_id)
        from retrieval_dev.cli.lambda_runtime import invoke

        response = invoke("why_explain", event)
        assert response["statusCode"] == 404
        return response["body"]

    foreign = known.FACTS["globex"].lineage_chain.leaf
    assert raw(foreign) == raw("acme:nothing-here") == raw("globex:nothing-here")
    assert call is not None


def test_an_injected_cross_context_lineage_row_is_not_revealed(
    corpus_settings: Settings, dynamodb: Any
) -> None:
    from retrieval_core.adapters import dynamodb_keys as keys

    chain = known.LINEAGE_CHAIN
    foreign = known.FACTS["globex"].lineage_chain.leaf
    _, before = why(chain.context, chain.leaf, depth=5)
    rows = [
        {
            "pk": {"S": keys.partition(chain.context, chain.leaf)},
            "sk": {"S": keys.reverse_link(keys.DERIVED_TO, foreign)},
            "context_id": {"S": chain.context},
            "other_id": {"S": foreign},
        },
        {
            "pk": {"S": keys.partition(chain.context, chain.leaf)},
            "sk": {"S": keys.reverse_link(keys.SUPERSEDED_BY, foreign)},
            "context_id": {"S": chain.context},
            "other_id": {"S": foreign},
        },
    ]
    for row in rows:
        dynamodb.put_item(TableName=corpus_settings.lineage_table, Item=row)
    try:
        _, after = why(chain.context, chain.leaf, depth=5)
    finally:
        for row in rows:
            dynamodb.delete_item(
                TableName=corpus_settings.lineage_table, Key={"pk": row["pk"], "sk": row["sk"]}
            )
    assert "globex" not in str(after)
    strip = lambda body: {k: v for k, v in body.items() if k != "explored"}  # noqa: E731
    assert strip(after) == strip(before)
