"""The sample contexts' knowledge base ids, fixed so that events/ and the docs can name them.

``make up`` writes them where a deployment keeps its ids (the stack's SSM, moto here), exactly as
``retrieval knowledge-base create`` would have; ``create --context acme`` then prints ``ACMEKB0001``.
Each is also listed for its context's dev users (``dev-acme``, ``devwrite-acme``), as ``retrieval
knowledge-base grant`` lists one for an IAM principal.
"""

from __future__ import annotations

import boto3

from dev.stack_env import FAKE_AWS_CREDENTIALS

SAMPLE_KNOWLEDGE_BASES = {"ACMEKB0001": "acme", "GLOBEXKB01": "globex"}
"""Knowledge base id -> the sample context it serves."""


def register_sample_knowledge_bases(ssm_endpoint: str, path: str, region: str) -> None:
    """Write the sample ids under ``path`` (idempotent)."""
    ssm = boto3.client(
        "ssm",
        endpoint_url=ssm_endpoint,
        region_name=region,
        aws_access_key_id=FAKE_AWS_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_AWS_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )
    for knowledge_base_id, context_id in SAMPLE_KNOWLEDGE_BASES.items():
        ssm.put_parameter(Name=f"{path}/{knowledge_base_id}", Value=context_id, Type="String", Overwrite=True)
        # Listed for the dev users that `retrieval serve` grants the context (ListKnowledgeBases).
        for user in (f"dev-{context_id}", f"devwrite-{context_id}"):
            ssm.put_parameter(
                Name=f"{path}-principals/{user}", Value=knowledge_base_id, Type="String", Overwrite=True
            )
