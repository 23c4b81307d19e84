"""What the retrieve function's import leaves for later. A fresh interpreter imports
``functions/retrieve/app.py`` as Lambda does (the function's environment, its directory first on the
path) and reports what it loaded and built. Structure only, never a timing (docs/PERFORMANCE.md, "What
the retrieve function's import leaves out").
"""

from __future__ import annotations

import json
import os

import pytest
from retrieval_dev.cli.lambda_runtime import lambda_environment

from tests.processes import REPO, python

SERVED_ELSEWHERE_MODULES = (
    # The Knowledge Bases route's serving code: its first request imports it.
    "retrieval_core.entrypoints.bedrock.serve",
    "retrieval_core.entrypoints.bedrock.request",
    "retrieval_core.entrypoints.bedrock.answers",
    "retrieval_core.entrypoints.bedrock.errors",
    "retrieval_core.entrypoints.bedrock.caller",
    "retrieval_core.entrypoints.bedrock.filters",
    # Lineage cards: only why_explain reads them.
    "retrieval_core.models.lineage",
)
UNBUILT_MODELS = (
    "retrieval_core.entrypoints.bedrock.shapes.KnowledgeBaseRetrieveResponse",
    "retrieval_core.entrypoints.bedrock.shapes.RetrievalResult",
    "retrieval_core.entrypoints.bedrock.shapes.ErrorMessage",
    "retrieval_core.policy.state.SessionView",
    "retrieval_core.policy.state.SessionSource",
    "retrieval_core.entrypoints.direct.DirectInvocation",
    "retrieval_core.models.limits.StorageLimits",
)
"""Named in the import (a route's OpenAPI responses, a return annotation, ``LIMITS``) but validated only
by another route, a direct invocation or a test: ``defer_build`` builds them on first use."""

_REPORT = """
import importlib, json, pkgutil, sys
sys.path.insert(0, {function_dir!r})
import app
import pydantic
loaded = sorted(sys.modules)
unbuilt = []
for name in {unbuilt!r}:
    module, _, model = name.rpartition(".")
    if not getattr(sys.modules[module], model).__pydantic_complete__:
        unbuilt.append(name)
import retrieval_core
for info in pkgutil.walk_packages(retrieval_core.__path__, "retrieval_core."):
    importlib.import_module(info.name)
def models(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from models(sub)
builtin_factories = sorted(
    f"{{model.__module__}}.{{model.__qualname__}}.{{field}}"
    for model in set(models(pydantic.BaseModel)) if model.__module__.startswith("retrieval_core.")
    for field, info in model.__pydantic_fields__.items()
    if info.default_factory in (list, dict, set, frozenset)
)
print(json.dumps({{"loaded": loaded, "unbuilt": unbuilt, "builtin_factories": builtin_factories}}))
"""


@pytest.fixture(scope="module")
def report() -> dict[str, list[str]]:
    code = _REPORT.format(function_dir=str(REPO / "functions" / "retrieve"), unbuilt=UNBUILT_MODELS)
    env = {**os.environ, **lambda_environment("retrieve")}
    result: dict[str, list[str]] = json.loads(python(code, env=env).stdout.strip().splitlines()[-1])
    return result


def test_the_retrieve_import_leaves_other_routes_serving_code_out(report: dict[str, list[str]]) -> None:
    assert sorted(set(SERVED_ELSEWHERE_MODULES) & set(report["loaded"])) == []
    assert "retrieval_core.entrypoints.bedrock.route" in report["loaded"]  # the route itself is registered


def test_models_other_paths_validate_are_not_built_by_the_import(report: dict[str, list[str]]) -> None:
    assert report["unbuilt"] == list(UNBUILT_MODELS)


def test_no_model_takes_a_builtin_type_as_default_factory(report: dict[str, list[str]]) -> None:
    # Pydantic tokenizes a builtin's text signature to read it; models.vocabulary has the functions.
    assert report["builtin_factories"] == []


FIRST_AUTO_REQUEST_MODULES = ("retrieval_core.retrieval.auto", "retrieval_core.understanding.reading")
"""Reading a question: the first auto request imports it, not a container serving another mode."""


def test_the_ranking_a_retrieve_container_builds_leaves_reading_a_question_to_auto() -> None:
    code = (
        "import sys\n"
        "from retrieval_core.bootstrap import Container\n"
        "from retrieval_core.config import Settings\n"
        "Container(Settings()).ranking  # every mode's arms, as a container's first request builds them\n"
        f"print([m for m in {FIRST_AUTO_REQUEST_MODULES!r} if m in sys.modules])\n"
    )
    assert python(code).stdout.strip().splitlines()[-1] == "[]"
