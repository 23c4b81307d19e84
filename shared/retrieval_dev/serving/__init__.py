"""The local HTTP front of the functions: ``retrieval serve`` (API Gateway's stand-in) and ``retrieval mcp
--http``, on uvicorn. ``server`` hardens uvicorn (deadlines, per-client connection limits, idle
timeouts); ``routes`` turns a request into the REST proxy event API Gateway would send; ``gateway`` is the
ASGI app that reads a request, dispatches it (one place) and replies as API Gateway would."""
