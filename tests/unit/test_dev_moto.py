"""The dev stack's moto builds an item with one size check (``dev.moto_faithful``): it must accept and
refuse exactly the items moto's own attribute-by-attribute check does, at the 400 KB limit too."""

from __future__ import annotations

from typing import Any

import pytest
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item

from dev.moto_faithful import ITEM_SIZE_LIMIT, _item_sized_once


def _attrs(filler: int) -> dict[str, Any]:
    """A row of the loader's shape (keys, a number, a list, a map) with a string of ``filler`` bytes."""
    return {
        "pk": {"S": "ctx#entity"},
        "sk": {"S": "edge#1"},
        "weight": {"N": "0.75"},
        "sources": {"L": [{"S": "doc-1"}, {"S": "doc-2"}]},
        "meta": {"M": {"kind": {"S": "mention"}, "n": {"N": "3"}}},
        "text": {"S": "é" * (filler // 2)},
    }


def _accepted(init: Any, attrs: dict[str, Any]) -> bool:
    item = Item.__new__(Item)
    try:
        init(item, DynamoType(attrs["pk"]), DynamoType(attrs["sk"]), attrs)
    except ItemSizeTooLarge:
        return False
    return True


@pytest.mark.parametrize("filler", [0, 1_000, ITEM_SIZE_LIMIT - 200, ITEM_SIZE_LIMIT - 60, ITEM_SIZE_LIMIT])
def test_the_bench_item_accepts_and_refuses_what_moto_does(filler: int) -> None:
    attrs = _attrs(filler)
    assert _accepted(_item_sized_once, attrs) == _accepted(Item.__init__, attrs)


def test_the_limit_is_reached_inside_the_sample() -> None:
    """The sample straddles the limit: one side accepted, the other refused (else the test above proves
    nothing about the boundary)."""
    assert _accepted(Item.__init__, _attrs(ITEM_SIZE_LIMIT - 200))
    assert not _accepted(Item.__init__, _attrs(ITEM_SIZE_LIMIT))


def test_the_bench_item_keeps_every_attribute() -> None:
    attrs = _attrs(10)
    mine, theirs = Item.__new__(Item), Item.__new__(Item)
    key = DynamoType(attrs["pk"]), DynamoType(attrs["sk"])
    _item_sized_once(mine, *key, attrs)
    Item.__init__(theirs, *key, attrs)
    assert mine == theirs and mine.to_json() == theirs.to_json()


def _handler() -> Any:
    from dev.moto_serialized import FaultsOnlyRequestHandler

    handler = FaultsOnlyRequestHandler.__new__(FaultsOnlyRequestHandler)
    handler.command, handler.path, handler.request_version = "POST", "/", "HTTP/1.1"
    handler.requestline, handler.client_address = "POST / HTTP/1.1", ("127.0.0.1", 5000)
    return handler


@pytest.mark.parametrize(("code", "logged"), [(200, False), (400, False), (500, True), (503, True)])
def test_the_dev_server_logs_a_request_only_when_it_failed_it(
    code: int, logged: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """A line per request was a tenth of moto's CPU in a sync; a server fault is still in the log."""
    with caplog.at_level("INFO", logger="werkzeug"):
        _handler().log_request(code, 10)
    lines = [record.getMessage() for record in caplog.records]  # the request line may be styled (ANSI)
    assert any("POST / HTTP/1.1" in line and f'" {code} 10' in line for line in lines) is logged


def test_the_dev_server_lists_motos_services_once_and_answers_as_moto_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from moto import backends

    from dev.moto_serialized import list_moto_modules_once

    listed = list(backends.list_of_moto_modules())
    monkeypatch.setattr(backends, "list_of_moto_modules", backends.list_of_moto_modules)  # restored after
    list_moto_modules_once()
    assert list(backends.list_of_moto_modules()) == listed
    assert "dynamodb" in backends.list_of_moto_modules() and "s3" in backends.list_of_moto_modules()
