"""Amazon Bedrock Knowledge Bases' ``Retrieve`` (``POST /knowledgebases/{knowledgeBaseId}/retrieve``) as
botocore's service model for ``bedrock-agent-runtime`` describes it: a thin translation in front of the
same ``RetrieveService`` that ``POST /v1/retrieve`` calls, so that unchanged boto3, LangChain and
LlamaIndex code retrieves from these functions by setting ``endpoint_url``."""

RESOURCE = "/knowledgebases/{knowledgeBaseId}/retrieve"
"""The route's resource (API Gateway's spelling); Powertools spells it ``ROUTE``."""
ROUTE = "/knowledgebases/<knowledgeBaseId>/retrieve"
GENERATE_ROUTES = ("/retrieveAndGenerate", "/retrieveAndGenerateStream")
"""``RetrieveAndGenerate`` and its stream: answered, never served (``route.generation_refused``)."""
