"""PackOptions validation: strict positive budgets, exactly one of them, errors located at the field."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError
from retrieval_core.packing.options import PackOptions


class _Request(BaseModel):
    """Stands in for the retrieve request, so error locations read as the handler will report them."""

    pack: PackOptions


def test_a_count_spelled_with_a_zero_fraction_is_that_integer() -> None:
    """JSON Schema (and so the published schema) calls 3.0 an integer: it is accepted as 3."""
    options = _Request.model_validate({"pack": {"max_tokens": 300.0, "max_items": 3.0}}).pack
    assert (options.max_tokens, options.max_items) == (300, 3)
    assert type(options.max_tokens) is int


def _errors(pack: object) -> list[tuple[tuple[str | int, ...], str]]:
    with pytest.raises(ValidationError) as caught:
        _Request.model_validate({"pack": pack})
    return [(error["loc"], error["msg"]) for error in caught.value.errors()]


@pytest.mark.parametrize("field", ["max_tokens", "max_chars", "max_items"])
@pytest.mark.parametrize("bad", [True, False, 2.5, 0, -1, 0.0, "5", [5]])
def test_counts_must_be_strict_positive_ints(field: str, bad: object) -> None:
    pack = {field: bad} if field != "max_items" else {"max_tokens": 100, field: bad}
    errors = _errors(pack)
    assert [loc for loc, _ in errors] == [("pack", field)]


def test_both_budgets_are_rejected_at_max_tokens() -> None:
    [(loc, message)] = _errors({"max_tokens": 100, "max_chars": 400})
    assert loc == ("pack", "max_tokens")
    assert "not both" in message


def test_a_missing_budget_is_rejected_at_max_tokens() -> None:
    [(loc, message)] = _errors({"shape": "brief"})
    assert loc == ("pack", "max_tokens")
    assert "max_chars" in message


def test_a_bad_max_chars_is_reported_once_even_beside_max_tokens() -> None:
    assert _errors({"max_tokens": 100, "max_chars": 0}) == [
        (("pack", "max_chars"), "Input should be greater than 0")
    ]


def test_unknown_shape_and_fields_and_non_bool_compress_are_rejected() -> None:
    locs = {loc for loc, _ in _errors({"max_tokens": 10, "shape": "essay", "compress": 1, "colour": "x"})}
    assert locs == {("pack", "shape"), ("pack", "compress"), ("pack", "colour")}


def test_valid_options_expose_the_one_budget_and_its_field() -> None:
    tokens = PackOptions(max_tokens=2000)
    chars = PackOptions.model_validate_json('{"max_chars": 800, "max_items": 5, "shape": "brief"}')
    assert (tokens.budget, tokens.budget_field, tokens.shape, tokens.compress) == (
        2000,
        "pack.max_tokens",
        "passages",
        False,
    )
    assert (chars.budget, chars.budget_field, chars.max_items) == (800, "pack.max_chars", 5)


def test_json_fractions_are_rejected_and_whole_floats_read_as_integers() -> None:
    with pytest.raises(ValidationError):
        PackOptions.model_validate_json('{"max_tokens": 3.5}')
    assert PackOptions.model_validate_json('{"max_tokens": 3.0}').max_tokens == 3
