"""Bedrock Knowledge Bases' control and document plane (``bedrock-agent``) over our contexts: each context
served as a knowledge base (``models.knowledge_bases``) has two data sources, its custom documents and
its S3 prefix (``catalog``); documents written through the API are files of the ingest pipeline
(``documents``), and an ingestion job syncs the prefix (``jobs``). Nothing here knows Lambda or boto3."""
