"""The bodies of ``bedrock-agent``'s served operations, as botocore's input shapes bound them (lengths,
patterns, enums): a body outside them is a ``ValidationException`` naming the member, before anything
is read or written. Unknown members are refused, as Bedrock refuses them. A member Bedrock accepts and
this API does not apply (document access control lists) is refused saying so, never ignored."""

from __future__ import annotations

from typing import Annotated, Any, Literal

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
        if getattr(self, wanted) is None or getattr(self, "s3" if wanted == "custom" else "custom"):
            raise ValueError(f"a {self.dataSourceType} document is identified by '{wanted}' alone")
        return self


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
        inline = self.type == "IN_LINE_ATTRIBUTE"
        if inline and (self.inlineAttributes is None or self.s3Location is not None):
            raise ValueError("IN_LINE_ATTRIBUTE metadata is given by 'inlineAttributes' alone")
        if not inline and (self.s3Location is None or self.inlineAttributes is not None):
            raise ValueError("S3_LOCATION metadata is given by 's3Location' alone")
        return self


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
        wanted, other = (
            ("textContent", "byteContent") if self.type == "TEXT" else ("byteContent", "textContent")
        )
        if getattr(self, wanted) is None or getattr(self, other) is not None:
            raise ValueError(f"{self.type} inline content is given by '{wanted}' alone")
        return self


class CustomContent(_Strict):
    customDocumentIdentifier: CustomIdentifier
    sourceType: Literal["IN_LINE", "S3_LOCATION"]
    s3Location: S3Location | None = None
    inlineContent: InlineContent | None = None

    @model_validator(mode="after")
    def _one_of_its_type(self) -> CustomContent:
        inline = self.sourceType == "IN_LINE"
        if inline and (self.inlineContent is None or self.s3Location is not None):
            raise ValueError("IN_LINE content is given by 'inlineContent' alone")
        if not inline and (self.s3Location is None or self.inlineContent is not None):
            raise ValueError("S3_LOCATION content is given by 's3Location' alone")
        return self


class S3Content(_Strict):
    s3Location: S3Location


class DocumentContent(_Strict):
    dataSourceType: Literal["CUSTOM", "S3"]
    custom: CustomContent | None = None
    s3: S3Content | None = None

    @model_validator(mode="after")
    def _one_of_its_type(self) -> DocumentContent:
        wanted, other = ("custom", "s3") if self.dataSourceType == "CUSTOM" else ("s3", "custom")
        if getattr(self, wanted) is None or getattr(self, other) is not None:
            raise ValueError(f"{self.dataSourceType} content is given by '{wanted}' alone")
        return self


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
