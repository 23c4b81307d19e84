"""The ranking's stages: each one small unit that takes a typed value and returns a ``Step`` (the value
it made and what it applied). ``retrieval.pipeline`` declares their order."""
