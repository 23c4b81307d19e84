"""`retrieval serve`'s containers (retrieval_dev.serving.containers): each invocation runs in a worker
process of its own interpreter, one caller at a time keeps reusing one warm container, concurrent callers
get one each, and a container that dies is answered 502 by the gateway and replaced."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from retrieval_dev.serving.containers import FunctionContainers, FunctionCrashedError
from retrieval_dev.serving.gateway import Gateway, Request
from retrieval_dev.serving.routes import CRASHED_FUNCTION_BODY
from retrieval_dev.serving.server import ServeLimits


def which_container(function: str, event: dict[str, Any]) -> dict[str, Any]:
    """The container's pid; with ``hold`` in the event's body, only once that file exists (another
    caller holds the first container meanwhile); with ``crash``, the container dies instead."""
    body = json.loads(event.get("body") or "{}")
    if body.get("crash"):
        os._exit(1)
    if hold := body.get("hold"):
        ready, release = Path(hold + ".ready"), Path(hold)
        ready.touch()
        while not release.exists():
            os.sched_yield()  # spinning on a file the test creates, not timing anything
    return {"statusCode": 200, "body": json.dumps({"pid": os.getpid(), "function": function})}


def proxied(**body: object) -> dict[str, Any]:
    return {"body": json.dumps(body)}


@pytest.fixture
def containers() -> Any:
    pool = FunctionContainers(2, run=which_container)
    yield pool
    pool.close()


def test_one_caller_at_a_time_reuses_one_warm_container_in_another_process(
    containers: FunctionContainers,
) -> None:
    async def one_by_one() -> list[int]:
        answers = [await containers.invoke("retrieve", {}) for _ in range(3)]
        return [json.loads(answer["body"])["pid"] for answer in answers]

    first, *rest = asyncio.run(one_by_one())
    assert first != os.getpid()
    assert rest == [first, first]


def test_concurrent_callers_get_a_container_each(containers: FunctionContainers, tmp_path: Path) -> None:
    hold = str(tmp_path / "release")

    async def both() -> list[dict[str, Any]]:
        held = asyncio.ensure_future(containers.invoke("retrieve", proxied(hold=hold)))
        while not Path(hold + ".ready").exists():
            await asyncio.sleep(0)  # yields to the loop until the first container is busy
        other = await containers.invoke("retrieve", {})  # answered while the first is still held
        Path(hold).touch()
        return [await held, other]

    held, other = (json.loads(answer["body"])["pid"] for answer in asyncio.run(both()))
    assert held != other


def test_a_container_that_dies_is_replaced() -> None:
    containers = FunctionContainers(1, run=which_container)
    try:

        async def crash_then_call() -> tuple[type[BaseException] | None, dict[str, Any]]:
            try:
                await containers.invoke("retrieve", proxied(crash=True))
            except FunctionCrashedError as error:
                crashed: type[BaseException] | None = type(error)
            else:
                crashed = None
            return crashed, await containers.invoke("retrieve", {})

        crashed, after = asyncio.run(crash_then_call())
    finally:
        containers.close()
    assert crashed is FunctionCrashedError
    assert after["statusCode"] == 200


def test_the_gateway_answers_a_dead_container_502_and_leaks_nothing() -> None:
    gateway = Gateway(ServeLimits(), functions=FunctionContainers(1, run=which_container))
    request = Request(
        "POST", "/v1/retrieve", {"Authorization": "Bearer dev:acme"}, json.dumps({"crash": True})
    )
    try:
        answer = asyncio.run(gateway.dispatch(request))
    finally:
        gateway.close()
    assert answer.status == 502
    assert json.loads(answer.body) == CRASHED_FUNCTION_BODY
