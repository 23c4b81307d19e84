"""The vocabulary the sample worlds are written in.

A world is declarative: entities, structured org data (people, services, customers) and hand-written item
specs that name each other by readable keys (``"p:alice-leads"``, ``"doc:pm-inc-2026-014#c3"``). The
generator turns specs into ``Item`` rows and assigns ids; ``known`` names the facts the tests rely on by the
same keys, so the expectations come from the world's design rather than from copied generator output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from retrieval_core.models.item import Kind, Status


@dataclass(frozen=True)
class Entity:
    """Something propositions talk about; ``local_id`` is the id without the context prefix."""

    local_id: str
    name: str
    type: str


@dataclass(frozen=True)
class Person:
    slug: str
    name: str
    title: str
    team: str
    location: str
    since: str
    employee_no: str

    @property
    def local_id(self) -> str:
        return f"person/{self.slug}"


@dataclass(frozen=True)
class Service:
    """A service and what it talks to: each dependency becomes a proposition (an edge) and a config line."""

    slug: str
    team: str
    language: str
    summary: str
    slo_ms: int
    depends_on: tuple[tuple[str, str], ...] = ()  # (entity local id, verb phrase before its name)

    @property
    def local_id(self) -> str:
        return f"service/{self.slug}"


@dataclass(frozen=True)
class Customer:
    slug: str
    name: str
    account_no: str
    industry: str
    plan: str
    arr: str
    uses: tuple[tuple[str, str], ...]  # (service slug, what for)
    manager: str  # person slug
    renewal: str

    @property
    def local_id(self) -> str:
        return f"customer/{self.slug}"


@dataclass(frozen=True)
class Spec:
    """One item to generate. Keys in ``sources``/``grounds``/``supersedes``/``contradicts`` name other specs.

    ``text`` may embed ``[[key]]``, replaced by that item's id (agent traces cite what they read).
    ``created`` of ``None`` means a seeded random moment after everything the item depends on.
    """

    key: str
    kind: Kind
    text: str
    mentions: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    grounds: tuple[tuple[str, str], ...] = ()  # (source key, exact span of that source's text)
    status: Status | None = None  # None: derived from supersedes/contradicts links, else ACTIVE
    supersedes: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()
    created: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    confidence: float | None = None
    uri: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def dependencies(self) -> tuple[str, ...]:
        """Everything that must exist (and be older) before this item: sources, grounds and rivals."""
        grounded = tuple(key for key, _ in self.grounds)
        return tuple(dict.fromkeys(self.sources + grounded + self.supersedes + self.contradicts))

    @property
    def source_keys(self) -> tuple[str, ...]:
        """Derived-from links: the declared sources plus every grounded source."""
        return tuple(dict.fromkeys(self.sources + tuple(key for key, _ in self.grounds)))


@dataclass(frozen=True)
class Chunk:
    text: str
    mentions: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()


def prop(key: str, text: str, *mentions: str, **fields: Any) -> Spec:
    return Spec(key=key, kind=Kind.PROPOSITION, text=text, mentions=mentions, **fields)


def record(key: str, text: str, *mentions: str, **fields: Any) -> Spec:
    return Spec(key=key, kind=Kind.RECORD, text=text, mentions=mentions, **fields)


def artifact(key: str, text: str, *mentions: str, **fields: Any) -> Spec:
    return Spec(key=key, kind=Kind.ARTIFACT, text=text, mentions=mentions, **fields)


def trace(key: str, text: str, *mentions: str, **fields: Any) -> Spec:
    return Spec(key=key, kind=Kind.TRACE, text=text, mentions=mentions, **fields)


def document(key: str, title: str, uri: str, created: str, chunks: list[Chunk]) -> list[Spec]:
    """A source document split into chunk items ``{key}#c1``, ``{key}#c2``...; chunks share the doc's uri."""
    return [
        Spec(
            key=f"{key}#c{n}",
            kind=Kind.DOCUMENT,
            text=chunk.text,
            mentions=chunk.mentions,
            sources=chunk.sources,
            created=created,
            uri=uri,
            metadata={"title": title, "chunk": n},
        )
        for n, chunk in enumerate(chunks, start=1)
    ]


@dataclass(frozen=True)
class Scenario:
    """The facts a world was built to exhibit, by key; ``known`` resolves them to ids."""

    four_hop: tuple[str, ...]  # entity local ids along the unique shortest ACTIVE path
    inactive_shortcut: str  # key of the non-ACTIVE proposition that shortens it when all statuses count
    equal_paths: tuple[tuple[str, ...], ...]  # every shortest ACTIVE path between the same two entities
    cycle: tuple[str, ...]  # entity local ids; consecutive ones (and last, first) share an ACTIVE edge
    lineage_leaf: str
    superseded: tuple[str, str]  # (older key, newer key)
    contradicted: tuple[str, str]  # (contradicted key, contradicting key)
    collisions: tuple[tuple[str, str], ...]  # (entity local id shared with the other world, fact key)
    lexical: tuple[tuple[str, str], ...]  # (query, key expected first)
    document_above_proposition: tuple[str, str, str]  # (query, document chunk key, proposition key)


@dataclass(frozen=True)
class World:
    context: str
    organisation: str
    repo: str
    teams: tuple[Entity, ...]
    entities: tuple[Entity, ...]
    people: tuple[Person, ...]
    services: tuple[Service, ...]
    customers: tuple[Customer, ...]
    call_chains: tuple[tuple[str, tuple[str, ...]], ...]  # (HTTP route, service slugs in call order)
    specs: tuple[Spec, ...]
    scenario: Scenario
