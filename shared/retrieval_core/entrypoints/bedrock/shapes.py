"""botocore's output shapes for ``Retrieve``: the answer (``RetrieveResponse``) and every error body.

The route names them in its OpenAPI ``responses``, so they exist when the retrieve function is imported;
their validators and serialisers are built on first use instead (``defer_build``): a Knowledge Bases
answer or the OpenAPI document, never a ``POST /v1/retrieve``, the request a cold start mostly serves.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue


class _Shape(BaseModel):
    model_config = ConfigDict(defer_build=True)


class TextContent(_Shape):
    type: Literal["TEXT"] = "TEXT"
    text: str


class S3Location(_Shape):
    uri: str


class CustomDocumentLocation(_Shape):
    id: str


class ResultLocation(_Shape):
    """``S3`` where the item is grounded in an ``s3://`` object, otherwise ``CUSTOM`` with the item id."""

    type: Literal["S3", "CUSTOM"]
    s3Location: S3Location | None = None
    customDocumentLocation: CustomDocumentLocation | None = None


class RetrievalResult(_Shape):
    content: TextContent
    location: ResultLocation
    score: float = Field(
        ge=0,
        le=1,
        description="The hit's calibrated relevance (/v1/retrieve's hit.relevance): never rises down the "
        "list; 0.4 keeps 95% of the relevant results of a top 10 on the development collections.",
    )
    metadata: dict[str, JsonValue] = Field(
        description="The item's metadata, Bedrock's x-amz-bedrock-kb-chunk-id (and source-uri), and "
        "x-retrieval-* fields: id, kind, status, created-at, confidence, signals, found-by, source-ids, "
        "entity-ids, supersedes."
    )


class KnowledgeBaseRetrieveResponse(_Shape):
    """botocore's ``RetrieveResponse`` for ``bedrock-agent-runtime`` (``guardrailAction`` never set)."""

    retrievalResults: list[RetrievalResult]
    nextToken: str | None = Field(default=None, description="Send it back for the next page.")


class ErrorMessage(_Shape):
    """Every error body; the code is the ``x-amzn-ErrorType`` header (``ValidationException``...)."""

    message: str
