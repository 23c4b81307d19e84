"""retrieval_dev: development tooling around the runtime package (the ``retrieval`` CLI, the local
API server and Lambda emulator, evaluation and benchmarks helpers).

Installed in the dev venv only; the Lambda layer ships ``retrieval_core`` alone.
"""
