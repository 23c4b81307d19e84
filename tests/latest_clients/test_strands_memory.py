"""An agent's memory through Strands, unchanged but for the endpoint variables (its newest releases:
strands-agents, strands-agents-tools and boto3 from PyPI, in an environment of their own made by `make
test-latest-clients`), against `retrieval serve`: ``BedrockKnowledgeBaseStore`` in its default
configuration (so it asks ``GetKnowledgeBase`` the knowledge base's type) under the agent's
``MemoryManager`` adds three memories and finds each by a paraphrase; strands-agents-tools' ``memory``
tool stores, lists, gets, retrieves and deletes, and a deleted memory is gone from ``retrieve``.

Like the other tests here it imports nothing of the repository. The writer's dev credentials
(``devwrite-acme`` / ``dev-secret``) are what a deployment's IAM policy granting the write operations
would be."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from conftest import KNOWLEDGE_BASES

MEMORIES = {
    "The staging database password is rotated every Tuesday at noon by the platform team.": (
        "When does the platform team change the staging DB credentials?"
    ),
    "Priya prefers her coffee black with no sugar, brewed from Ethiopian beans.": (
        "How does Priya like to drink her coffee?"
    ),
    "The quarterly offsite will be held in Lisbon, near the river, in early May.": (
        "In which city will the team gather for its offsite this quarter?"
    ),
}


@pytest.fixture
def agent_environment(serve_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Only what a user of a deployment sets: the endpoints (both services), region, credentials, and
    the memory tool's own settings."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENT", serve_url)
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME", serve_url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "devwrite-acme")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "dev-secret")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("BYPASS_TOOL_CONSENT", "true")  # the memory tool's own switch for unattended runs
    monkeypatch.setenv("STRANDS_KNOWLEDGE_BASE_ID", KNOWLEDGE_BASES["acme"])  # the memory tool's setting
    return KNOWLEDGE_BASES["acme"]


def text_of(result: Any) -> str:
    """A tool result's text, whatever shape the tool returned it in."""
    if isinstance(result, dict) and "content" in result:
        return "\n".join(str(part.get("text", part.get("json", ""))) for part in result["content"])
    return json.dumps(result, default=str)


def test_the_memory_store_adds_three_memories_and_finds_each_by_a_paraphrase(agent_environment: str) -> None:
    from strands import Agent
    from strands.memory import MemoryManager
    from strands.vended_memory_stores.bedrock_knowledge_base import BedrockKnowledgeBaseStore

    store = BedrockKnowledgeBaseStore(
        config={
            "knowledge_base_id": agent_environment,
            "data_source_type": "CUSTOM",
            "data_source_id": "CUSTOMDOCS",
        },
        name="team-notes",
        scope=f"run-{uuid.uuid4().hex[:12]}",  # this run's memories only
        writable=True,
    )
    agent = Agent(
        memory_manager=MemoryManager(stores=[store], add_tool_config=True),
        callback_handler=None,
    )
    assert store._kb_type == "VECTOR"  # GetKnowledgeBase answered when the agent was built
    added = agent.tool.add_memory(entries=list(MEMORIES))
    assert added["status"] == "success", added
    for memory, paraphrase in MEMORIES.items():
        found = agent.tool.search_memory(query=paraphrase, max_search_results=1)
        assert found["status"] == "success", found
        assert memory in text_of(found), (paraphrase, text_of(found))


def test_the_memory_tool_stores_lists_gets_retrieves_and_deletes(agent_environment: str) -> None:
    from strands import Agent
    from strands_tools import memory

    agent = Agent(tools=[memory], callback_handler=None)
    marker = uuid.uuid4().hex[:10]
    fact = f"Locker {marker} holds the spare badge for the Oslo office, behind the reception desk."
    stored = agent.tool.memory(action="store", content=fact, title=f"Badge {marker}")
    assert stored["status"] == "success", stored
    (document_id,) = re.findall(r"Document ID: (\S+)", text_of(stored))
    listed = agent.tool.memory(action="list", max_results=1000)
    assert listed["status"] == "success" and document_id in text_of(listed)
    got = agent.tool.memory(action="get", document_id=document_id)
    assert got["status"] == "success" and document_id in text_of(got), got
    query = f"Where is the spare badge of locker {marker}?"
    before = agent.tool.memory(action="retrieve", query=query, max_results=5)
    assert before["status"] == "success" and document_id in text_of(before), text_of(before)
    deleted = agent.tool.memory(action="delete", document_id=document_id)
    assert deleted["status"] == "success" and "deletion" in text_of(deleted), deleted
    after = agent.tool.memory(action="retrieve", query=query, max_results=5)
    assert document_id not in text_of(after)
    assert document_id not in text_of(agent.tool.memory(action="list", max_results=1000))
