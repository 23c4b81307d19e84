"""The retrieval modes: each one entry (a ``ModeSpec``) in one registry (``MODES``), which the ranking
pipeline builds its arms by and ``prepare`` plans by.

A mode is its name, how its plan is made from a validated request (``retrieval.plans``), and its arms
built from the deployment's ``Capabilities`` (``retrieval.arms``). What it needs to be supported is its
arms' ``check``: a capability it lacks raises ``CapabilityMissingError`` before anything is read, and the
answer is typed-empty with ``supported: false`` and that capability's name.

The public API's modes are ``requests.Mode``, and the fields each needs are ``requests.MODE_NEEDS``: the
request model and the OpenAPI document state them. Another mode (a test's toy) declares the fields it
needs in its entry, and the registry hands them to the request's validation as its context
(``Modes.served_needs`` under ``requests.SERVED_MODES``): the retrieve handler validates with the
container's registry, read only when a request names a mode outside ``Mode``, so a registered mode is
served and any other name is refused as before (422). The container's registry is an
override like its stages: ``Container(settings, overrides={"modes": MODES.with_mode(toy)})``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ..ports import Capabilities
from .arms import AutoArms, EntityArm, GraphWalkArm, HybridArms, LexicalArm, TemporalArm, VectorArm
from .config import RetrievalConfig
from .plans import (
    Plan,
    auto_plan,
    entity_plan,
    graph_walk_plan,
    hybrid_plan,
    lexical_plan,
    temporal_plan,
    vector_plan,
)
from .requests import Mode, RetrieveRequest
from .stages.base import Arms
from .stages.graph_arm import GraphArm

ArmsFactory = Callable[[Capabilities, RetrievalConfig], Arms]
"""Builds a mode's arms once per container from what the deployment can do and its retrieval config."""


@dataclass(frozen=True, slots=True)
class ModeSpec:
    """One retrieval mode. ``needs``: the request fields it needs, at least one of them (None: a public
    mode, whose needs are ``requests.MODE_NEEDS``)."""

    name: str
    plan: Callable[[RetrieveRequest], Plan]
    arms: ArmsFactory
    needs: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Modes:
    """The modes a deployment serves, by name."""

    specs: Mapping[str, ModeSpec]

    @classmethod
    def of(cls, *specs: ModeSpec) -> Modes:
        return cls({spec.name: spec for spec in specs})

    def with_mode(self, spec: ModeSpec) -> Modes:
        """These modes and one more."""
        return replace(self, specs={**self.specs, spec.name: spec})

    def arms(self, capabilities: Capabilities, config: RetrievalConfig) -> dict[str, Arms]:
        """Each mode's arms, built once per container."""
        return {name: spec.arms(capabilities, config) for name, spec in self.specs.items()}

    @property
    def served_needs(self) -> dict[str, tuple[str, ...]]:
        """The modes served beyond ``Mode``, and the fields each needs: what a ``RetrieveRequest`` is
        validated with (its context's ``requests.SERVED_MODES``)."""
        return {name: spec.needs for name, spec in self.specs.items() if spec.needs is not None}


MODES = Modes.of(
    ModeSpec(Mode.LEXICAL, lexical_plan, lambda capabilities, config: LexicalArm(capabilities)),
    ModeSpec(Mode.VECTOR, vector_plan, lambda capabilities, config: VectorArm(capabilities)),
    ModeSpec(Mode.HYBRID, hybrid_plan, lambda capabilities, config: HybridArms(capabilities)),
    ModeSpec(Mode.AUTO, auto_plan, lambda capabilities, config: AutoArms(capabilities, config.multihop)),
    ModeSpec(Mode.ENTITY, entity_plan, lambda capabilities, config: EntityArm(capabilities)),
    ModeSpec(Mode.TEMPORAL, temporal_plan, lambda capabilities, config: TemporalArm(capabilities)),
    ModeSpec(
        Mode.GRAPH_WALK,
        graph_walk_plan,
        lambda capabilities, config: GraphWalkArm(GraphArm(capabilities, config.expansion)),
    ),
)
"""The public API's modes (``requests.Mode``), each one line."""
