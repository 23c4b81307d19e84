"""The ``Retrieve`` request body as botocore sends it, and our ``RetrieveRequest`` made from it.

Every member of botocore's input shape is named here: those we serve are translated, the others are
refused with a message saying so (never ignored: a guardrail or a reranker the caller asked for and did
not get would be a silent change of meaning). Unknown members are refused too.

``rerankingConfiguration`` becomes our rerank stage (``rerank.method: model``) over the top
``numberOfRerankedResults``, with the one model the deployment is configured for (template parameter
``RerankModel``): a request naming another model, or any model where none is configured, is refused
rather than reranked by something the caller did not choose."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError, field_validator

from ...errors import InvalidRequestError
from ...models.limits import DoorModel
from ...retrieval.requests import Mode, RetrieveRequest
from ...retrieval.rerank import DEFAULT_RERANK_DEPTH, MAX_RERANK_DEPTH
from ..responses import describe_validation
from .filters import translate_filter
from .names import bedrock_message, bedrock_path

DEFAULT_NUMBER_OF_RESULTS = 5
"""Bedrock's default when ``numberOfResults`` is absent."""
SEARCH_TYPES: dict[str, Mode] = {"HYBRID": Mode.HYBRID, "SEMANTIC": Mode.VECTOR}
NO_RERANK_MODEL = "none"
REFUSED = {
    "implicitFilterConfiguration": "implicit (model-generated) filters are not supported; send an explicit "
    "filter.",
    "guardrailConfiguration": "guardrails are not applied by this API; leave guardrailConfiguration out.",
    "image": "image queries are not supported; send retrievalQuery.text.",
    "metadataConfiguration": "reranking reads each result's text only; leave metadataConfiguration out.",
    "additionalModelRequestFields": "additional rerank model request fields are not passed on; leave "
    "additionalModelRequestFields out.",
}
_MODEL_ARN = r"^arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}::foundation-model/(.+)$"


def _refuse(value: Any, name: str) -> None:
    if value is not None:
        raise ValueError(REFUSED[name])


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RerankingModelConfiguration(_Strict):
    modelArn: Annotated[StrictStr, Field(max_length=2048, pattern=_MODEL_ARN)]
    additionalModelRequestFields: dict[str, Any] | None = None

    @field_validator("additionalModelRequestFields")
    @classmethod
    def _unsupported(cls, value: Any, info: Any) -> None:
        if value:  # an empty map asks for nothing
            _refuse(value, info.field_name)

    @property
    def model_id(self) -> str:
        return self.modelArn.split("foundation-model/", 1)[1]


class BedrockRerankingConfiguration(_Strict):
    modelConfiguration: RerankingModelConfiguration
    numberOfRerankedResults: Annotated[StrictInt, Field(ge=1, le=MAX_RERANK_DEPTH)] | None = None
    metadataConfiguration: dict[str, Any] | None = None

    @field_validator("metadataConfiguration")
    @classmethod
    def _unsupported(cls, value: Any, info: Any) -> None:
        _refuse(value, info.field_name)


class RerankingConfiguration(_Strict):
    type: Literal["BEDROCK_RERANKING_MODEL"]
    bedrockRerankingConfiguration: BedrockRerankingConfiguration | None = None

    def options(self, deployment_model: str) -> dict[str, Any]:
        """Our ``rerank`` options, or an ``InvalidRequestError`` when the deployment cannot honour it."""
        if deployment_model == NO_RERANK_MODEL:
            raise InvalidRequestError(
                "retrievalConfiguration.vectorSearchConfiguration.rerankingConfiguration: this deployment "
                "has no rerank model (its RerankModel parameter is none); leave rerankingConfiguration out."
            )
        bedrock = self.bedrockRerankingConfiguration
        if bedrock is not None and bedrock.modelConfiguration.model_id != deployment_model:
            raise InvalidRequestError(
                "retrievalConfiguration.vectorSearchConfiguration.rerankingConfiguration."
                "bedrockRerankingConfiguration.modelConfiguration.modelArn: this deployment reranks with "
                f"{deployment_model}; name that model or leave rerankingConfiguration out."
            )
        depth = bedrock.numberOfRerankedResults if bedrock else None
        return {"method": "model", "depth": depth or DEFAULT_RERANK_DEPTH}


class VectorSearchConfiguration(_Strict):
    numberOfResults: Annotated[StrictInt, Field(ge=1, le=100)] = DEFAULT_NUMBER_OF_RESULTS
    overrideSearchType: Literal["HYBRID", "SEMANTIC"] | None = None
    filter: dict[str, Any] | None = None
    rerankingConfiguration: RerankingConfiguration | None = None
    implicitFilterConfiguration: dict[str, Any] | None = None

    @field_validator("implicitFilterConfiguration")
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


class KnowledgeBaseRetrieveRequest(_Strict, DoorModel):
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


def retrieve_request(body: Any, default_mode: str, rerank_model: str = NO_RERANK_MODEL) -> RetrieveRequest:
    """Our request for a Bedrock request body; an ``InvalidRequestError`` naming Bedrock's fields when
    the body is malformed, asks for what this API does not do, or translates to an invalid request.
    ``rerank_model`` is the deployment's rerank model id (``none`` when it has none)."""
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
        # Bedrock lists results by score, and callers threshold it: the ranking's order, never one
        # interleaved by kind (whose scores would rise where a kind's best moved up).
        "diversify": False,
    }
    if search.filter is not None:
        ours["filter"] = translate_filter(search.filter)
    if search.rerankingConfiguration is not None:
        ours["rerank"] = search.rerankingConfiguration.options(rerank_model)
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
