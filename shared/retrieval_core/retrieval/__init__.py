"""Retrieval: the retrieve use case, its request and response, the ranking pipeline and its stages, the
arms that serve each mode, fusion and the retrieval config's presets."""
