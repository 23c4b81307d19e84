"""`retrieval serve`'s SigV4 check (``retrieval_dev.cli.sigv4``): a request botocore signed with a dev key
passes for that key's knowledge base only; any change to what was signed, another secret, another
knowledge base or an old signature fails."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from retrieval_dev.cli.sigv4 import dev_credentials, verified_identity

HOST = "127.0.0.1:3000"
PATH = "/knowledgebases/acme/retrieve"
BODY = b'{"retrievalQuery": {"text": "who leads payments"}}'


def signed(
    *, context: str = "acme", secret: str | None = None, body: bytes = BODY, at: datetime | None = None
) -> dict[str, str]:
    key, dev_secret = dev_credentials(context)
    request = AWSRequest(
        method="POST", url=f"http://{HOST}{PATH}", data=body, headers={"Content-Type": "application/json"}
    )
    signer = SigV4Auth(Credentials(key, secret or dev_secret), "bedrock", "us-east-1")
    if at is None:
        signer.add_auth(request)
    else:
        with mock.patch("botocore.auth.get_current_datetime", return_value=at.replace(tzinfo=None)):
            signer.add_auth(request)
    return {"Host": HOST, **dict(request.headers)}


def verify(
    headers: dict[str, str], body: bytes = BODY, knowledge_base: str = "acme", path: str = PATH
) -> Any:
    # The path serves the context named like its knowledge base here: the grant is what is tested.
    return verified_identity("POST", path, headers, body, lambda context: context == knowledge_base)


def test_a_dev_signature_grants_its_own_knowledge_base() -> None:
    identity = verify(signed())
    assert identity["accessKey"] == "dev-acme" and identity["userArn"].endswith(":user/dev-acme")


@pytest.mark.parametrize(
    "case",
    [
        "other knowledge base",
        "wrong secret",
        "changed body",
        "unsigned",
        "old",
        "other key's grant",
        "changed path",
    ],
)
def test_anything_not_signed_for_this_request_and_grant_fails(case: str) -> None:
    headers, body, knowledge_base, path = signed(), BODY, "acme", PATH
    if case == "other knowledge base":
        knowledge_base, path = "globex", "/knowledgebases/globex/retrieve"
    elif case == "wrong secret":
        headers = signed(secret="guess")
    elif case == "changed body":
        body = BODY.replace(b"payments", b"salaries")
    elif case == "unsigned":
        headers = {"Host": HOST, "Content-Type": "application/json"}
    elif case == "old":
        headers = signed(at=datetime.now(UTC) - timedelta(minutes=6))
    elif case == "other key's grant":
        headers = signed(context="globex")
    elif case == "changed path":
        path = "/knowledgebases/acme/retrieve?x=1"
    assert verify(headers, body, knowledge_base, path) is None


def signed_by(access_key: str) -> dict[str, str]:
    request = AWSRequest(
        method="POST", url=f"http://{HOST}{PATH}", data=BODY, headers={"Content-Type": "application/json"}
    )
    SigV4Auth(Credentials(access_key, "dev-secret"), "bedrock", "us-east-1").add_auth(request)
    return {"Host": HOST, **dict(request.headers)}


def test_only_a_writer_s_key_may_write_and_it_reads_as_well() -> None:
    """bedrock-agent's writes are their own grant: ``dev-acme`` reads, ``devwrite-acme`` reads and writes."""
    reader, _ = dev_credentials("acme")
    writer, _ = dev_credentials("acme", writer=True)
    grant = lambda context: context == "acme"  # noqa: E731
    assert verified_identity("POST", PATH, signed_by(reader), BODY, grant, writes=True) is None
    assert verified_identity("POST", PATH, signed_by(reader), BODY, grant) is not None
    for writes in (True, False):
        identity = verified_identity("POST", PATH, signed_by(writer), BODY, grant, writes=writes)
        assert identity is not None and identity["userArn"].endswith(":user/devwrite-acme")
    # A writer of another context writes nothing here.
    other, _ = dev_credentials("globex", writer=True)
    assert verified_identity("POST", PATH, signed_by(other), BODY, grant, writes=True) is None
