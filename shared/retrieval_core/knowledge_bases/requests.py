"""The bodies of ``bedrock-agent``'s served operations, as botocore's input shapes bound them (lengths,
patterns, enums): a body outside them is a ``ValidationException`` naming the member, before anything
is read or written. Unknown members are refused, as Bedrock refuses them. A member Bedrock accepts and
this API does not apply (document access control lists) is refused saying so, never ignored."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

CLIENT_TOKEN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,256}$"
NEXT_TOKEN = Annotated[str, Field(min_length=1, max_length=2048, pattern=r"^\S*$")]
MAX_INLINE_BYTES = 5_242_880
"""Bedrock's bound on inline content (5 MiB), text or bytes."""
NO_ACCESS_CONTROL = (
    "document access control lists are not applied by this API (a knowledge base is one context's: "
    "every caller granted it reads every document); leave accessControlList out."
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Union = TypeVar("Union", bound=BaseModel)


def _given_by(model: Union, wanted: str, members: tuple[str, ...], what: str) -> Union:
    """``model`` when, of ``members`` (botocore's union), exactly ``wanted`` is set, as its type asks."""
    if getattr(model, wanted) is None or any(getattr(model, m) is not None for m in members if m != wanted):
        raise ValueError(f"{what} is given by '{wanted}' alone")
    return model


class ListRequest(_Strict):
    maxResults: Annotated[StrictInt, Field(ge=1, le=1000)] | None = None
    nextToken: NEXT_TOKEN | None = None


class S3Location(_Strict):
    uri: Annotated[StrictStr, Field(min_length=1, max_length=2048, pattern=r"^s3://.{1,2040}$")]
    bucketOwnerAccountId: Annotated[StrictStr, Field(pattern=r"^[0-9]{12}$")] | None = None


class CustomIdentifier(_Strict):
    id: Annotated[StrictStr, Field(min_length=1, max_length=2048)]


class DocumentIdentifier(_Strict):
    dataSourceType: Literal["CUSTOM", "S3"]
    custom: CustomIdentifier | None = None
    s3: S3Location | None = None

    @model_validator(mode="after")
    def _one_of_its_type(self) -> DocumentIdentifier:
        wanted = "custom" if self.dataSourceType == "CUSTOM" else "s3"
        return _given_by(self, wanted, ("custom", "s3"), f"a {self.dataSourceType} document's identifier")


class AttributeValue(_Strict):
    type: Literal["BOOLEAN", "NUMBER", "STRING", "STRING_LIST"]
    numberValue: StrictFloat | StrictInt | None = None
    booleanValue: StrictBool | None = None
    stringValue: Annotated[StrictStr, Field(min_length=1, max_length=2048)] | None = None
    stringListValue: (
        Annotated[list[Annotated[StrictStr, Field(min_length=1)]], Field(min_length=1, max_length=10)] | None
    ) = None

    @model_validator(mode="after")
    def _value_of_its_type(self) -> AttributeValue:
        member = {
            "BOOLEAN": "booleanValue",
            "NUMBER": "numberValue",
            "STRING": "stringValue",
            "STRING_LIST": "stringListValue",
        }[self.type]
        set_members = [
            name for name in type(self).model_fields if name != "type" and getattr(self, name) is not None
        ]
        if set_members != [member]:
            raise ValueError(f"a {self.type} value is given by '{member}' alone")
        return self


class MetadataAttribute(_Strict):
    key: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    value: AttributeValue


class DocumentMetadata(_Strict):
    type: Literal["IN_LINE_ATTRIBUTE", "S3_LOCATION"]
    inlineAttributes: Annotated[list[MetadataAttribute], Field(min_length=1, max_length=50)] | None = None
    s3Location: S3Location | None = None
    accessControlList: list[Any] | None = None

    @field_validator("accessControlList")
    @classmethod
    def _unsupported(cls, value: Any) -> None:
        if value is not None:
            raise ValueError(NO_ACCESS_CONTROL)

    @model_validator(mode="after")
    def _one_of_its_type(self) -> DocumentMetadata:
        wanted = "inlineAttributes" if self.type == "IN_LINE_ATTRIBUTE" else "s3Location"
        return _given_by(self, wanted, ("inlineAttributes", "s3Location"), f"{self.type} metadata")


class TextContent(_Strict):
    data: Annotated[StrictStr, Field(min_length=1, max_length=MAX_INLINE_BYTES)]


class ByteContent(_Strict):
    mimeType: Annotated[StrictStr, Field(pattern=r"^.*[a-z]{1,20}/.{1,20}.*$", max_length=255)]
    data: Annotated[StrictStr, Field(min_length=1, max_length=MAX_INLINE_BYTES * 4 // 3 + 4)]
    """Base64, as rest-json carries a blob."""


class InlineContent(_Strict):
    type: Literal["BYTE", "TEXT"]
    byteContent: ByteContent | None = None
    textContent: TextContent | None = None

    @model_validator(mode="after")
    def _one_of_its_type(self) -> InlineContent:
        wanted = "textContent" if self.type == "TEXT" else "byteContent"
        return _given_by(self, wanted, ("textContent", "byteContent"), f"{self.type} inline content")


class CustomContent(_Strict):
    customDocumentIdentifier: CustomIdentifier
    sourceType: Literal["IN_LINE", "S3_LOCATION"]
    s3Location: S3Location | None = None
    inlineContent: InlineContent | None = None

    @model_validator(mode="after")
    def _one_of_its_type(self) -> CustomContent:
        wanted = "inlineContent" if self.sourceType == "IN_LINE" else "s3Location"
        return _given_by(self, wanted, ("inlineContent", "s3Location"), f"{self.sourceType} content")


class S3Content(_Strict):
    s3Location: S3Location


class DocumentContent(_Strict):
    dataSourceType: Literal["CUSTOM", "S3"]
    custom: CustomContent | None = None
    s3: S3Content | None = None

    @model_validator(mode="after")
    def _one_of_its_type(self) -> DocumentContent:
        wanted = "custom" if self.dataSourceType == "CUSTOM" else "s3"
        return _given_by(self, wanted, ("custom", "s3"), f"{self.dataSourceType} content")


class KnowledgeBaseDocument(_Strict):
    content: DocumentContent
    metadata: DocumentMetadata | None = None


class IngestRequest(_Strict):
    documents: Annotated[list[KnowledgeBaseDocument], Field(min_length=1, max_length=10)]
    clientToken: Annotated[StrictStr, Field(min_length=33, max_length=256, pattern=CLIENT_TOKEN)] | None = (
        None
    )


class DocumentsRequest(_Strict):
    """``GetKnowledgeBaseDocuments`` and ``DeleteKnowledgeBaseDocuments``."""

    documentIdentifiers: Annotated[list[DocumentIdentifier], Field(min_length=1, max_length=10)]
    clientToken: Annotated[StrictStr, Field(min_length=33, max_length=256, pattern=CLIENT_TOKEN)] | None = (
        None
    )


class StartJobRequest(_Strict):
    clientToken: Annotated[StrictStr, Field(min_length=33, max_length=256, pattern=CLIENT_TOKEN)] | None = (
        None
    )
    description: Annotated[StrictStr, Field(min_length=1, max_length=200)] | None = None


class JobFilter(_Strict):
    attribute: Literal["STATUS"]
    operator: Literal["EQ"]
    values: Annotated[list[Annotated[StrictStr, Field(max_length=100)]], Field(max_length=10)]


class JobSort(_Strict):
    attribute: Literal["STATUS", "STARTED_AT"]
    order: Literal["ASCENDING", "DESCENDING"]


class ListJobsRequest(ListRequest):
    filters: Annotated[list[JobFilter], Field(min_length=1, max_length=1)] | None = None
    sortBy: JobSort | None = None
