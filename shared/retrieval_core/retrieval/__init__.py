"""Retrieval: the retrieve use case, its request and response, the ranking pipeline and its stages, the
router that maps modes to their arms, fusion and the retrieval config's presets."""
