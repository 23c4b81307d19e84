"""The policy and the context packet through the retrieve handler, on the real session table."""

from __future__ import annotations

import re
import uuid

from corpus_stack import call, retrieve
from retrieval_core.config import Settings
from retrieval_dev.cli.events import session_event

from dev.sample import known


def session_id() -> str:
    return f"s-{uuid.uuid4().hex[:12]}"


def test_receipts_count_and_source_names_are_stable_within_a_session(corpus_settings: Settings) -> None:
    session = session_id()
    first_status, first = retrieve(
        "acme", {"mode": "lexical", "text": "payments ledger", "session_id": session}
    )
    second_status, second = retrieve(
        "acme", {"mode": "hybrid", "text": "payments ledger outage"}, headers={"X-Retrieval-Session": session}
    )
    assert (first_status, second_status) == (200, 200)
    assert (first["receipt"]["sequence"], second["receipt"]["sequence"]) == (1, 2)
    assert first["receipt"]["session_id"] == second["receipt"]["session_id"] == session
    names_first = dict(zip([h["id"] for h in first["hits"]], first["receipt"]["source_ids"], strict=True))
    names_second = dict(zip([h["id"] for h in second["hits"]], second["receipt"]["source_ids"], strict=True))
    shared = names_first.keys() & names_second.keys()
    assert shared and all(names_first[i] == names_second[i] for i in shared)
    assert first["receipt"]["requested_at"] <= first["receipt"]["completed_at"]

    view_event = session_event("acme", session)
    status, view, _ = call("retrieve", view_event)
    assert status == 200 and view["count"] == 2
    assert {s["name"] for s in view["sources"]} == set(names_first.values()) | set(names_second.values())
    view_event["requestContext"]["authorizer"]["context_id"] = "globex"
    status, foreign, _ = call("retrieve", view_event)
    missing_event = session_event("globex", "none")
    assert (status, foreign) == call("retrieve", missing_event)[:2]
    assert status == 404


def test_a_duplicate_is_409_and_a_spent_budget_is_429(corpus_settings: Settings) -> None:
    session = session_id()
    query = {"mode": "lexical", "text": "ledger", "session_id": session, "session_limit": 2}
    assert retrieve("acme", query)[0] == 200
    status, duplicate = retrieve("acme", query)
    assert status == 409 and duplicate["error"] == "duplicate_query"
    assert duplicate["original_sequence"] == 1
    assert retrieve("acme", query | {"text": "ledger core"})[0] == 200
    status, spent = retrieve("acme", query | {"text": "card issuing"})
    assert status == 429 and spent["error"] == "session_budget_exhausted"
    assert (spent["limit"], spent["used"]) == (2, 2)


def test_the_packet_keeps_the_retrievals_order_scores_and_citations(corpus_settings: Settings) -> None:
    case = known.DOCUMENT_ABOVE_PROPOSITION
    status, body = retrieve(
        case.context,
        {
            "mode": "hybrid",
            "text": case.text,
            "top_k": 30,
            "diversify": False,
            "weights": {"document": 2.0},
            "session_id": session_id(),
            "pack": {"max_tokens": 400},
        },
    )
    assert status == 200, body
    hit_ids = [h["id"] for h in body["hits"]]
    assert hit_ids.index(case.document) < hit_ids.index(case.proposition)
    packet = body["context_packet"]
    packed = [item["id"] for item in packet["items"]]
    assert packed == [i for i in hit_ids if i in packed]  # an order-preserving subsequence
    scores = {h["id"]: h["score"] for h in body["hits"]}
    assert all(item["score"] == scores[item["id"]] for item in packet["items"])
    names = dict(zip(hit_ids, body["receipt"]["source_ids"], strict=True))
    assert all(item["source_id"] == names[item["id"]] for item in packet["items"])
    cited = re.findall(r"\[(S\d+)\]", packet["text"])
    assert cited == [item["source_id"] for item in packet["items"]]
    assert set(cited) <= set(body["receipt"]["source_ids"])
    assert packet["used"] <= packet["budget"] == 400
    assert {d["id"] for d in packet["dropped"]} | set(packed) == set(hit_ids)


def test_a_header_that_cannot_fit_is_422_before_any_budget_is_spent(corpus_settings: Settings) -> None:
    session = session_id()
    status, body = retrieve(
        "acme", {"mode": "lexical", "text": "ledger", "session_id": session, "pack": {"max_chars": 5}}
    )
    assert status == 422 and "header" in body["message"].lower()
    assert retrieve("acme", {"mode": "lexical", "text": "ledger", "session_id": session})[0] == 200


def test_the_demos_compressed_packet_keeps_the_answer_and_the_top_hits(corpus_settings: Settings) -> None:
    """The demo's step 3: compressing used to drop the two best hits (the answer among them) for budget
    and pack the weaker ones; the best hits now get the budget first."""
    status, body = retrieve(
        "acme",
        {
            "mode": "hybrid",
            "text": "Who leads the Payments team?",
            "top_k": 8,
            "session_id": session_id(),
            "pack": {"max_tokens": 200, "compress": True},
        },
    )
    assert status == 200, body
    hit_ids = [h["id"] for h in body["hits"]]
    packet = body["context_packet"]
    packed = [item["id"] for item in packet["items"]]
    assert "Alice Chen leads the Payments team" in body["hits"][0]["text"]
    assert packed == hit_ids[: len(packed)] and len(packed) >= 2  # nothing above a packed hit is lost
    assert all(d["reason"] == "budget" for d in packet["dropped"])
    assert packet["used"] <= packet["budget"] == 200


def test_another_principals_session_reads_like_an_unknown_one(corpus_settings: Settings) -> None:
    session = session_id()
    assert retrieve("acme", {"mode": "lexical", "text": "ledger", "session_id": session})[0] == 200

    def view(session: str, principal: str) -> tuple[int, dict]:
        event = session_event("acme", session)
        event["requestContext"]["authorizer"]["principalId"] = principal
        status, body, _ = call("retrieve", event)
        return status, body

    assert view(session, "local")[0] == 200  # the owner (api_event's principal)
    foreign = view(session, "another-agent")
    assert foreign[0] == 404 and foreign == view(session_id(), "another-agent")
