"""Index lifecycle: rebuild an index from the current declaration and embedder, switch over without
downtime, roll back (docs/CLUSTER.md)."""
