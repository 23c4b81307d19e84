"""Use cases: what each function does, composed from the router, the policy, packing, graph and lineage.

Services take already-authenticated callers and validated requests; they know nothing of Lambda.
"""
