"""rebuild: rebuild indices from inside the VPC (a deployed domain has no laptop next to it), as
``retrieval rebuild`` does locally: the same use case, ``lifecycle.rebuild.RebuildService``.

Invoked directly (``aws lambda invoke``) with ``{"context_id": "acme"}`` or ``{"all": true}``, plus
``"reembed": true`` or ``"rollback": true``. Progress goes to the log; the answer lists every alias moved.
A failure raises, so the invocation counts as an error (and alarms); the alias still names its old index.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pydantic import ValidationError
from retrieval_core.bootstrap import container
from retrieval_core.entrypoints.instruments import Instruments
from retrieval_core.errors import InvalidRequestError
from retrieval_core.lifecycle.requests import RebuildRequest

tools = Instruments.create()


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    tools.count("RebuildInvocations")
    try:
        request = RebuildRequest.model_validate(event)
    except ValidationError as error:
        refused = InvalidRequestError(error.errors(include_url=False, include_input=False)[0]["msg"])
        return tools.refused(refused, "a rebuild request")
    service = container().rebuilder(tools.logger.info)
    if request.rollback:
        switches = service.rollback(request.context_id)
    else:
        switches = service.rebuild(request.context_id, reembed=request.reembed)
    tools.count("IndicesSwitched", len(switches))
    return {"statusCode": 200, "body": {"switches": [asdict(switch) for switch in switches]}}


lambda_handler = tools.wrap(handle)
