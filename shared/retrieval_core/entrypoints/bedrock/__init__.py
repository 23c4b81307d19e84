"""Amazon Bedrock Knowledge Bases' ``Retrieve`` (``POST /knowledgebases/{knowledgeBaseId}/retrieve``) as
botocore's service model for ``bedrock-agent-runtime`` describes it: a thin translation in front of the
same ``RetrieveService`` that ``POST /v1/retrieve`` calls, so that unchanged boto3, LangChain and
LlamaIndex code retrieves from these functions by setting ``endpoint_url``."""

RESOURCE = "/knowledgebases/{knowledgeBaseId}/retrieve"
"""The route's resource (API Gateway's spelling); Powertools spells it ``ROUTE``."""
ROUTE = "/knowledgebases/<knowledgeBaseId>/retrieve"
GENERATE_ROUTES = ("/retrieveAndGenerate", "/retrieveAndGenerateStream")
"""``RetrieveAndGenerate`` and its stream: answered, never served (``route.generation_refused``)."""

_KB = "/knowledgebases/{knowledgeBaseId}"
_DS = f"{_KB}/datasources/{{dataSourceId}}"
_JOBS = f"{_DS}/ingestionjobs"
AGENT_OPERATIONS: dict[tuple[str, str], str] = {
    ("POST", "/knowledgebases"): "ListKnowledgeBases",
    ("PUT", "/knowledgebases"): "CreateKnowledgeBase",
    ("GET", _KB): "GetKnowledgeBase",
    ("PUT", _KB): "UpdateKnowledgeBase",
    ("DELETE", _KB): "DeleteKnowledgeBase",
    ("POST", f"{_KB}/datasources"): "ListDataSources",
    ("PUT", f"{_KB}/datasources"): "CreateDataSource",
    ("GET", _DS): "GetDataSource",
    ("PUT", _DS): "UpdateDataSource",
    ("DELETE", _DS): "DeleteDataSource",
    ("PUT", f"{_DS}/documents"): "IngestKnowledgeBaseDocuments",
    ("POST", f"{_DS}/documents"): "ListKnowledgeBaseDocuments",
    ("POST", f"{_DS}/documents/getDocuments"): "GetKnowledgeBaseDocuments",
    ("POST", f"{_DS}/documents/deleteDocuments"): "DeleteKnowledgeBaseDocuments",
    ("PUT", _JOBS): "StartIngestionJob",
    ("POST", _JOBS): "ListIngestionJobs",
    ("GET", f"{_JOBS}/{{ingestionJobId}}"): "GetIngestionJob",
    ("POST", f"{_JOBS}/{{ingestionJobId}}/stop"): "StopIngestionJob",
}
"""``bedrock-agent``'s operations served (or answered with a refusal) by the retrieve function, by
method and API Gateway resource (botocore's request URIs, the trailing '/' of a collection dropped as
API Gateway drops it): ``agent.py`` serves them, imported by the first such request."""
AGENT_RESOURCES = frozenset(resource for _, resource in AGENT_OPERATIONS)
AGENT_WRITES = frozenset(
    {"IngestKnowledgeBaseDocuments", "DeleteKnowledgeBaseDocuments", "StartIngestionJob", "StopIngestionJob"}
)
"""The operations that change a knowledge base: their own IAM grant (docs/BEDROCK.md)."""
