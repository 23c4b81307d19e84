"""Which context each knowledge base id serves, kept where the deployment keeps its configuration: one
SSM String parameter per knowledge base, ``<path>/<knowledge base id>`` = the context id.

The retrieve function reads one parameter per id through the container's bounded SSM provider
(``ssm_parameters``), cached for ``max_age_seconds``: a warm container asks SSM about an id at most once
per that time. ``retrieval knowledge-base create`` and ``list`` write and list them (``served``,
``create``); one parameter per id keeps a deployment of very many contexts within SSM's limits, where one
parameter holding every id would not (4 KiB).
"""

from __future__ import annotations

import logging
from typing import Any

from ..errors import BackendUnavailableError
from ..models.knowledge_bases import KNOWLEDGE_BASE_ID_PATTERN, new_knowledge_base_id, principal_key
from .ssm_parameters import ssm_provider

log = logging.getLogger(__name__)

KNOWLEDGE_BASE_ID_CACHE_SECONDS = 300
"""How long a container trusts what it read: a new id serves at once (never read before), a deleted
one stops within this time."""
_CREATE_ATTEMPTS = 3
"""Fresh ids tried before giving up: two random ten-character ids colliding is beyond unlikely."""


class SsmKnowledgeBases:
    """Knowledge base ids under one SSM path, for the runtime (``context_of``) and the CLI (the rest)."""

    def __init__(self, path: str, region: str, *, max_age_seconds: int = KNOWLEDGE_BASE_ID_CACHE_SECONDS):
        self.path = path.rstrip("/")
        self.region = region
        self.max_age_seconds = max_age_seconds

    def context_of(self, knowledge_base_id: str) -> str | None:
        """The context ``knowledge_base_id`` serves; None when no parameter names it. A failed read is
        ``BackendUnavailableError`` (a ThrottlingException on the route, which botocore retries)."""
        from aws_lambda_powertools.utilities.parameters import GetParameterError

        if not KNOWLEDGE_BASE_ID_PATTERN.fullmatch(knowledge_base_id):
            return None
        name = f"{self.path}/{knowledge_base_id}"
        try:
            return str(ssm_provider(self.region).get(name, max_age=self.max_age_seconds))
        except GetParameterError as error:
            # Powertools raises GetParameterError inside its ``except``: the SDK's error is the context.
            if _error_code(error.__context__) == "ParameterNotFound":
                return None
            log.warning("ssm GetParameter failed: %s", type(error.__context__ or error).__name__)
            raise BackendUnavailableError("ssm GetParameter failed") from error

    @property
    def principals_path(self) -> str:
        """Where IAM principals' knowledge bases are listed (``ListKnowledgeBases``): beside the ids,
        ``<path>-principals/<user or role name>`` = comma-separated knowledge base ids."""
        return f"{self.path}-principals"

    def granted_to(self, principal_arn: str) -> tuple[str, ...]:
        """The knowledge base ids listed for the IAM principal ``principal_arn`` (none when no parameter
        names it); a failed read is ``BackendUnavailableError``."""
        from aws_lambda_powertools.utilities.parameters import GetParameterError

        key = principal_key(principal_arn)
        if key is None:
            return ()
        try:
            listed = str(
                ssm_provider(self.region).get(f"{self.principals_path}/{key}", max_age=self.max_age_seconds)
            )
        except GetParameterError as error:
            if _error_code(error.__context__) == "ParameterNotFound":
                return ()
            log.warning("ssm GetParameter failed: %s", type(error.__context__ or error).__name__)
            raise BackendUnavailableError("ssm GetParameter failed") from error
        return tuple(
            kb
            for kb in (part.strip() for part in listed.split(","))
            if KNOWLEDGE_BASE_ID_PATTERN.fullmatch(kb)
        )

    def grant(self, principal_arn: str, knowledge_base_id: str) -> None:
        """List ``knowledge_base_id`` for the principal (idempotent; ``ListKnowledgeBases`` answers it)."""
        key = principal_key(principal_arn)
        if key is None:
            raise ValueError(f"{principal_arn!r} is not the ARN of an IAM user, role or assumed role")
        client = self._client()
        name = f"{self.principals_path}/{key}"
        try:
            listed = client.get_parameter(Name=name)["Parameter"]["Value"].split(",")
        except client.exceptions.ParameterNotFound:
            listed = []
        if knowledge_base_id not in listed:
            value = ",".join([*listed, knowledge_base_id])
            client.put_parameter(Name=name, Value=value, Type="String", Overwrite=True)

    def served(self) -> dict[str, str]:
        """Every knowledge base id under the path, with the context it serves, in id order."""
        pages = self._client().get_paginator("get_parameters_by_path").paginate(Path=self.path)
        found = {
            parameter["Name"].rsplit("/", 1)[-1]: parameter["Value"]
            for page in pages
            for parameter in page["Parameters"]
        }
        return dict(sorted(found.items()))

    def create(self, context_id: str) -> str:
        """The id serving ``context_id``: the one it has, or a new one written now (idempotent)."""
        existing = next((kb for kb, context in self.served().items() if context == context_id), None)
        if existing is not None:
            return existing
        client = self._client()
        for _ in range(_CREATE_ATTEMPTS):
            knowledge_base_id = new_knowledge_base_id()
            try:
                client.put_parameter(
                    Name=f"{self.path}/{knowledge_base_id}",
                    Value=context_id,
                    Type="String",
                    Overwrite=False,
                    Description=f"Bedrock knowledge base id of retrieval context {context_id}",
                )
            except client.exceptions.ParameterAlreadyExists:
                continue
            return knowledge_base_id
        raise RuntimeError(f"no free knowledge base id under {self.path} after {_CREATE_ATTEMPTS} tries")

    def _client(self) -> Any:
        import boto3

        return boto3.client("ssm", region_name=self.region)


def _error_code(error: BaseException | None) -> str | None:
    response = getattr(error, "response", None)
    return response.get("Error", {}).get("Code") if isinstance(response, dict) else None
