"""Whose knowledge bases ``ListKnowledgeBases`` answers: an IAM principal's key is its user or role name
(an assumed role's session dropped), spelled so two names never share one."""

from __future__ import annotations

import pytest
from retrieval_core.models.knowledge_bases import principal_key


@pytest.mark.parametrize(
    ("arn", "key"),
    [
        ("arn:aws:iam::123456789012:user/dev-acme", "dev-acme"),
        ("arn:aws:iam::123456789012:user/team/alice", "alice"),
        ("arn:aws:iam::123456789012:role/agents/MemoryAgent", "MemoryAgent"),
        ("arn:aws:sts::123456789012:assumed-role/MemoryAgent/session-42", "MemoryAgent"),
        ("arn:aws:iam::123456789012:user/a@b.com", "a_40b.com"),
        ("arn:aws:iam::123456789012:user/a_40b.com", "a_5f40b.com"),
    ],
)
def test_a_principal_s_key_is_its_user_or_role_name(arn: str, key: str) -> None:
    assert principal_key(arn) == key


@pytest.mark.parametrize(
    "arn", ["", "dev-acme", "arn:aws:iam::123456789012:group/x", "arn:aws:iam::123:user/x", "arn:aws:s3:::b"]
)
def test_a_value_that_names_no_user_or_role_has_no_key(arn: str) -> None:
    assert principal_key(arn) is None
