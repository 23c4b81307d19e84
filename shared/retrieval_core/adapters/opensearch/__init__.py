"""OpenSearch adapter: index design, query builders and the store that implements the search ports."""
