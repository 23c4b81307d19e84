"""Pydantic models: the stored item schema (``item``) and the API request/response shapes."""
