"""Where the dev stack keeps its state, and the ``.stack/env`` file that tells clients how to reach it.

``.stack/env`` is plain ``KEY=value`` lines so a shell can ``source`` it and tests can read it without
importing the stack's process machinery.
"""

from __future__ import annotations

import secrets
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
STACK_DIR = REPO_ROOT / ".stack"
ENV_FILE = STACK_DIR / "env"

DEFAULT_OPENSEARCH_ENDPOINT = "http://127.0.0.1:9200"
DEFAULT_DYNAMODB_ENDPOINT = "http://127.0.0.1:8000"
DEFAULT_REGION = "us-east-1"

# moto accepts any credentials; fixed fake ones keep boto3 from looking for real ones.
FAKE_AWS_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}


def client_env(opensearch_endpoint: str, dynamodb_endpoint: str) -> dict[str, str]:
    """The variables a process needs to use the stack: endpoints, fake credentials and a region."""
    return {
        "RETRIEVAL_OPENSEARCH_ENDPOINT": opensearch_endpoint,
        "RETRIEVAL_DYNAMODB_ENDPOINT": dynamodb_endpoint,
        **FAKE_AWS_CREDENTIALS,
        "AWS_DEFAULT_REGION": DEFAULT_REGION,
        "AWS_REGION": DEFAULT_REGION,
    }


def paging_key(stack_dir: Path = STACK_DIR) -> str:
    """This stack's key for signing next_tokens: generated at random on first use, kept in ``.stack``
    (a deployment reads its key from an SSM SecureString instead)."""
    path = stack_dir / "paging-key"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def write_env(values: dict[str, str], path: Path = ENV_FILE) -> None:
    """Write ``values`` as ``KEY=value`` lines (atomically, so a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text("".join(f"{key}={value}\n" for key, value in values.items()))
    partial.replace(path)


def read_env(path: Path = ENV_FILE) -> dict[str, str]:
    """Parse a file written by :func:`write_env`; a missing file reads as empty."""
    if not path.is_file():
        return {}
    values = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.lstrip().startswith("#"):
            values[key.strip()] = value.strip()
    return values
