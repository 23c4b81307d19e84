"""The entity graph: shortest paths between two entities (``graph_path``) and the breadth-first walk the
arms use for ``graph_walk`` and hybrid graph expansion. Works only through the GraphTraversal and
ItemReader ports."""

# Import the submodules (models, path, service, walk): the retrieve function needs only the walk, and
# importing the package must not build graph_path's request and response schemas on its cold start.
