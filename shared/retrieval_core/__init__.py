"""retrieval_core: the package the Lambda layer ships.

Domain code (retrieval, policy, packing, graph, lineage) depends only on the ports in
``retrieval_core.ports``; adapters for OpenSearch and DynamoDB live in ``retrieval_core.adapters``.
"""

__version__ = "0.1.0"
