"""``retrieval mcp``: the functions as Model Context Protocol tools, on the official ``mcp`` SDK.

``tools`` says what each tool is and turns a call into an API request; ``backends`` sends that request
(in-process to the handlers, or over HTTP to a deployed API); ``server`` speaks MCP over stdio or
streamable HTTP. The context is never a tool argument: it comes from the token given at start-up.
"""
