"""A deterministic two-context sample corpus (``acme`` fintech, ``globex`` logistics) for the demo and tests.

``generate`` writes ``corpus.jsonl`` from the declarative worlds; ``known`` names the facts the data was
built to exhibit (paths, lineage, supersession, name collisions, lexical targets).
"""
