"""Context packets: a retrieval's own hits packed into a budget the caller's prompt can hold.

``pack_hits`` never re-scores, re-orders or re-searches; README.md in this folder explains the
guarantees and what ``max_tokens`` means for callers whose model uses another tokenizer.
"""

from .errors import PacketHeaderTooLargeError, SourceIdMissingError
from .options import PackOptions
from .packer import pack_hits
from .packet import ContextPacket, DroppedItem, PackedItem

__all__ = [
    "ContextPacket",
    "DroppedItem",
    "PackOptions",
    "PackedItem",
    "PacketHeaderTooLargeError",
    "SourceIdMissingError",
    "pack_hits",
]
