"""Generated Markdown pages that name each other (``sync-scale``): each page has a title of two or three
made-up words, a few paragraphs of filler, and names a handful of other pages' titles in its text (a
realistic link density: about one link per 40 words, as encyclopaedia pages have), some pages before it
and some after it, so back-links are exercised in both directions. Everything comes from ``seed``."""

from __future__ import annotations

import random
from pathlib import Path

SYLLABLES = (
    "ka", "lo", "ven", "dra", "mir", "sol", "tur", "bel", "qua", "ris", "den", "mor", "fal", "gan", "hel",
    "jor", "nim", "pex", "rud", "sav", "tol", "ulm", "var", "wen", "yst", "zor", "cam", "dov", "eth", "fir",
)  # fmt: skip
FILLER = (
    "the", "river", "council", "built", "a", "bridge", "over", "valley", "in", "spring", "when", "traders",
    "came", "from", "north", "with", "salt", "and", "wool", "later", "records", "show", "harbour", "grew",
    "its", "market", "road", "was", "paved", "stone", "during", "reign", "of", "old", "town", "hall",
)  # fmt: skip
PARAGRAPHS = (3, 6)
"""Paragraphs per page (a few chunks each at the default chunking)."""
SENTENCES = (3, 6)
LINKS_PER_SENTENCE = 0.45
"""Chance a sentence names another page."""


def titles(count: int, seed: int) -> list[str]:
    """``count`` distinct capitalised titles of two or three made-up words."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < count:
        words = [
            "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
            for _ in range(rng.choice((2, 2, 3)))
        ]
        seen.setdefault(" ".join(words), None)
    return list(seen)


def page(title: str, others: list[str], rng: random.Random) -> str:
    paragraphs = []
    for _ in range(rng.randint(*PARAGRAPHS)):
        sentences = []
        for _ in range(rng.randint(*SENTENCES)):
            words = [rng.choice(FILLER) for _ in range(rng.randint(10, 18))]
            if rng.random() < LINKS_PER_SENTENCE:
                words.insert(rng.randrange(len(words) + 1), rng.choice(others))
            sentence = " ".join(words)
            sentences.append(sentence[0].upper() + sentence[1:] + ".")
        paragraphs.append(" ".join(sentences))
    return f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"


def texts(count: int, seed: int) -> dict[str, str]:
    """``count`` pages by file name (sorted names keep the generation order)."""
    rng = random.Random(seed + 1)
    names = titles(count, seed)
    return {f"page-{n:06d}.md": page(title, names, rng) for n, title in enumerate(names)}


def write(folder: Path, count: int, seed: int) -> dict[str, str]:
    """The pages written under ``folder``; returns them by file name."""
    folder.mkdir(parents=True, exist_ok=True)
    pages = texts(count, seed)
    for name, text in pages.items():
        (folder / name).write_text(text)
    return pages
