"""``retrieval schema``: the item format as JSON Schema, generated from the pydantic models."""

from __future__ import annotations

import argparse
import json


def configure(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(run=run)


def run(_args: argparse.Namespace) -> int:
    from retrieval_core.models.item import Item

    print(json.dumps(Item.model_json_schema(), indent=2))
    return 0
