"""Secrets from SSM Parameter Store, for the runtime (the paging key) and the sample authorizer (its
signing secret): one client, with a bounded worst case, and one way to read a SecureString.

Reads go through Powertools Parameters, which caches each value for the ``max_age`` the caller gives
(the authorizer picks up a rotated secret within it). The client is built once per container with short
timeouts and two attempts (``SSM_BUDGET_SECONDS``), so an unreachable SSM costs a request a denial or a
503 in time, never the function's timeout.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from ..errors import BackendUnavailableError

log = logging.getLogger(__name__)

SSM_CONNECT_TIMEOUT_SECONDS = 0.5
SSM_READ_TIMEOUT_SECONDS = 0.8
SSM_ATTEMPTS = 2
SSM_BUDGET_SECONDS = 4.0
"""The worst case of one read: attempts x (connect + read) plus the standard mode's backoff (under 1 s
for the one retry); below the authorizer's Timeout of 5 s."""


@cache
def ssm_provider(region: str | None = None) -> Any:
    """The container's SSM provider (in ``region``; None: the environment's): bounded timeouts and
    attempts, so a read fits SSM_BUDGET_SECONDS."""
    from aws_lambda_powertools.utilities.parameters import SSMProvider
    from botocore.config import Config

    return SSMProvider(
        boto_config=Config(
            region_name=region,
            connect_timeout=SSM_CONNECT_TIMEOUT_SECONDS,
            read_timeout=SSM_READ_TIMEOUT_SECONDS,
            retries={"mode": "standard", "total_max_attempts": SSM_ATTEMPTS},
        )
    )


def secure_string(name: str, *, max_age_seconds: int, region: str | None = None) -> str:
    """The decrypted value of the SecureString ``name``, read again once ``max_age_seconds`` have passed
    since the last read; a failed read is ``BackendUnavailableError`` (its cause to the log only)."""
    from aws_lambda_powertools.utilities.parameters import GetParameterError

    try:
        return str(ssm_provider(region).get(name, decrypt=True, max_age=max_age_seconds))
    except GetParameterError as error:
        log.warning("ssm GetParameter failed: %s", type(error.__cause__ or error).__name__)
        raise BackendUnavailableError("ssm GetParameter failed") from error
