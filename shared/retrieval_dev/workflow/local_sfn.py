"""Step Functions on this machine: moto's ASL interpreter in a loopback server of this process.

Why in-process and not in the stack's moto server: the interpreter sends a task's Lambda call to the
moto server it runs in, and only this process can answer that with the handlers in-process (see
``lambda_api``). The handlers still use the stack's real OpenSearch node and DynamoDB (moto) server.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from retrieval_core.errors import RetrievalError

from ..project import project_path
from .lambda_api import lambda_invoke_app

DEFINITION = project_path("statemachine/evidence.asl.json")
REGION = "us-east-1"
ACCOUNT = "123456789012"
STATE_MACHINE_NAME = "evidence"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/evidence-workflow"
# The template's DefinitionSubstitutions, filled for this machine (function names are the handlers').
SUBSTITUTIONS = {
    "Partition": "aws",
    "RetrieveFunctionArn": f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:retrieve",
    "GraphPathFunctionArn": f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:graph_path",
    "WhyExplainFunctionArn": f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:why_explain",
}
POLL_SECONDS = 0.05
TIMEOUT_SECONDS = 120.0


class WorkflowError(RetrievalError):
    """The local workflow could not be set up or did not finish."""


@dataclass(frozen=True)
class Execution:
    """A finished execution: its status, and its output or its error and cause."""

    arn: str
    status: str
    output: Any | None
    error: str | None
    cause: str | None


def local_definition(path: Path = DEFINITION) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise WorkflowError(f"cannot read {path}: {error} (run from the repository root)") from None
    for name, value in SUBSTITUTIONS.items():
        text = text.replace("${" + name + "}", value)
    return text


def _quiet_servers() -> None:
    """The request log and the interpreter's internal tracebacks say nothing an execution's status,
    error, cause and history do not."""
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    logging.getLogger("moto.stepfunctions.parser").setLevel(logging.CRITICAL)


class LocalStepFunctions:
    """``with LocalStepFunctions() as sfn: sfn.run({...})``: the evidence state machine, ready to run."""

    def __init__(self, definition: Path = DEFINITION) -> None:
        self._definition = local_definition(definition)
        self._server: Any = None
        self._previous_port: str | None = None

    def __enter__(self) -> LocalStepFunctions:
        import boto3
        from moto.core.config import default_user_config
        from moto.moto_server.werkzeug_app import (
            DomainDispatcherApplication,
            MotoRequestHandler,
            create_backend_app,
        )
        from werkzeug.serving import make_server

        _quiet_servers()
        default_user_config["stepfunctions"] = {"execute_state_machine": True}
        moto_app = DomainDispatcherApplication(create_backend_app)
        self._server = make_server(
            "127.0.0.1", 0, lambda_invoke_app(moto_app), threaded=True, request_handler=MotoRequestHandler
        )
        port = self._server.server_port
        # The interpreter calls services at localhost:$MOTO_PORT: this server.
        self._previous_port = os.environ.get("MOTO_PORT")
        os.environ["MOTO_PORT"] = str(port)
        threading.Thread(target=self._server.serve_forever, name="local-sfn", daemon=True).start()
        self.client = boto3.client(
            "stepfunctions",
            endpoint_url=f"http://127.0.0.1:{port}",
            region_name=REGION,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        self.state_machine_arn = self.client.create_state_machine(
            name=STATE_MACHINE_NAME, definition=self._definition, roleArn=ROLE_ARN
        )["stateMachineArn"]
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._previous_port is None:
            os.environ.pop("MOTO_PORT", None)
        else:
            os.environ["MOTO_PORT"] = self._previous_port

    def run(self, workflow_input: dict[str, Any], name: str | None = None) -> Execution:
        """Start an execution and wait for it to finish."""
        arn = self.client.start_execution(
            stateMachineArn=self.state_machine_arn,
            name=name or f"run-{uuid.uuid4().hex[:12]}",
            input=json.dumps(workflow_input),
        )["executionArn"]
        return self.wait(arn)

    def wait(self, arn: str) -> Execution:
        """Wait for a started execution to finish."""
        deadline = time.monotonic() + TIMEOUT_SECONDS
        while (described := self.client.describe_execution(executionArn=arn))["status"] == "RUNNING":
            if time.monotonic() > deadline:
                self.client.stop_execution(executionArn=arn)
                raise WorkflowError(f"execution {arn} did not finish within {TIMEOUT_SECONDS:.0f}s")
            time.sleep(POLL_SECONDS)
        output = described.get("output")
        return Execution(
            arn=arn,
            status=described["status"],
            output=None if output is None else json.loads(output),
            error=described.get("error"),
            cause=described.get("cause"),
        )

    def history(self, execution_arn: str) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        for page in self.client.get_paginator("get_execution_history").paginate(executionArn=execution_arn):
            events += page["events"]
        return events
