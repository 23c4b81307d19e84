"""The small outputs issue 53 named: a reload says what "updated" means, "absent" says what is absent,
a packet's dropped hits carry their reasons, a diversified page says why its scores do not
descend, and an MCP caller asking top_k 1000 is told it was capped."""

from __future__ import annotations

import pytest
from retrieval_core.loading.loader import LoadReport
from retrieval_dev.cli.demo import dropped_line, ingest_counts, show_hits
from retrieval_dev.mcp.backends import ApiAnswer
from retrieval_dev.mcp.server import tool_result


def test_a_reload_and_a_delete_say_what_their_counts_are() -> None:
    assert LoadReport(loaded=329, updated=329).summary() == "329 items loaded (0 new, 329 replaced)"
    report = LoadReport(loaded=0, updated=0, deleted=2, absent=1).summary()
    assert report == "0 items loaded (0 new, 0 replaced), 2 deleted (1 deletes named ids that were not there)"
    counts = ingest_counts({"loaded": 3, "updated": 1, "deleted": 1, "absent": 1, "rejected": 0})
    assert counts == (
        "3 items loaded (2 new, 1 replaced), 1 deleted (1 deletes named ids that were not there), "
        "0 lines rejected"
    )


def test_a_packets_dropped_hits_are_named_with_their_reason() -> None:
    dropped = [{"id": "acme:p-9", "source_id": "S8", "reason": "budget"}]
    assert dropped_line(dropped) == "dropped 1 (S8 acme:p-9: budget)"
    assert dropped_line([]) == "dropped none"


def test_an_mcp_top_k_past_the_page_is_said_to_be_capped() -> None:
    body = {"hits": [], "applied": {"top_k": 100, "depth": 1, "diversify": False}}
    text = tool_result(ApiAnswer(200, body), "retrieve", {"text": "x", "top_k": 1000}).content[0].text
    assert "Note: top_k 1000 was capped at 100 (a page holds 1..100 hits; page on with next_token)." in text
    quiet = tool_result(ApiAnswer(200, body), "retrieve", {"text": "x", "top_k": 100}).content[0].text
    assert "Note" not in quiet


def test_the_demo_says_why_a_pages_scores_do_not_descend(capsys: pytest.CaptureFixture[str]) -> None:
    hit = {"kind": "document", "id": "acme:d", "text": "t"}
    interleaved = [{**hit, "score": 0.8}, {**hit, "score": 0.9}]
    show_hits("hybrid", {"hits": interleaved, "applied": {"diversify": True}})
    show_hits("hybrid", {"hits": interleaved[::-1], "applied": {"diversify": True}})
    show_hits("hybrid", {"hits": interleaved, "applied": {"diversify": False}})
    notes = [line for line in capsys.readouterr().out.splitlines() if "do not descend" in line]
    assert notes == ["    (diversified by kind: kinds interleave, so scores do not descend)"]
    show_hits("expanded", {"hits": interleaved, "arms": ["lexical", "vector", "graph"], "applied": {}})
    expanded = capsys.readouterr().out.splitlines()[-1]
    assert expanded == "    (graph neighbours follow the page in the walk's order, so scores do not descend)"
