"""Knowledge base ids as Amazon Bedrock gives them, and the ARN form its clients may send instead.

botocore's model of ``bedrock-agent-runtime`` accepts a ``knowledgeBaseId`` of exactly ten letters and
digits, or a knowledge base ARN; a current SDK refuses anything else before sending it. A context keeps
its own id (``acme``) and is served under a ten-character id of its own (``retrieval knowledge-base
create``), so no context ever has to be renamed to be served.
"""

from __future__ import annotations

import re
import secrets
import string
from dataclasses import dataclass

KNOWLEDGE_BASE_ID_PATTERN = re.compile(r"^[0-9a-zA-Z]{10}$")
KNOWLEDGE_BASE_ARN_PATTERN = re.compile(
    r"^arn:aws(-[^:]+)?:bedrock:(?P<region>[a-z0-9-]{1,20}):(?P<account>[0-9]{12}):"
    r"knowledge-base/(?P<id>[0-9a-zA-Z]{10})$"
)
"""botocore's pattern for the ARN form, with the region and account named."""
_ALPHABET = string.ascii_uppercase + string.digits
"""What CreateKnowledgeBase's ids are made of (``ABCDE12345``)."""


@dataclass(frozen=True, slots=True)
class KnowledgeBaseReference:
    """What a request's ``knowledgeBaseId`` names: the id, and the region and account of an ARN."""

    knowledge_base_id: str
    region: str | None = None
    account: str | None = None


def new_knowledge_base_id() -> str:
    """A fresh id of CreateKnowledgeBase's shape: ten upper-case letters and digits, at random."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(10))


def parse_reference(value: str) -> KnowledgeBaseReference | None:
    """The id (and, for an ARN, its region and account) that ``value`` names; None when it is neither."""
    if KNOWLEDGE_BASE_ID_PATTERN.fullmatch(value):
        return KnowledgeBaseReference(value)
    arn = KNOWLEDGE_BASE_ARN_PATTERN.fullmatch(value)
    if arn is None:
        return None
    return KnowledgeBaseReference(arn["id"], region=arn["region"], account=arn["account"])


_PRINCIPAL_ARN = re.compile(
    r"^arn:aws[a-z-]*:(?:iam::[0-9]{12}:(?:user|role)/(?:[^/]+/)*(?P<iam>[^/]+)"
    r"|sts::[0-9]{12}:assumed-role/(?P<assumed>[^/]+)/[^/]+)$"
)
_SAFE = frozenset(string.ascii_letters + string.digits + ".-")


def principal_key(principal_arn: str) -> str | None:
    """The SSM name segment under which an IAM principal's knowledge bases are listed: its user or role
    name (an assumed role's session dropped), each character an SSM name cannot hold (and '_') spelled
    ``_xx``, so two names never share a key; None for a value that names no IAM user or role."""
    match = _PRINCIPAL_ARN.fullmatch(principal_arn)
    if match is None:
        return None
    name = match["iam"] or match["assumed"]
    return "".join(c if c in _SAFE else f"_{ord(c):02x}" for c in name)
