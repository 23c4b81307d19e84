"""Every limit on what callers send and what is stored, declared once.

Request bounds (``TOP_K_RANGE`` and the like) are clamped, not rejected, and every response reports the
values it applied. A count is read as JSON Schema reads integers (``WHOLE``): ``3.0`` is the integer 3
(a number whose fraction is zero), so a request the published schema calls valid is not refused for
spelling a count with ``.0``; a bool is still never a number, and ``3.5`` is still no integer.

Storage limits (``StorageLimits``) are enforced wherever data comes in (the API, ``retrieval load``, the
ingest function, direct invocations): a line or request past one is rejected with its field and the
limit, and nothing else of the load is lost. Each number's reason is its field description; docs/API.md
and docs/STORAGE.md ("Limits") list them, and a unit test holds the docs to them.

Strings (``DoorModel``, ``Text``): what every string that enters the product must be, checked once at
the door: valid Unicode (JSON's ``\\ud800`` escapes can spell lone surrogates, which no encoder, store
or index takes), free of NUL (a C string's end in more than one backend library) and at most a line's
size. ``DoorModel`` checks every string of its input, keys and values at any depth, before its fields
are read, so a request or item model that derives from it covers a field it adds without saying so;
``Text`` is the same check for one string that arrives on its own (a header, a path parameter).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

TOP_K_RANGE = (1, 100)
DEPTH_RANGE = (1, 5)
PATHS_RANGE = (1, 5)
MAX_ITEM_ID_CHARS = 512
MAX_REQUEST_INT = 2**31 - 1
"""No integer a caller sends may exceed this: clamped fields accept anything up to it, and nothing
larger reaches a backend (DynamoDB numbers have 38 digits) or Python's integer-string limit."""

LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024
"""Lambda's limit on a synchronous invocation's response (and so on an API answer)."""
FLOAT32_MAX = 3.4028234663852886e38
"""The largest finite float32: vectors and ``float`` fields (``confidence``) are stored as float32."""


class StorageLimits(BaseModel):
    """What one item, one line and one ingested object may hold, and what one answer may carry."""

    # A model for its field descriptions (the docs quote them); its validator is built only when limits
    # are given (tests), not for ``LIMITS``, whose defaults need no checking.
    model_config = ConfigDict(frozen=True, defer_build=True)

    line_bytes: int = Field(
        default=1024 * 1024,
        description="A line's size, checked before it is decoded: the largest valid item (text, "
        "metadata, links and a 4,096-value vector) is well under it, and nothing larger is ever parsed.",
    )
    json_depth: int = Field(
        default=32,
        description="Nesting levels of a line (and of a request body): the item format needs 4; deeper "
        "JSON only exhausts the parser's stack.",
    )
    integer_digits: int = Field(
        default=19,
        description="Digits of any integer in a line: a 64-bit long (OpenSearch) has 19; longer ones "
        "are refused before Python converts them.",
    )
    text_bytes: int = Field(
        default=64 * 1024,
        description="An item's text (UTF-8): a hybrid request reads up to 2 x 300 sources (the "
        "thorough preset), so one request holds at most about 40 MiB of text in the node's heap and "
        "in the function's memory.",
    )
    metadata_keys: int = Field(default=64, description="Keys of an item's metadata.")
    metadata_bytes: int = Field(
        default=8 * 1024,
        description="An item's metadata as JSON: it is stored and answered with every hit, and every "
        "value is one keyword term (Lucene refuses terms over 32 KiB).",
    )
    mentions: int = Field(
        default=32,
        description="Mentions of an item: a proposition writes an edge row per ordered pair of its "
        "entities, m x (m - 1), so 32 mentions write at most 992 rows.",
    )
    links: int = Field(
        default=64,
        description="Entries of each of source_ids, grounding, supersedes and contradicts: each "
        "writes one DynamoDB row.",
    )
    hit_fields_bytes: int = Field(
        default=16 * 1024,
        description="What a hit carries besides its text (mentions, provenance, metadata) as JSON: with "
        "hit_text_bytes it bounds a hit, so top_k hits fit response_bytes.",
    )
    embedding_dimension: int = Field(
        default=4096,
        description="Values of a given embedding (they must also match the index's dimension): larger "
        "than any current embedding model; a 4,096-value vector is 16 KiB in the index.",
    )
    response_bytes: int = Field(
        default=5 * 1024 * 1024,
        description="What the hits of one answer may carry: under Lambda's 6 MB response limit, with "
        "room for the receipt, paging and a context packet.",
    )
    hit_text_bytes: int = Field(
        default=32 * 1024,
        description="A hit's text as JSON in an answer; a longer text is cut (the hit says "
        "truncated: true). 100 hits x (32 KiB + 16 KiB of other fields) stay under response_bytes.",
    )
    pool_metadata_keys: int = Field(
        default=100,
        description="Distinct undeclared metadata keys one context may use in the pool model: each is a "
        "field of the shared index's mapping, so no tenant can fill it for the others.",
    )
    pool_total_fields: int = Field(
        default=10_000,
        description="The pool index's field limit (OpenSearch's default is 1,000): room for 100 "
        "contexts at their full key budget; keys of the same name are one field for all contexts.",
    )
    object_bytes: int = Field(
        default=5 * 1024**3,
        description="An ingested object as stored: S3's single-PUT maximum; upload more as several "
        "objects (they also load in parallel).",
    )
    decompressed_bytes: int = Field(
        default=8 * 1024**3,
        description="An ingested object's content after gunzip: bounds the first pass that splits a "
        "gzip object into plain parts.",
    )
    decompression_ratio: int = Field(
        default=100,
        description="Decompressed / compressed size of a gzip object (checked past the first MiB): "
        "JSON Lines compress 5-15 times; more is padding or a decompression bomb.",
    )
    part_min_bytes: int = Field(
        default=256 * 1024,
        description="A part of an ingested object holds IngestPartLines items, and at least this many "
        "bytes: blank or tiny lines cannot multiply parts (at most object size / this many parts).",
    )
    part_max_bytes: int = Field(
        default=16 * 1024 * 1024,
        description="A part holds at most this many bytes (plus one line), whatever its line count: "
        "what one invocation reads into its 2,048 MB.",
    )

    @property
    def max_parts(self) -> int:
        """At most this many parts per object, whatever its lines."""
        return -(-self.decompressed_bytes // self.part_min_bytes)


LIMITS = StorageLimits.model_construct()


def clamp(value: int, bounds: tuple[int, int]) -> int:
    low, high = bounds
    return max(low, min(high, value))


def _whole(value: Any) -> Any:
    # Any whole float, however far out: the field's own bounds then refuse it in JSON Schema's words
    # (or, for a count without a lower bound, it is clamped like the integer it spells).
    if type(value) is float and value.is_integer():
        return int(value)
    return value


WHOLE = BeforeValidator(_whole)
"""Put it after a ``StrictInt``'s bounds (``Annotated[StrictInt, Field(le=...), WHOLE]``), so that the
bounds stay JSON Schema's ``maximum``/``exclusiveMinimum``."""


MAX_STRING_CHARS = LIMITS.line_bytes
"""No string is longer than the largest line the loader reads (each field has its own, smaller, bound)."""


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot enter the product, or None."""
    if len(value) > MAX_STRING_CHARS:
        return f"is longer than {MAX_STRING_CHARS} characters"
    if "\x00" in value:
        return "holds a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a lone surrogate (not valid Unicode)"
    return None


_SCALARS = frozenset({int, float, bool, type(None)})


def first_problem(value: Any) -> tuple[str, str] | None:
    """The path (``filter.all_of[0].eq.value``) and problem of the first string in ``value`` (keys and
    values, at any depth) that cannot enter; None when all can. Walked without recursion."""
    pending: list[tuple[str, Any]] = [("", value)]
    while pending:
        path, node = pending.pop()
        if isinstance(node, str):
            problem = text_problem(node)
            if problem is not None:
                return path or "(value)", problem
        elif isinstance(node, dict):
            for key, child in node.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and (problem := text_problem(key)) is not None:
                    return f"{path or '(value)'} key", problem
                pending.append((where, child))
        elif isinstance(node, list | tuple):
            # A number holds no string: a vector's components get no path spelled and no check each.
            pending.extend(
                (f"{path}[{n}]", child) for n, child in enumerate(node) if type(child) not in _SCALARS
            )
    return None


def _checked_text(value: str) -> str:
    problem = text_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


Text = Annotated[str, AfterValidator(_checked_text)]


class DoorModel(BaseModel):
    """A model whose input's every string is checked (``first_problem``) before any field is read."""

    @model_validator(mode="before")
    @classmethod
    def _every_string_holdable(cls, data: Any) -> Any:
        found = first_problem(data)
        if found is not None:
            raise PydanticCustomError(
                "unholdable_string", "{path}: {problem}", {"path": found[0], "problem": found[1]}
            )
        return data
