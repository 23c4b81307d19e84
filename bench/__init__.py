"""``make bench``: a reproducible corpus at a chosen scale, loaded into the local stack, then measured.

Every latency claim is a ratio taken in the same run against a baseline (raw opensearch-py, a naive
client, a bare ``import boto3``) and a median over repeated runs, because the machines are shared and
noisy. ``python -m bench --help`` lists the options; docs/PERFORMANCE.md explains each measurement.
"""
