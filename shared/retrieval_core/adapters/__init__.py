"""Adapters: the only code that talks to OpenSearch, DynamoDB and Bedrock."""
