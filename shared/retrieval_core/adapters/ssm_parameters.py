"""Secrets from SSM Parameter Store, read once per container."""

from __future__ import annotations

from functools import cache

from ..aws import aws_failures


@cache
def secure_string(name: str, region: str) -> str:
    """The decrypted value of the SecureString ``name`` (the Lambda runtime provides boto3)."""
    import boto3

    with aws_failures("ssm", "GetParameter"):
        parameter = boto3.client("ssm", region_name=region).get_parameter(Name=name, WithDecryption=True)
    value: str = parameter["Parameter"]["Value"]
    return value
