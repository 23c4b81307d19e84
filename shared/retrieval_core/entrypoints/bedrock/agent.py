"""Serving ``bedrock-agent``'s operations (``AGENT_OPERATIONS``) as botocore's service model describes
them: who is calling and in which knowledge base, the body validated, the operation run, the answer
(or the error, ``x-amzn-ErrorType`` and ``{"message"}``) as botocore parses it.

Who: an event with an IAM identity (SigV4; API Gateway has checked the caller's policy against this
method and path, writes being their own grant) acts in the context the path's knowledge base serves;
behind the authorizer, the claims must list it, and writes are refused. A knowledge base id no context
is served as, or that the claims do not list, is ``ResourceNotFoundException``, one and the same
answer; so is an unknown data source, document id, job id, or another listing's ``nextToken``.

Imported by the first such request (``api.resolve``), never by a ``POST /v1/retrieve``."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import unquote

from pydantic import BaseModel, ValidationError

from ...bootstrap import container
from ...errors import ForbiddenError, InvalidRequestError
from ...knowledge_bases import catalog
from ...knowledge_bases.catalog import Deployment, KnowledgeBaseNotFoundError, ServedKnowledgeBase
from ...knowledge_bases.requests import (
    DocumentsRequest,
    IngestRequest,
    ListJobsRequest,
    ListRequest,
    StartJobRequest,
)
from ..responses import describe_validation
from ..wire import parse_json
from . import AGENT_OPERATIONS, AGENT_WRITES
from .caller import knowledge_base_caller
from .errors import ERROR_TYPE_HEADER, bedrock_error

DEV_ACCOUNT = "000000000000"
"""The account an event without one (``retrieval serve``) is in."""
NO_WRITES_BEHIND_CLAIMS = (
    "Documents and ingestion jobs are written with IAM (SigV4) credentials granted the write "
    "operations of this knowledge base, not behind the API's authorizer."
)


class AgentRequest:
    """One request: its operation, body and path, the knowledge base it names (once authorized) and
    what the deployment is."""

    def __init__(self, operation: str, event: Mapping[str, Any]) -> None:
        self.operation = operation
        self.event = event
        self.path = {k: unquote(str(v)) for k, v in (event.get("pathParameters") or {}).items()}
        self.body = _body(event.get("body"))
        settings = container().settings
        account = (event.get("requestContext") or {}).get("accountId") or DEV_ACCOUNT
        self.deployment = Deployment(
            region=settings.aws_region,
            account=str(account),
            bucket=settings.ingest_bucket,
            embedding_model=settings.bedrock_model_id
            if settings.embedder == "bedrock"
            else "local.all-MiniLM-L6-v2",
            dimension=settings.embedding_dimension,
            role_arn=settings.knowledge_base_role_arn,
        )

    def knowledge_base(self) -> ServedKnowledgeBase:
        """The knowledge base the path names, as the caller may use it; ``KnowledgeBaseNotFoundError``
        for one that serves no context or is not the caller's, ``ForbiddenError`` for no caller."""
        request_context = self.event.get("requestContext") or {}
        principal = (request_context.get("identity") or {}).get("userArn")
        claims = request_context.get("authorizer")
        if not claims and not principal:
            raise ForbiddenError("No authority granted this knowledge base.")
        knowledge_base_id = self.path.get("knowledgeBaseId", "")
        settings = container().settings
        try:
            caller = knowledge_base_caller(
                self.event,
                knowledge_base_id,
                settings.context_claim,
                container().knowledge_bases.context_of,
                settings.aws_region,
            )
        except ForbiddenError:
            raise KnowledgeBaseNotFoundError() from None
        if claims and self.operation in AGENT_WRITES:
            raise ForbiddenError(NO_WRITES_BEHIND_CLAIMS)
        return ServedKnowledgeBase(knowledge_base_id, caller.context.context_id)

    def data_source(self) -> tuple[ServedKnowledgeBase, str]:
        """The knowledge base and the data source id the path names (one of ours, else not found)."""
        served = self.knowledge_base()
        data_source_id = self.path.get("dataSourceId", "")
        if data_source_id not in catalog.DATA_SOURCE_IDS:
            raise KnowledgeBaseNotFoundError("data source")
        return served, data_source_id


Operation = Callable[[AgentRequest], tuple[int, dict[str, Any]]]


def serve_agent(event: Mapping[str, Any], logger: logging.Logger | Any) -> dict[str, Any]:
    """The proxy response to one ``bedrock-agent`` request."""
    method, resource = str(event.get("httpMethod")), str(event.get("resource"))
    operation = AGENT_OPERATIONS[(method, resource)]
    try:
        status, body = OPERATIONS.get(operation, _not_served)(AgentRequest(operation, event))
        headers = {"Content-Type": "application/json"}
    except Exception as error:
        status, error_headers, body = bedrock_error(error, logger)
        headers = {"Content-Type": "application/json", **error_headers}
        if status == 403:
            body = {"message": ACCESS_DENIED_MESSAGE}
    return {
        "statusCode": status,
        "headers": headers,
        "body": json.dumps(body, default=_timestamp),
        "isBase64Encoded": False,
    }


ACCESS_DENIED_MESSAGE = "You are not authorized to perform this operation on this knowledge base."


Model = TypeVar("Model", bound=BaseModel)


def checked(model: type[Model], body: dict[str, Any]) -> Model:
    """``body`` as ``model``; ``InvalidRequestError`` naming each member that is wrong."""
    try:
        return model.model_validate(body)
    except ValidationError as error:
        fields = describe_validation(error.errors())["fields"]
        raise InvalidRequestError("; ".join(f"{f['field']}: {f['message']}" for f in fields)) from None


def _timestamp(value: object) -> str:
    """botocore's timestamps: ISO 8601 in UTC."""
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    raise TypeError(f"{type(value).__name__} is not JSON")


def _body(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        parsed = parse_json(text)
    except json.JSONDecodeError as error:
        raise InvalidRequestError(f"the body is not valid JSON: {error.msg}") from None
    if not isinstance(parsed, dict):
        raise InvalidRequestError("the body must be a JSON object.")
    return parsed


MANAGED_ELSEWHERE = frozenset(
    {
        "CreateKnowledgeBase",
        "UpdateKnowledgeBase",
        "DeleteKnowledgeBase",
        "CreateDataSource",
        "UpdateDataSource",
        "DeleteDataSource",
    }
)


def _not_served(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    """Create, update and delete of knowledge bases and data sources: a refusal saying where they are
    managed, before anything is read (and so for any operation not served yet)."""
    if request.operation in MANAGED_ELSEWHERE:
        raise InvalidRequestError(f"{request.operation} is not served here. {catalog.MANAGED_ELSEWHERE}")
    raise InvalidRequestError(f"{request.operation} is not served by this deployment yet.")


def _get_knowledge_base(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    return 200, {"knowledgeBase": catalog.knowledge_base(request.deployment, request.knowledge_base())}


def _list_knowledge_bases(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    """The knowledge bases listed for the calling IAM principal that serve a context (docs/BEDROCK.md);
    one page holds them all (a principal is listed a few)."""
    checked(ListRequest, request.body)
    principal = ((request.event.get("requestContext") or {}).get("identity") or {}).get("userArn")
    if not principal:
        return 200, {"knowledgeBaseSummaries": []}
    directory = container().knowledge_bases
    served = [
        ServedKnowledgeBase(knowledge_base_id, context_id)
        for knowledge_base_id in sorted(set(directory.granted_to(str(principal))))
        if (context_id := directory.context_of(knowledge_base_id)) is not None
    ]
    return 200, {
        "knowledgeBaseSummaries": [catalog.knowledge_base_summary(request.deployment, kb) for kb in served]
    }


def _get_data_source(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served, data_source_id = request.data_source()
    return 200, {"dataSource": catalog.data_source(request.deployment, served, data_source_id)}


def _list_data_sources(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served = request.knowledge_base()
    checked(ListRequest, request.body)
    return 200, {"dataSourceSummaries": catalog.data_source_summaries(request.deployment, served)}


def _ingest_documents(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served, data_source_id = request.data_source()
    body = checked(IngestRequest, request.body)
    details = container().knowledge_base_documents.ingest(served, data_source_id, body)
    return 202, {"documentDetails": details}


def _get_documents(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served, data_source_id = request.data_source()
    body = checked(DocumentsRequest, request.body)
    if body.clientToken is not None:
        raise InvalidRequestError("clientToken: GetKnowledgeBaseDocuments takes none.")
    details = container().knowledge_base_documents.get(served, data_source_id, body.documentIdentifiers)
    return 200, {"documentDetails": details}


def _list_documents(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served, data_source_id = request.data_source()
    body = checked(ListRequest, request.body)
    details, token = container().knowledge_base_documents.listing(
        served, data_source_id, body.maxResults, body.nextToken
    )
    return 200, {"documentDetails": details, **({"nextToken": token} if token else {})}


def _delete_documents(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served, data_source_id = request.data_source()
    body = checked(DocumentsRequest, request.body)
    details = container().knowledge_base_documents.delete(
        served, data_source_id, body.documentIdentifiers, body.clientToken
    )
    return 202, {"documentDetails": details}


def _start_job(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served, data_source_id = request.data_source()
    body = checked(StartJobRequest, request.body)
    return 202, {"ingestionJob": container().ingestion_jobs.start(served, data_source_id, body)}


def _get_job(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served, data_source_id = request.data_source()
    job_id = request.path.get("ingestionJobId", "")
    return 200, {"ingestionJob": container().ingestion_jobs.get(served, data_source_id, job_id)}


def _list_jobs(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served, data_source_id = request.data_source()
    body = checked(ListJobsRequest, request.body)
    jobs, token = container().ingestion_jobs.listing(served, data_source_id, body)
    return 200, {"ingestionJobSummaries": jobs, **({"nextToken": token} if token else {})}


def _stop_job(request: AgentRequest) -> tuple[int, dict[str, Any]]:
    served, data_source_id = request.data_source()
    job_id = request.path.get("ingestionJobId", "")
    return 202, {"ingestionJob": container().ingestion_jobs.stop(served, data_source_id, job_id)}


OPERATIONS: dict[str, Operation] = {
    "StartIngestionJob": _start_job,
    "GetIngestionJob": _get_job,
    "ListIngestionJobs": _list_jobs,
    "StopIngestionJob": _stop_job,
    "IngestKnowledgeBaseDocuments": _ingest_documents,
    "GetKnowledgeBaseDocuments": _get_documents,
    "ListKnowledgeBaseDocuments": _list_documents,
    "DeleteKnowledgeBaseDocuments": _delete_documents,
    "GetKnowledgeBase": _get_knowledge_base,
    "ListKnowledgeBases": _list_knowledge_bases,
    "GetDataSource": _get_data_source,
    "ListDataSources": _list_data_sources,
}
"""The operations served; every other one of ``AGENT_OPERATIONS`` is refused (``_not_served``)."""


__all__ = ["ERROR_TYPE_HEADER", "serve_agent"]
