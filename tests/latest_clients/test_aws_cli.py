"""The AWS CLI (v1, the registry's newest) calls Retrieve as a user types it: `--endpoint-url` and the
knowledge base id (or its ARN); another context's id is AccessDeniedException, generation a
ValidationException that says why."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import KNOWLEDGE_BASES, QUESTION

AWS = Path(sys.executable).with_name("aws")


def aws(serve_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [str(AWS), "bedrock-agent-runtime", *args, "--endpoint-url", serve_url, "--output", "json"]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.usefixtures("dev_credentials")
@pytest.mark.parametrize(
    "knowledge_base",
    [
        KNOWLEDGE_BASES["acme"],
        f"arn:aws:bedrock:us-east-1:123456789012:knowledge-base/{KNOWLEDGE_BASES['acme']}",
    ],
)
def test_retrieve_by_id_and_by_arn(serve_url: str, knowledge_base: str) -> None:
    done = aws(
        serve_url, "retrieve", "--knowledge-base-id", knowledge_base, "--retrieval-query", f"text={QUESTION}"
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["retrievalResults"]
    assert results and all(r["metadata"]["x-retrieval-id"].startswith("acme:") for r in results)


@pytest.mark.usefixtures("dev_credentials")
def test_another_context_s_knowledge_base_is_access_denied(serve_url: str) -> None:
    done = aws(
        serve_url, "retrieve", "--knowledge-base-id", KNOWLEDGE_BASES["globex"], "--retrieval-query", "text=x"
    )
    assert done.returncode != 0 and "AccessDeniedException" in done.stderr


@pytest.mark.usefixtures("dev_credentials")
def test_retrieve_and_generate_is_a_validation_exception_saying_why(serve_url: str) -> None:
    configuration = {
        "type": "KNOWLEDGE_BASE",
        "knowledgeBaseConfiguration": {
            "knowledgeBaseId": KNOWLEDGE_BASES["acme"],
            "modelArn": "arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-micro-v1:0",
        },
    }
    done = aws(
        serve_url,
        "retrieve-and-generate",
        "--input",
        f"text={QUESTION}",
        "--retrieve-and-generate-configuration",
        json.dumps(configuration),
    )
    assert done.returncode != 0 and "ValidationException" in done.stderr
    assert "generation is the caller's" in done.stderr
