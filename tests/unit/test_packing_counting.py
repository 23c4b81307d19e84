"""The length counter: real cl100k_base tokens from the bundled file, no network, chars as fallback."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from retrieval_core.packing.counting import CHAR_COUNTER, counter_for, token_counter
from retrieval_core.packing.options import PackOptions

from tests.processes import python


def _run(script: str, tmp_path: Path) -> dict:
    """Run ``script`` in a fresh interpreter (so nothing is loaded yet) and parse its JSON output."""
    done = python(textwrap.dedent(script), env={"TIKTOKEN_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"})
    return json.loads(done.stdout)


def test_token_counter_counts_cl100k_base_tokens() -> None:
    counter = token_counter()
    assert counter.unit == "tokens:cl100k_base"
    assert counter.count("hello world") == 2
    assert counter.count("tiktoken is great!") == 6
    assert counter.count("") == 0


def test_special_token_text_is_counted_as_plain_text() -> None:
    assert token_counter().count("<|endoftext|>") > 1


def test_encoding_is_loaded_once_per_process() -> None:
    assert token_counter() is token_counter()


def test_max_chars_always_counts_code_points() -> None:
    counter = counter_for(PackOptions(max_chars=10))
    assert counter is CHAR_COUNTER
    assert counter.count("e\u0301👍🏽") == 4


def test_tokens_load_from_the_bundled_file_with_the_network_cut_off(tmp_path: Path) -> None:
    result = _run(
        """
        import json, socket
        def refuse(*args, **kwargs):
            raise OSError("network is off in this test")
        socket.socket.connect = refuse
        socket.getaddrinfo = refuse
        import tiktoken.load
        read = []
        original = tiktoken.load.read_file
        def recording(path):
            read.append(path)
            return original(path)
        tiktoken.load.read_file = recording
        from retrieval_core.packing.counting import token_counter
        counter = token_counter()
        print(json.dumps({"unit": counter.unit, "n": counter.count("hello world"), "read": read}))
        """,
        tmp_path,
    )
    assert result["unit"] == "tokens:cl100k_base"
    assert result["n"] == 2
    assert len(result["read"]) == 1
    assert "://" not in result["read"][0]
    assert result["read"][0].endswith("tiktoken_ext/data/cl100k_base.tiktoken")


def test_without_tiktoken_max_tokens_falls_back_to_chars_and_says_so(tmp_path: Path) -> None:
    result = _run(
        """
        import json, sys
        sys.modules["tiktoken"] = None  # makes 'import tiktoken' raise ImportError
        from retrieval_core.packing.options import PackOptions
        from retrieval_core.packing.packer import pack_hits
        packet = pack_hits([], {}, PackOptions(max_tokens=100), "anything")
        print(json.dumps({"unit": packet.unit, "used": packet.used, "text": packet.text}))
        """,
        tmp_path,
    )
    assert result["unit"] == "chars"
    assert result["used"] == len(result["text"])
