"""The small outputs issues 53 and 69 named: a reload says what "updated" means, "absent" says what is
absent, a packet's dropped hits carry their reasons (and why the receipt still names them), a diversified
page says why its scores do not descend, an MCP caller asking top_k 1000 is told it was capped, `make up`
and docs/BEDROCK.md name the same keys, `serve` names the contexts it sees with a token each, and a search
of a context that holds nothing says so."""

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
    assert dropped_line(dropped) == (
        "dropped 1 (S8 acme:p-9: budget; it is still among the answer's hits, so in the receipt)"
    )
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


def test_make_up_and_the_bedrock_doc_name_the_same_keys() -> None:
    """`.stack/env`'s keys are moto's; the Bedrock route takes the dev keys: both places say which."""
    from pathlib import Path

    from retrieval_dev.cli.sigv4 import DEV_ACCESS_KEY_PREFIX, DEV_SECRET_KEY, dev_credentials

    from dev.stack import up_message
    from dev.stack_env import FAKE_AWS_CREDENTIALS

    said = up_message(Path(".stack/env"))
    doc = (Path(__file__).resolve().parents[2] / "docs" / "BEDROCK.md").read_text()
    moto = f"AWS_ACCESS_KEY_ID={FAKE_AWS_CREDENTIALS['AWS_ACCESS_KEY_ID']}"
    dev = (f"AWS_ACCESS_KEY_ID={DEV_ACCESS_KEY_PREFIX}<context>", f"AWS_SECRET_ACCESS_KEY={DEV_SECRET_KEY}")
    for text in (said, " ".join(doc.split())):
        assert moto in text and all(key in text for key in dev), text[:200]
    assert dev_credentials("acme") == ("dev-acme", DEV_SECRET_KEY) and "dev-acme reads ACMEKB0001" in said


def test_serve_names_the_contexts_it_sees_with_a_token_for_each(monkeypatch: pytest.MonkeyPatch) -> None:
    from retrieval_core.config import Settings
    from retrieval_dev.cli import contexts, serve

    seen = {"acme": 329, "globex": 120, "pg": 1}
    monkeypatch.setattr(contexts, "local_contexts", lambda settings: seen)
    said = serve.dev_tokens(Settings())
    for name in seen:
        assert f"Authorization: Bearer dev:{name}" in said
    assert "dev:acme" in said.splitlines()[1] and "329 items" in said.splitlines()[1]
    monkeypatch.setattr(contexts, "local_contexts", lambda settings: {})
    assert "no context holds items yet" in serve.dev_tokens(Settings())

    def unreadable(settings: Settings) -> dict[str, int]:
        raise contexts.ContextsUnreadableError("ConnectionError: refused")

    monkeypatch.setattr(contexts, "local_contexts", unreadable)
    assert "ConnectionError: refused" in serve.dev_tokens(Settings())


def test_a_context_that_holds_nothing_is_said_to_be_unknown_or_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    from retrieval_dev.cli import contexts, search

    monkeypatch.setattr(contexts, "local_contexts", lambda settings: {"acme": 2, "globex": 1})
    said = search.empty_context("acmee")
    assert said == (
        "the context 'acmee' holds no items (unknown or empty); contexts with items: "
        "acme (2 items), globex (1 item)"
    )
    assert search.empty_context("acme") is None
