"""Citations that open, on the local stack: a folder synced with `retrieval sync --base-url` (its sources
placed as the command places them) answers hits whose location names the file's path, its absolute path
(which exists), the section, its anchor (an id in that file) and the published link at that anchor; the
packet's citations, the MCP tool's text (`retrieval mcp`, a real process) and the Bedrock route's metadata
(boto3 against `retrieval serve`) show the same section and link."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from cli_process import RETRIEVAL, serving
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from published_folder import BASE_URL, QUESTION, published_manual, synced
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import invoke
from stack_state import REPO


@pytest.fixture(scope="module")
def cited(corpus_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A context of its own whose folder went through `retrieval sync` published at ``BASE_URL``."""
    folder = tmp_path_factory.mktemp("manual")
    with published_manual(corpus_settings, folder) as context:
        yield context, folder


def retrieve(context: str, body: dict[str, Any]) -> dict[str, Any]:
    response = invoke("retrieve", api_event("POST", "/v1/retrieve", context, body=body))
    assert response["statusCode"] == 200, response["body"]
    answer: dict[str, Any] = json.loads(response["body"])
    return answer


def opens(location: dict[str, Any], folder: Path) -> None:
    """The citation opens: the path is the file's under the folder, the absolute path exists, the anchor
    is an id in that file, and the link is the published page at that anchor."""
    assert location["local_path"] == str(folder.resolve() / location["path"])
    page = Path(location["local_path"]).read_text()
    assert location["anchor"] and f'id="{location["anchor"]}"' in page
    assert location["url"] == f"{BASE_URL}{location['path'].replace(' ', '%20')}#{location['anchor']}"
    assert location["uri"].endswith(f"/contexts/{location['uri'].split('/contexts/')[1]}")


def test_a_hit_s_location_opens_the_file_at_its_section(cited: tuple[str, Path]) -> None:
    context, folder = cited
    (top, *_) = retrieve(context, {"mode": "hybrid", "text": QUESTION, "top_k": 3})["hits"]
    location = top["location"]
    assert location["path"] == "admin/server shutdown.html"
    assert location["section"].endswith("19.5.1. Fast Shutdown")
    assert location["anchor"] == "SERVER-SHUTDOWN-FAST"
    opens(location, folder)
    # A Markdown page links at its heading's slug.
    guide = retrieve(context, {"mode": "lexical", "text": "nightly dump vault", "top_k": 1})["hits"][0]
    assert guide["location"]["url"] == f"{BASE_URL}backup.md#dumps"
    assert guide["location"]["section"] == "Backup guide > Dumps"


def test_the_packet_s_citations_carry_the_section_and_link(cited: tuple[str, Path]) -> None:
    context, _ = cited
    body = {"mode": "hybrid", "text": QUESTION, "top_k": 3, "pack": {"max_tokens": 400, "cite_uri": True}}
    answer = retrieve(context, body)
    packet, top = answer["context_packet"], answer["hits"][0]
    item = packet["items"][0]
    assert (item["section"], item["url"]) == (top["location"]["section"], top["location"]["url"])
    assert f"<{item['url']}>" in packet["text"] and "19.5.1. Fast Shutdown" in packet["text"]


def test_the_mcp_tool_s_text_shows_the_section_and_link(
    cited: tuple[str, Path], corpus_settings: Settings
) -> None:
    context, _ = cited
    server = StdioServerParameters(
        command=str(RETRIEVAL),
        args=["mcp", "--token", f"dev:{context}"],
        env=os.environ | corpus_settings.to_env(),
        cwd=str(REPO),
    )

    async def call() -> Any:
        async with Client(server) as client:
            return await client.call_tool("retrieve", {"mode": "hybrid", "text": QUESTION, "top_k": 3})

    result = anyio.run(call)
    first = result.content[0].text.splitlines()[1]
    link = result.structured_content["hits"][0]["location"]["url"]
    assert re.search(rf'section "[^"]*19\.5\.1\. Fast Shutdown" <{re.escape(link)}>: ', first), first


def test_the_bedrock_route_s_metadata_shows_the_section_and_link(
    cited: tuple[str, Path], corpus_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from retrieval_core.adapters.ssm_knowledge_bases import SsmKnowledgeBases
    from test_bedrock_clients import client

    context, folder = cited
    env = os.environ | corpus_settings.to_env()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in corpus_settings.to_env().items():
            patch.setenv(name, value)
        knowledge_base = SsmKnowledgeBases(
            corpus_settings.knowledge_base_parameter_path, corpus_settings.aws_region
        ).create(context)
    log = tmp_path_factory.mktemp("serve-citations") / "serve.log"
    with serving(["serve"], log, env) as base_url:
        bedrock = client(base_url, context)  # boto3's, with the dev keys of the context
        answer = bedrock.retrieve(knowledgeBaseId=knowledge_base, retrievalQuery={"text": QUESTION})
    metadata = answer["retrievalResults"][0]["metadata"]
    assert metadata["x-retrieval-section"].endswith("19.5.1. Fast Shutdown")
    assert metadata["x-retrieval-anchor"] == "SERVER-SHUTDOWN-FAST"
    opens(
        {
            "uri": metadata["x-amz-bedrock-kb-source-uri"],
            "path": metadata["x-retrieval-path"],
            "local_path": metadata["x-retrieval-local-path"],
            "anchor": metadata["x-retrieval-anchor"],
            "url": metadata["x-retrieval-url"],
        },
        folder,
    )


def test_the_demo_s_handbook_syncs_and_its_hit_opens_the_local_file_at_its_section(
    corpus_settings: Settings,
) -> None:
    """`make demo`'s last step: the sample folder's files each get a status (the drawing skipped with its
    reason), and without --base-url the question's hit links to the local file at its section."""
    from retrieval_dev.cli.demo import HANDBOOK, HANDBOOK_QUESTION

    context, report = synced(corpus_settings, HANDBOOK, None)
    statuses = {entry["key"]: entry["status"] for entry in report}
    assert statuses == {
        "architecture.svg": "skipped",
        "getting-started.md": "indexed",
        "on-call.txt": "indexed",
        "operations/shutdown.html": "indexed",
    }
    (top,) = retrieve(context, {"mode": "hybrid", "text": HANDBOOK_QUESTION, "top_k": 1})["hits"]
    location = top["location"]
    assert location["section"] == "3. Stopping the Gateway > 3.1. Draining"
    assert (
        location["url"] == f"{(HANDBOOK / 'operations' / 'shutdown.html').resolve().as_uri()}#STOPPING-DRAIN"
    )
    assert 'id="STOPPING-DRAIN"' in Path(location["local_path"]).read_text()
