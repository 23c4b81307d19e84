"""The ``Retrieve`` request body as botocore sends it, and our ``RetrieveRequest`` made from it.

Every member of botocore's input shape is named here: those we serve are translated, the others are
refused with a message saying so (never ignored: a guardrail or a reranker the caller asked for and did
not get would be a silent change of meaning). Unknown members are refused too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError, field_validator

from ...errors import InvalidRequestError
from ...retrieval.requests import Mode, RetrieveRequest
from ..responses import describe_validation
from .filters import translate_filter
from .names import bedrock_message, bedrock_path

DEFAULT_NUMBER_OF_RESULTS = 5
"""Bedrock's default when ``numberOfResults`` is absent."""
SEARCH_TYPES: dict[str, Mode] = {"HYBRID": Mode.HYBRID, "SEMANTIC": Mode.VECTOR}
REFUSED = {
    "rerankingConfiguration": "reranking is not available on this API; leave rerankingConfiguration out "
    "(results are ranked by reciprocal rank fusion of the lexical and vector arms).",
    "implicitFilterConfiguration": "implicit (model-generated) filters are not supported; send an explicit "
    "filter.",
    "guardrailConfiguration": "guardrails are not applied by this API; leave guardrailConfiguration out.",
    "image": "image queries are not supported; send retrievalQuery.text.",
}


def _refuse(value: Any, name: str) -> None:
    if value is not None:
        raise ValueError(REFUSED[name])


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class VectorSearchConfiguration(_Strict):
    numberOfResults: Annotated[StrictInt, Field(ge=1, le=100)] = DEFAULT_NUMBER_OF_RESULTS
    overrideSearchType: Literal["HYBRID", "SEMANTIC"] | None = None
    filter: dict[str, Any] | None = None
    rerankingConfiguration: dict[str, Any] | None = None
    implicitFilterConfiguration: dict[str, Any] | None = None

    @field_validator("rerankingConfiguration", "implicitFilterConfiguration")
    @classmethod
    def _unsupported(cls, value: Any, info: Any) -> None:
        _refuse(value, info.field_name)


class RetrievalConfiguration(_Strict):
    vectorSearchConfiguration: VectorSearchConfiguration


class RetrievalQuery(_Strict):
    text: StrictStr
    type: Literal["TEXT"] | None = None
    image: dict[str, Any] | None = None

    @field_validator("image")
    @classmethod
    def _unsupported(cls, value: Any, info: Any) -> None:
        _refuse(value, info.field_name)


class KnowledgeBaseRetrieveRequest(_Strict):
    """The body of ``POST /knowledgebases/{knowledgeBaseId}/retrieve`` (botocore's ``RetrieveRequest``
    less the path's ``knowledgeBaseId``)."""

    retrievalQuery: RetrievalQuery
    retrievalConfiguration: RetrievalConfiguration | None = None
    nextToken: Annotated[str, Field(min_length=1, max_length=2048, pattern=r"^\S*$")] | None = None
    guardrailConfiguration: dict[str, Any] | None = None

    @field_validator("guardrailConfiguration")
    @classmethod
    def _unsupported(cls, value: Any, info: Any) -> None:
        _refuse(value, info.field_name)


def retrieve_request(body: Any, default_mode: str) -> RetrieveRequest:
    """Our request for a Bedrock request body; an ``InvalidRequestError`` naming Bedrock's fields when
    the body is malformed, asks for what this API does not do, or translates to an invalid request."""
    try:
        bedrock = KnowledgeBaseRetrieveRequest.model_validate(body)
    except ValidationError as error:
        raise _invalid(error.errors(), spell=str) from None
    configuration = bedrock.retrievalConfiguration
    search = configuration.vectorSearchConfiguration if configuration else VectorSearchConfiguration()
    mode = SEARCH_TYPES[search.overrideSearchType] if search.overrideSearchType else Mode(default_mode)
    ours: dict[str, Any] = {
        "mode": mode,
        "text": bedrock.retrievalQuery.text,
        "top_k": search.numberOfResults,
    }
    if search.filter is not None:
        ours["filter"] = translate_filter(search.filter)
    if bedrock.nextToken is not None:
        ours["next_token"] = bedrock.nextToken
    try:
        return RetrieveRequest.model_validate(ours)
    except ValidationError as error:
        raise _invalid(error.errors(), spell=bedrock_path) from None


def _invalid(errors: list[Any], spell: Callable[[str], str]) -> InvalidRequestError:
    fields = describe_validation(errors)["fields"]
    return InvalidRequestError(
        "; ".join(f"{spell(f['field'])}: {bedrock_message(f['message'])}" for f in fields)
    )
