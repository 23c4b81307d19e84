"""Context packets: a retrieval's own hits packed into a budget the caller's prompt can hold.

``pack_hits`` never re-scores, re-orders or re-searches; README.md in this folder explains the
guarantees and what ``max_tokens`` means for callers whose model uses another tokenizer.
"""

# Import the submodules (options, packet, packer): a retrieve that asks for no packet must not import
# the packer and its token counting on its cold start.
