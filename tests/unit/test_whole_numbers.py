"""Every count a retrieve request takes, at any depth, accepts a whole float as JSON Schema does
(``2.0`` is the integer 2): found field by field by walking the models, so a count added later is
covered without a test of its own (schemathesis found ``fusion.rank_constant`` refusing ``2.0``)."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

import annotated_types
import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from retrieval_core.packing.options import PackOptions
from retrieval_core.retrieval.requests import RetrieveRequest

BASES: dict[type[BaseModel], dict[str, Any]] = {
    RetrieveRequest: {"mode": "hybrid", "text": "x"},
}
"""What each model needs besides the field tried (a packet needs one budget: given below)."""


def _flattened(annotation: Any) -> Iterator[Any]:
    yield annotation
    for argument in typing.get_args(annotation):
        yield from _flattened(argument)


def _counts(
    model: type[BaseModel], seen: set[type[BaseModel]]
) -> Iterator[tuple[type[BaseModel], str, FieldInfo]]:
    """Each (model, field) whose value may be an integer (a bare count, not a float-or-integer score)."""
    seen.add(model)
    for name, field in model.model_fields.items():
        types = list(_flattened(field.annotation))
        if int in types and float not in types and bool not in types:
            yield model, name, field
        for nested in types:
            if isinstance(nested, type) and issubclass(nested, BaseModel) and nested not in seen:
                yield from _counts(nested, seen)


def _lowest(field: FieldInfo) -> int:
    """The least integer the field takes (its bounds may sit on the field or inside its annotation)."""
    metadata = [
        *field.metadata,
        *(m for a in _flattened(field.annotation) for m in getattr(a, "__metadata__", ())),
    ]
    for bound in metadata:
        if isinstance(bound, annotated_types.Ge):
            return int(bound.ge)
        if isinstance(bound, annotated_types.Gt):
            return int(bound.gt) + 1
        if isinstance(bound, FieldInfo):
            for inner in bound.metadata:
                if isinstance(inner, annotated_types.Ge):
                    return int(inner.ge)
                if isinstance(inner, annotated_types.Gt):
                    return int(inner.gt) + 1
    return 1


COUNTS = list(_counts(RetrieveRequest, set()))


def test_the_walk_finds_the_counts_it_is_about() -> None:
    found = {f"{model.__name__}.{name}" for model, name, _ in COUNTS}
    assert {"RetrieveRequest.top_k", "FusionOptions.rank_constant", "FeedbackOptions.docs"} <= found


@pytest.mark.parametrize(("model", "name", "field"), COUNTS, ids=[f"{m.__name__}.{n}" for m, n, _ in COUNTS])
def test_every_count_accepts_a_whole_float_and_refuses_a_fraction(
    model: type[BaseModel], name: str, field: FieldInfo
) -> None:
    value = _lowest(field) + 1
    base = BASES.get(model, {})
    if model is PackOptions and name != "max_tokens":
        base = {"max_tokens": 100} if name != "max_chars" else {}
    assert getattr(model.model_validate({**base, name: float(value)}), name) == value
    with pytest.raises(ValueError):
        model.model_validate({**base, name: value + 0.5})
