"""Adapters: the runtime code that talks to OpenSearch, DynamoDB, S3, SQS, SSM and Bedrock Rerank,
behind the ports in ``ports.py`` (reads and the loader's writes), ``ingest/ports.py`` and
``lifecycle/ports.py``.

(The Bedrock embedder lives in ``embedding``; development tools in ``retrieval_dev`` and ``dev`` reach
the local stack directly.)"""
