"""``make bench`` at a tiny scale: it runs against the real stack and writes well-formed output.

Nothing here is timed: the assertions are about shape and about costs that are exact (calls per request),
never about how fast anything was.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from retrieval_core.config import Settings

from bench.__main__ import SECTIONS, run
from bench.corpus import generate, mention_mix, pairs_at_distance
from bench.scales import SCALES
from tests.processes import finished

TINY = SCALES["tiny"]
BENCH_INDICES = "bench-tiny-*"


def test_corpus_is_reproducible_and_has_the_exact_edge_count() -> None:
    first, second = generate(TINY), generate(TINY)
    assert first.items == second.items
    assert first.edge_rows == TINY.edges
    assert len(first.items) == TINY.items
    assert all(len(p) == 2 for p in pairs_at_distance(first, 1, 3))


def test_mention_mix_refuses_an_unreachable_edge_count() -> None:
    with pytest.raises(ValueError, match="cannot carry"):
        mention_mix(10, 1_000)


@pytest.fixture(scope="module")
def indices_before(opensearch: Any) -> set[str]:
    """The ``bench-tiny-*`` indices there before the run (a developer's ``--keep-data`` run leaves its
    own): the run must remove the ones it made, not theirs."""
    return _bench_indices(opensearch)


@pytest.fixture(scope="module")
def tiny_report(
    stack_settings: Settings, tmp_path_factory: pytest.TempPathFactory, indices_before: set[str]
) -> tuple[dict, str, Path]:
    out = tmp_path_factory.mktemp("bench")
    capture = out / "stdout.md"
    with capture.open("w") as stream, contextlib.redirect_stdout(stream):
        report = run("tiny", out, out / "no-sam-build", SECTIONS, keep=False)
    return report, capture.read_text(), out


def test_writes_json_with_machine_facts(tiny_report: tuple[dict, str, Path], opensearch: Any) -> None:
    report, _, out = tiny_report
    saved = json.loads((out / "latest-tiny.json").read_text())
    assert saved["scale"] == "tiny"
    machine = saved["machine"]
    assert machine["cores"] >= 1
    assert machine["python"].count(".") == 2
    assert machine["opensearch"] == opensearch.info()["version"]["number"]
    assert saved["corpus"]["items"] == TINY.items and saved["corpus"]["edges"] == TINY.edges
    assert saved["targets"] == report["targets"]


def test_stdout_carries_the_markdown_tables(tiny_report: tuple[dict, str, Path]) -> None:
    _, stdout, out = tiny_report
    assert stdout.startswith("## Benchmark: scale `tiny`")
    for row in ("| lexical |", "| vector |", "| hybrid |", "### why_explain by depth", "### Targets"):
        assert row in stdout
    assert '"_aws"' not in stdout, "handler metrics leaked into the report"
    assert (out / "latest-tiny.md").read_text().strip() == stdout.strip()


def test_retrieve_costs_one_opensearch_call_and_no_dynamodb_call(tiny_report: tuple[dict, str, Path]) -> None:
    retrieve = tiny_report[0]["results"]["retrieve"]
    for mode in ("lexical", "vector", "hybrid"):
        assert retrieve[mode]["opensearch_calls"] == 1
        # A first page writes nothing, even with more results than top_k: its token names what it showed.
        assert retrieve[mode]["dynamodb_calls"] == 0
        assert retrieve[mode]["handler"]["samples"] == TINY.queries * TINY.rounds
        assert retrieve[mode]["queries_with_hits"] > 0
        assert retrieve[mode]["overhead_p50"] > 0
    assert retrieve["hybrid_vs_naive"]["naive"]["samples"] == TINY.queries * TINY.rounds
    # auto reads the question in hybrid's _msearch and spends at most one more on what it names.
    assert retrieve["auto"]["opensearch_calls"] <= retrieve["hybrid"]["opensearch_calls"] + 1
    assert retrieve["auto"]["dynamodb_calls"] == 0


def test_floor_measures_every_step_towards_the_function(tiny_report: tuple[dict, str, Path]) -> None:
    report, stdout, _ = tiny_report
    floor = report["results"]["floor"]
    assert set(floor) == {"lexical", "vector"}
    for sides in floor.values():
        assert list(sides) == ["raw", "search", "+ instruments", "+ API frame", "+ response hits", "retrieve"]
        assert sides["raw"]["over_raw_p50"] == 1.0
        assert all(side["p50_ms"] > 0 for side in sides.values())
    assert "### Where the overhead goes" in stdout and "| + API frame |" in stdout


def test_paging_writes_at_the_second_page_only(tiny_report: tuple[dict, str, Path]) -> None:
    paging = tiny_report[0]["results"]["paging"]
    for mode in ("lexical", "vector", "hybrid"):
        first, second, third = (paging[mode][page] for page in ("1", "2", "3"))
        assert (first["opensearch_calls"], first["dynamodb_calls"]) == (1, 0)
        assert (second["opensearch_calls"], second["dynamodb_calls"]) == (1, 1)  # the ranking's put
        assert (third["opensearch_calls"], third["dynamodb_calls"]) == (1, 1)  # its get, the ids read


def test_isolation_compares_per_context_indices_with_the_shared_one(
    tiny_report: tuple[dict, str, Path], indices_before: set[str], opensearch: Any
) -> None:
    report, stdout, _ = tiny_report
    assert report["corpus"]["isolation_model"] == "silo"
    found = report["results"]["isolation"]
    assert found["items"] == TINY.items and found["indices"] == {"silo": found["tenants"], "pool": 1}
    for mode in ("lexical", "vector", "hybrid"):
        for model in ("silo", "pool"):
            assert found[mode][model]["samples"] == TINY.queries * TINY.rounds
        assert found[mode]["silo_over_pool_p50"] > 0
    assert "### Isolation: per-context indices (silo) vs one shared index (pool)" in stdout
    assert _bench_indices(opensearch) <= indices_before  # the run's indices and copies are gone


def _bench_indices(opensearch: Any) -> set[str]:
    return set(opensearch.indices.get(index=BENCH_INDICES, allow_no_indices=True))


def test_lineage_rounds_grow_with_depth_only(tiny_report: tuple[dict, str, Path]) -> None:
    why = tiny_report[0]["results"]["graph"]["why_explain"]
    for depth in range(1, 6):
        assert why[depth]["answered_share"] == 1
        assert why[depth]["dynamodb_rounds_max"] == depth + 1
        assert why[depth]["opensearch_calls_max"] == 1
    paths = tiny_report[0]["results"]["graph"]["graph_path"]
    assert paths[1]["answered_share"] == 1
    assert paths[1]["dynamodb_rounds_max"] == 1


def test_policy_writes_only_with_a_session(tiny_report: tuple[dict, str, Path]) -> None:
    policy = tiny_report[0]["results"]["policy"]
    assert policy["without_session"]["dynamodb_calls"] == 0
    assert policy["with_session"]["dynamodb_operations"].get("PutItem", 0) >= 1
    for cost in policy["by_session_size"].values():
        assert cost["write_units"] >= 1 and cost["read_units"] > 0
        # One conditional put of the log entry decides order, budget and novelty (docs/STORAGE.md).
        assert cost["operations"]["PutItem"] == 1 and "UpdateItem" not in cost["operations"]
        assert cost["rounds"] <= 2
        assert cost["new_container_operations"].get("PutItem") == 1 and cost["new_container_rounds"] <= 2


def test_the_ingest_handler_makes_the_loaders_calls_plus_its_record_and_its_own_s3_calls(
    tiny_report: tuple[dict, str, Path],
) -> None:
    ingest = tiny_report[0]["results"]["ingest"]
    load, handler, delete = ingest["load"], ingest["ingest"], ingest["delete"]
    assert ingest["items"] == TINY.items and handler["parts"] == 1
    # ... and the object's record (ingest/lines_ledger.py): pending before its lines, its fate after.
    record = {"PutItem": 2}
    operations = load["dynamodb_operations"]
    assert handler["dynamodb_operations"] == {
        k: operations.get(k, 0) + record.get(k, 0) for k in operations | record
    }
    # ... plus one read of the index generation the record names, for the object.
    assert handler["opensearch_per_1000"] == load["opensearch_per_1000"] + 1000 / TINY.items
    assert handler["s3_per_1000"] > 0 and load["s3_per_1000"] == 0
    # A delete reads each item's partition once (one Query per item), then deletes in batches.
    assert delete["dynamodb_operations"]["Query"] == TINY.items
    assert "### Ingest" in tiny_report[1]


def test_the_embedder_section_embeds_every_text_at_every_bound(tiny_report: tuple[dict, str, Path]) -> None:
    measured = tiny_report[0]["results"]["embedder"]
    assert [run["bound"] for run in measured["runs"]] == [1, 2, 4, 8, 16]
    assert all(run["calls"] == measured["texts"] and run["texts_per_s"] > 0 for run in measured["runs"])
    throttled = measured["over_quota_at_16"]  # every text embedded, each throttled answer retried
    assert throttled["calls"] == measured["texts"] + throttled["throttled"]
    loader = measured["loader"]  # the loader on texts without vectors, at the stand-in's speed
    assert loader["items"] == 1_024 and loader["items_per_s"] > 0 and loader["embedder_alone_texts_per_s"] > 0
    assert "### The deployed embedder's calls" in tiny_report[1]


def test_the_bulk_section_sets_the_loader_beside_parallel_bulk(tiny_report: tuple[dict, str, Path]) -> None:
    measured = tiny_report[0]["results"]["bulk"]
    assert measured["items"] == TINY.items
    rates = (
        "loader_items_per_s",
        "writer_alone_items_per_s",
        "parallel_bulk_items_per_s",
        "plain_same_writes_items_per_s",
    )
    assert all(measured[rate] > 0 for rate in rates)
    assert "### Load throughput against parallel_bulk" in tiny_report[1]


def test_the_streaming_section_loads_every_good_line_and_rejects_the_bad(
    tiny_report: tuple[dict, str, Path],
) -> None:
    measured = tiny_report[0]["results"]["streaming"]
    bad = measured["lines"] // measured["bad_every"]
    assert measured["rejected"] == bad and measured["loaded"] == measured["lines"] - bad
    assert len(measured["rss_mib_by_tenth"]) == 10
    assert "### Memory on a long JSON Lines file" in tiny_report[1]


def test_cold_start_packing_and_package_sections(tiny_report: tuple[dict, str, Path]) -> None:
    results = tiny_report[0]["results"]
    assert results["packing"]["hits_per_second"] > 0
    cold = results["coldstart"]
    functions = {"retrieve", "graph_path", "why_explain", "retrieve (tracing on)"}
    assert set(cold["import_over_boto3"]) == set(cold["process_over_boto3"]) == functions
    assert cold["retrieve_first_over_plain"] > 0
    hooked = cold["first_invocation_ms"]["retrieve (SnapStart hooks)"]
    assert hooked["snapshot"] > 0 and hooked["restore"] >= 0 and hooked["first"] > 0
    assert cold["snapstart_moved_ms"] == cold["first_invocation_ms"]["retrieve"]["first"] - hooked["first"]
    assert all(ms > 0 for ms in cold["import_ms"].values())
    assert results["package"] == {
        "measured": False,
        "reason": f"no sam build output in {tiny_report[2] / 'no-sam-build'} (run `make sam-build`)",
    }


def test_the_command_runs_as_make_bench_runs_it(stack_settings: Settings, tmp_path: Path) -> None:
    """A fresh process with only what `make bench` has: no AWS credentials or endpoints in the
    environment, so the bench must take them from the stack's `.stack/env` like every CLI does."""
    import os
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "RETRIEVAL_"))}
    finished(
        [sys.executable, "-m", "bench", "--scale", "tiny", "--only", "policy", "--out", tmp_path],
        env=env,
        timeout=600,
    )
    assert json.loads((tmp_path / "latest-tiny.json").read_text())["scale"] == "tiny"


def test_filtered_knn_is_measured_beside_unfiltered(tiny_report: tuple[dict, str, Path]) -> None:
    report, stdout, _ = tiny_report
    filtered = report["results"]["filtered"]
    assert list(filtered) == ["unfiltered", "1%", "10%", "50%"]
    for row in filtered.values():
        assert row["handler"]["samples"] == TINY.queries
        assert 0 <= row["recall_at_10_min"] <= row["recall_at_10"] <= 1
        moved = row["with_feedback"]
        assert moved["handler"]["samples"] == TINY.queries
        assert 0 <= moved["exact_top_10_kept_min"] <= moved["exact_top_10_kept"] <= 1
    assert "### Filtered k-NN" in stdout


def test_cost_per_million_covers_each_function_from_its_measured_units(
    tiny_report: tuple[dict, str, Path],
) -> None:
    report, stdout, _ = tiny_report
    rows = {row["label"]: row for row in report["cost"]}
    assert {"retrieve lexical", "retrieve vector", "retrieve hybrid"} <= set(rows)
    assert {"retrieve lexical, with a session", "graph_path, depth 3", "why_explain, depth 3"} <= set(rows)
    graph = report["results"]["graph"]
    # why_explain at depth 3 reads an item partition and three levels of cards: never free.
    assert graph["why_explain"][3]["read_units"] >= 4 * 0.5
    assert rows["why_explain, depth 3"]["read_units"] == graph["why_explain"][3]["read_units"] * 1e6
    session = rows["retrieve lexical, with a session"]
    assert session["write_units"] == 1e6  # the log entry's one conditional put
    for row in rows.values():
        assert row["total_usd"] == pytest.approx(row["lambda_usd"] + row["dynamodb_usd"])
    assert "### Cost per million requests" in stdout


def test_documents_go_through_the_handler_beside_a_plain_loop(tiny_report: tuple[dict, str, Path]) -> None:
    report, stdout, _ = tiny_report
    documents = report["results"]["documents"]
    assert (documents["files"], documents["pages"]) == (22, 20 + 2 * 10)
    assert documents["handler"]["chunks"] > 0 and documents["plain"]["chunks"] > 0
    assert documents["handler"]["pages_per_second"] > 0 < documents["plain"]["pages_per_second"]
    assert "### Documents: 22 files (40 pages" in stdout


def test_vectors_reports_the_graph_and_vector_files_beside_the_estimate(
    tiny_report: tuple[dict, str, Path],
) -> None:
    found = tiny_report[0]["results"]["vectors"]
    assert found["encoding"] == "fp32" and found["documents"] == TINY.items
    files = found["file_bytes"]
    assert files["vex"] > 0 and files["vec"] > 0 and files["veq"] == 0  # no quantized copy for fp32
    assert found["searched_bytes"] == files["vex"] + files["vec"]
    assert found["estimate_bytes"] == pytest.approx(1.1 * (4 * 384 + 8 * 16) * TINY.items)
    assert "### Vectors: fp32, m = 16" in tiny_report[1]


def test_the_knn_section_sweeps_ef_search_and_rebuilds_each_graph(
    tiny_report: tuple[dict, str, Path],
) -> None:
    from bench.knn_tuning import EF_SEARCH, OTHER_GRAPHS

    found = tiny_report[0]["results"]["knn"]
    labels = ["unfiltered", "10%", "50%"]
    assert list(found["ef_search"]) == list(EF_SEARCH)
    for searched in [*found["ef_search"].values(), *(g["searched"] for g in found["graphs"])]:
        assert list(searched) == labels
        assert all(0 <= row["recall_at_10"] <= 1 and row["p50_ms"] > 0 for row in searched.values())
    loaded, *rebuilt = found["graphs"]
    assert (loaded["m"], loaded["ef_construction"], loaded["rebuild_seconds"]) == (16, 128, None)
    assert [(g["m"], g["ef_construction"]) for g in rebuilt] == list(OTHER_GRAPHS)
    assert all(g["rebuild_seconds"] >= 0 for g in rebuilt)
    # each rebuild applied its m: of two indices built alike, the one with 32 links a node holds the larger
    # graph (the loaded index is left out: it was written in many segments, each with its own graph)
    by_m = {g["m"]: g["graph_bytes"] for g in rebuilt}
    assert by_m[32] > by_m[8] > 0
    assert "### k-NN parameters" in tiny_report[1]


def test_the_int8_section_rebuilds_the_loaded_index_and_measures_it_again(
    tiny_report: tuple[dict, str, Path],
) -> None:
    from bench.quantized import EF_SEARCH

    found = tiny_report[0]["results"]["int8"]
    assert found["documents"] == TINY.items and found["reembedded"] is False
    vectors = found["vectors"]
    assert vectors["encoding"] == "int8" and vectors["file_bytes"]["veq"] > 0
    assert vectors["searched_bytes"] == vectors["file_bytes"]["vex"] + vectors["file_bytes"]["veq"]
    assert list(found["filtered"]) == ["unfiltered", "1%", "10%", "50%"]
    assert all(row["recall_at_10"] >= 0.95 for row in found["filtered"].values())
    assert "filtered k-NN recall@10, int8, 50%" in tiny_report[1]
    # the int8 index searched under each ef_search (nothing rebuilt), at every selectivity
    assert list(found["ef_search"]) == list(EF_SEARCH)
    for searched in found["ef_search"].values():
        assert list(searched) == ["unfiltered", "1%", "10%", "50%"]
        assert all(0 <= row["recall_at_10"] <= 1 and row["p50_ms"] > 0 for row in searched.values())
    assert "### int8 per ef_search" in tiny_report[1]


def test_sync_scale_syncs_every_page_beside_the_embedder_and_keeps_every_link(
    tiny_report: tuple[dict, str, Path],
) -> None:
    report, stdout, _ = tiny_report
    found = report["results"]["sync-scale"]
    assert found["statuses"] == {"indexed": found["pages"]} and found["chunks"] >= found["pages"]
    assert found["links"]["expected"] > 0 and found["links"]["held"] == found["links"]["expected"]
    assert found["dictionary_reads"] == 1  # once for the whole sync, not once per file
    assert found["sync_over_embed"] > 0 and found["last_over_first"] > 0
    # CPU beside wall: the sync's own and its stack's (the stack worked for it), per window and whole
    assert found["sync"]["cpu_seconds"] > 0 and found["sync"]["stack_cpu_seconds"] > 0
    assert found["cpu_sync_over_embed"]["whole"] > 0 and found["cpu_last_over_first"] >= 0
    assert found["sync"]["windows"]["first"]["files"] >= found["window"]
    assert found["deployed"]["objects"] > 0 and found["deployed"]["last_over_first"] > 0
    for end in ("first", "last"):  # what each invocation did, to place a growth
        done = found["deployed"][end]
        assert done["entries"] >= 1 and done["opensearch"] >= 1 and done["dynamodb"] >= 1
    assert "### A sync at scale (sync-scale)" in stdout
