"""Retrieval: the retrieve use case, its request and response, the router that maps modes to
capabilities, fusion and the retrieval policy's config presets."""
