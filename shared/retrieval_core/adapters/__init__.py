"""Adapters: the runtime code that talks to OpenSearch and DynamoDB, behind the ports in ``ports.py``.

(The Bedrock embedder lives in ``embedding``; development tools in ``retrieval_dev`` and ``dev`` reach
the local stack directly.)"""
