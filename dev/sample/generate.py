"""Build the sample corpus from the worlds and write ``dev/sample/corpus.jsonl``.

Run ``python -m dev.sample.generate`` to rewrite the file. The output is deterministic (fixed seed, one
RNG per context), so the committed file only changes when a world or a family changes; the unit tests
fail if the committed file is out of date.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

from retrieval_core.errors import RetrievalError
from retrieval_core.models.item import Grounding, Item, Kind, Mention, Status

from . import families, world_acme, world_globex
from .spec import Entity, Spec, World

SEED = 20260301
WORLDS: tuple[World, ...] = (world_acme.WORLD, world_globex.WORLD)
CORPUS_PATH = Path(__file__).with_name("corpus.jsonl")
FIRST_MOMENT = datetime(2025, 6, 1, tzinfo=UTC)
LAST_MOMENT = datetime(2026, 5, 31, 18, 0, tzinfo=UTC)
REQUEST_TRACES_PER_CONTEXT = 12
_ID_PREFIX = {Kind.PROPOSITION: "p", Kind.RECORD: "rec", Kind.ARTIFACT: "art", Kind.TRACE: "tr"}
_KEY_REFERENCE = re.compile(r"\[\[([^\]]+)\]\]")


class InconsistentWorldError(RetrievalError):
    """A world names something it does not define, or breaks time order; fix the world, not the data."""


@dataclass(frozen=True)
class Corpus:
    """The generated items plus the key -> id map ``known`` uses to name facts."""

    items: tuple[Item, ...]
    ids: Mapping[str, Mapping[str, str]]  # context -> spec key -> item id
    entities: Mapping[str, Mapping[str, Entity]]  # context -> entity local id -> entity

    def id(self, context: str, key: str) -> str:
        return self.ids[context][key]

    def entity_id(self, context: str, local_id: str) -> str:
        if local_id not in self.entities[context]:
            raise InconsistentWorldError(f"{context} has no entity {local_id}")
        return f"{context}:{local_id}"


@cache
def build() -> Corpus:
    """Every world's items, in world order; cached because ``known`` and the tests both ask for it."""
    items: list[Item] = []
    ids: dict[str, dict[str, str]] = {}
    entities: dict[str, dict[str, Entity]] = {}
    for world in WORLDS:
        rng = random.Random(f"{SEED}:{world.context}")
        specs = _specs(world, rng)
        entities[world.context] = _entities(world)
        ids[world.context] = _assign_ids(world.context, specs)
        items += _ContextBuilder(
            world.context, specs, ids[world.context], entities[world.context], rng
        ).items()
    return Corpus(tuple(items), ids, entities)


def render(items: Iterable[Item]) -> str:
    """JSON Lines without embeddings (the loader computes them)."""
    lines = []
    for item in items:
        # The sample grounds no span in a page, section, file or passage: only the span's place is written.
        unset = {"__all__": set(Grounding.model_fields) - {"chunk_id", "uri", "start", "end"}}
        dumped = item.model_dump(mode="json", exclude={"embedding": True, "grounding": unset})
        ordered = {name: dumped[name] for name in Item.model_fields if name in dumped}
        lines.append(json.dumps(ordered, ensure_ascii=False) + "\n")
    return "".join(lines)


def _specs(world: World, rng: random.Random) -> list[Spec]:
    specs = [
        *families.people_items(world, rng),
        *families.service_items(world, rng),
        *families.customer_items(world, rng),
        *families.request_traces(world, rng, REQUEST_TRACES_PER_CONTEXT),
        *world.specs,
    ]
    duplicates = [key for key, n in Counter(s.key for s in specs).items() if n > 1]
    if duplicates:
        raise InconsistentWorldError(f"{world.context}: duplicate keys {duplicates}")
    return specs


def _entities(world: World) -> dict[str, Entity]:
    derived = [Entity(p.local_id, p.name, "Person") for p in world.people]
    derived += [Entity(s.local_id, s.slug, "Service") for s in world.services]
    derived += [Entity(c.local_id, c.name, "Customer") for c in world.customers]
    return {e.local_id: e for e in (*world.teams, *world.entities, *derived)}


def _assign_ids(context: str, specs: list[Spec]) -> dict[str, str]:
    """Sequential ids per kind (``acme:p-0001``); chunks keep their document number (``acme:doc-03#c2``)."""
    counters: Counter[Kind] = Counter()
    documents: dict[str, int] = {}
    ids: dict[str, str] = {}
    for spec in specs:
        if spec.kind is Kind.DOCUMENT:
            document, _, chunk = spec.key.partition("#")
            number = documents.setdefault(document, len(documents) + 1)
            ids[spec.key] = f"{context}:doc-{number:02d}#{chunk}"
        else:
            counters[spec.kind] += 1
            ids[spec.key] = f"{context}:{_ID_PREFIX[spec.kind]}-{counters[spec.kind]:04d}"
    return ids


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _minutes(start: datetime, end: datetime) -> int:
    return int((end - start).total_seconds() // 60)


class _ContextBuilder:
    """Turns one world's specs into items: resolves keys, times, statuses and grounding offsets."""

    def __init__(
        self,
        context: str,
        specs: list[Spec],
        ids: dict[str, str],
        entities: dict[str, Entity],
        rng: random.Random,
    ) -> None:
        self._context = context
        self._specs = specs
        self._by_key = {s.key: s for s in specs}
        self._ids = ids
        self._entities = entities
        self._rng = rng
        self._created: dict[str, datetime] = {}
        self._superseded_by = {old: s for s in specs for old in s.supersedes}
        self._contradicted = {old for s in specs for old in s.contradicts}

    def items(self) -> list[Item]:
        for spec in self._specs:
            self._created_at(spec.key, ())
        return [self._item(spec) for spec in self._specs]

    def _spec(self, key: str, by: str) -> Spec:
        if key not in self._by_key:
            raise InconsistentWorldError(f"{self._context}: {by} names unknown item {key}")
        return self._by_key[key]

    def _created_at(self, key: str, path: tuple[str, ...]) -> datetime:
        """Explicit times are checked against dependencies; missing ones are drawn after them."""
        if key in self._created:
            return self._created[key]
        if key in path:
            raise InconsistentWorldError(f"{self._context}: dependency cycle through {key}")
        spec = self._spec(key, path[-1] if path else key)
        floor = max((self._created_at(dep, (*path, key)) for dep in spec.dependencies), default=None)
        if spec.created is not None:
            moment = _moment(spec.created)
            if floor is not None and moment < floor:
                raise InconsistentWorldError(f"{self._context}: {key} is older than what it depends on")
        elif floor is None:
            moment = FIRST_MOMENT + timedelta(
                minutes=self._rng.randrange(_minutes(FIRST_MOMENT, LAST_MOMENT))
            )
        else:
            # Derived items appear between an hour and 20 days after their newest dependency.
            room = min(_minutes(floor, LAST_MOMENT) - 60, 20 * 24 * 60)
            moment = floor + timedelta(minutes=60 + (self._rng.randrange(room) if room > 0 else 0))
        self._created[key] = moment
        return moment

    def _text(self, spec: Spec) -> str:
        return _KEY_REFERENCE.sub(lambda m: self._ids[self._spec(m.group(1), spec.key).key], spec.text)

    def _item(self, spec: Spec) -> Item:
        text = self._text(spec)
        newer = self._superseded_by.get(spec.key)
        valid_to = spec.valid_to or (newer.valid_from if newer else None)
        metadata = {**spec.metadata, **({"uri": spec.uri} if spec.uri else {})}
        return Item(
            id=self._ids[spec.key],
            context_id=self._context,
            kind=spec.kind,
            text=text,
            mentions=self._mentions(spec, text),
            confidence=self._confidence(spec),
            status=self._status(spec),
            created_at=self._created[spec.key],
            valid_from=_moment(spec.valid_from) if spec.valid_from else None,
            valid_to=_moment(valid_to) if valid_to else None,
            source_ids=[self._ids[self._spec(k, spec.key).key] for k in spec.source_keys],
            grounding=[self._grounding(spec.key, k, quote) for k, quote in spec.grounds],
            supersedes=[self._ids[self._spec(k, spec.key).key] for k in spec.supersedes],
            contradicts=[self._ids[self._spec(k, spec.key).key] for k in spec.contradicts],
            metadata=metadata,
        )

    def _mentions(self, spec: Spec, text: str) -> list[Mention]:
        mentions = []
        for n, local_id in enumerate(spec.mentions):
            entity = self._entities.get(local_id)
            if entity is None or entity.name.lower() not in text.lower():
                raise InconsistentWorldError(
                    f"{self._context}: {spec.key} mentions {local_id} it never names"
                )
            role = ("SUBJECT" if n == 0 else "OBJECT") if spec.kind is Kind.PROPOSITION else None
            mentions.append(
                Mention(
                    entity_id=f"{self._context}:{local_id}", name=entity.name, type=entity.type, role=role
                )
            )
        return mentions

    def _confidence(self, spec: Spec) -> float | None:
        if spec.confidence is not None or spec.kind is not Kind.PROPOSITION:
            return spec.confidence
        return round(self._rng.uniform(0.7, 0.97), 2)

    def _status(self, spec: Spec) -> Status:
        if spec.status is not None:
            return spec.status
        if spec.key in self._superseded_by:
            return Status.SUPERSEDED
        return Status.CONTRADICTED if spec.key in self._contradicted else Status.ACTIVE

    def _grounding(self, key: str, source_key: str, quote: str) -> Grounding:
        """A locator of ``quote`` inside the source's text, so a citation can highlight the exact span."""
        source = self._spec(source_key, key)
        start = self._text(source).find(quote)
        if start < 0:
            raise InconsistentWorldError(f"{self._context}: {key} quotes text {source_key} does not contain")
        return Grounding(chunk_id=self._ids[source_key], uri=source.uri, start=start, end=start + len(quote))


def main() -> None:
    corpus = build()
    CORPUS_PATH.write_text(render(corpus.items), encoding="utf-8")
    kinds = Counter((item.context_id, item.kind.value) for item in corpus.items)
    print(f"wrote {len(corpus.items)} items to {CORPUS_PATH}")
    for (context, kind), count in sorted(kinds.items()):
        print(f"  {context:8} {kind:12} {count}")


if __name__ == "__main__":
    main()
