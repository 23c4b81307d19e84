"""Driving adapters: turning Lambda events (API Gateway, direct invocations) into calls on the services.

This is the only part of the package that knows about Lambda event shapes and Powertools.
"""
