"""``auto`` mode: hybrid search that reads the question first.

One ``_msearch`` runs hybrid's two arms and looks the question's words up in the caller's entity
dictionary (``QuestionSearch.hybrid_with_names``); the question is then read against those names
(``understanding.reading``). What it names becomes arms, fetched in one more ``_msearch`` only when
there is something to fetch (``QuestionSearch.focused``): the items mentioning a linked entity, the
propositions carrying its edges, its items that also name the type of entity the question asks for
("Who ...": a person), the items of a named time window, the items valid now for "currently".
Arms are fused with weights at or below the text arms' (``ARM_WEIGHTS``), so the words of the question
still order what the focus arms bring; kind hints become kind weights (and, unless ``diversify`` is
sent, the page is not interleaved by kind: the question asked for one). Nothing is a filter: the
caller's context, filter, kinds and statuses bound every arm exactly as they bound hybrid.

Explicit fields win: ``entity_id`` and ``window`` replace what would be inferred from the text (the
inference is still reported, marked unused), and ``weights`` replaces a hinted kind's weight.
``infer: false`` skips reading altogether.

The text arms are hybrid's own, pseudo-relevance feedback included when the deployment or the request
turns it on (the pipeline's feedback stage moves the query before ``auto_arms`` runs). Cost: hybrid's
round trips (two with feedback: the BM25 first pass, the moved ``_msearch`` that also looks the names
up) and one more when the question names something.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ..models.hits import Candidate
from ..models.page_titles import ABOUT_ROLE, PAGE_ENTITY_TYPE
from ..models.vocabulary import Kind
from ..ports import (
    ANSWER_ARM,
    EDGES_ARM,
    ENTITY_ARM,
    VALID_NOW_ARM,
    WINDOW_ARM,
    Ahead,
    ArmResults,
    Embedder,
    Expansion,
    Focus,
    NamedEntity,
    NeighbourhoodAsk,
    QuestionNames,
    QuestionSearch,
    SearchFilters,
    TimeWindow,
)
from ..understanding.reading import Reading, read
from ..understanding.spans import Span
from ..understanding.wording import content_words
from .config import MultiHopConfig
from .fusion import Fused, built
from .plans import AutoPlan
from .responses import Inference
from .stages.base import Job, Searched
from .stages.cut import weighed_and_cut
from .stages.fusion import fused
from .stages.multihop import first_ask

ARM_WEIGHTS: dict[str, float] = {
    ENTITY_ARM: 0.6,
    EDGES_ARM: 0.15,
    ANSWER_ARM: 1.0,
    WINDOW_ARM: 0.8,
    VALID_NOW_ARM: 0.4,
}
"""Each inferred arm's weight beside the text arms' (lexical and vector weigh 1 by default), times the
confidence of what it came from. Tuned on the dev half of data/agent-questions (docs/QUALITY.md)."""


@dataclass(frozen=True, slots=True)
class AutoSearched:
    """What reading the question added to hybrid: every arm to fuse (hybrid's two and the focus arms),
    the focus arms' weights, the kind weights, the inferences to report, and the entities the question
    names as pages with how sure each link is (a multi-hop walk starts from them), and the walk's first
    fetch when it was made ahead."""

    arms: dict[str, Sequence[Candidate]]
    arm_weights: dict[str, float]
    kind_weights: dict[Kind, float]
    inferred: list[Inference]
    named: dict[str, float] = field(default_factory=dict)
    ahead: Ahead | None = None


WalkAhead = Callable[[ArmResults, Mapping[Kind, float], Mapping[str, float]], NeighbourhoodAsk | None]
"""What a walk's first fetch will ask, predicted from hybrid's arms, the kind weights and the named
pages (``walk_ahead``); None: nothing to ask ahead."""


def auto_arms(
    store: QuestionSearch,
    context_id: str,
    plan: AutoPlan,
    vector: Sequence[float],
    filters: SearchFilters,
    depth: int,
    expansion: Expansion = (),
    ahead: WalkAhead | None = None,
    names: QuestionNames | None = None,
) -> AutoSearched:
    """Hybrid's arms and the dictionary in one ``_msearch``, the question read against the names, and
    the arms of what it names in one more (none when nothing is named). With ``ahead`` (a walk follows)
    and an entity to focus on, that round trip also fetches the walk's first neighbourhood as predicted
    from hybrid's ranking: the walk uses it when it asks exactly that, and fetches again when not.

    With ``names`` (the context's dictionary held in the function), the question is read first and the
    arms of what it names join hybrid's in one ``_msearch``: no lookup, one round trip fewer, and no
    fetch made ahead (there is no hybrid ranking to predict it from before that round trip). A context
    whose dictionary is too large to hold is looked up as without ``names``."""
    text = plan.text
    held = None  # not held: looked up beside hybrid's arms
    if names is not None:
        held = names.names_for(context_id, text) if plan.infer else ([], frozenset())
    if held is not None:
        question = _Question.of(plan, *held)
        base, focused = store.hybrid_and_focused(
            context_id, text, vector, filters, depth, question.focus, expansion
        )
        return question.only(focused.present).searched(base, focused)
    base, dictionary = store.hybrid_with_names(context_id, text, vector, filters, depth, expansion)
    question = _Question.of(plan, dictionary)
    focus = question.focus
    ask = ahead(base, question.kinds, question.named) if ahead is not None and focus.entity_ids else None
    if ask is not None:
        focused, found = store.focused_and_neighbourhood(context_id, focus, filters, depth, ask)
        return question.searched(base, focused, Ahead(ask, found))
    focused = ArmResults() if focus.empty else store.focused(context_id, focus, filters, depth)
    return question.searched(base, focused)


@dataclass(frozen=True, slots=True)
class _Question:
    """A question as read: the focus arms to ask, their weights, the kind weights, the inferences to
    report and the pages it names."""

    focus: Focus
    weights: dict[str, float]
    kinds: dict[Kind, float]
    inferred: list[Inference]
    named: dict[str, float]

    @classmethod
    def of(
        cls, plan: AutoPlan, dictionary: Sequence[NamedEntity], types: Collection[str] | None = None
    ) -> _Question:
        now = plan.now or datetime.now(UTC)
        reading = read(plan.text, dictionary, now, types) if plan.infer else Reading()
        focus, weights, inferred = understood(plan, reading)
        kinds: dict[Kind, float] = {**{hint.kind: hint.weight for hint in reading.kinds}, **plan.weights}
        named = _pages(reading) if plan.entity_id is None else {}
        return cls(focus, weights, kinds, inferred, named)

    def only(self, present: frozenset[str] | None) -> _Question:
        """What was read less the entities none of the caller's items mention (``present``, None: all),
        as the lookup would have read it: names held in the function outlive the last item naming
        them (up to ``name_dictionary.MAX_AGE_SECONDS``) and ignore the caller's filter."""
        if present is None:
            return self
        absent = set(self.focus.entity_ids) - present
        if not absent:
            return self
        inferred = [i for i in self.inferred if not (i.became == "entity" and i.value in absent)]
        if not present & set(self.focus.entity_ids):  # an answer type is read only beside an entity
            inferred = [i for i in inferred if i.became != "answer_type"]
        named = {entity: confidence for entity, confidence in self.named.items() if entity not in absent}
        return replace(self, inferred=inferred, named=named)

    def searched(self, base: ArmResults, focused: ArmResults, ahead: Ahead | None = None) -> AutoSearched:
        arms = {**base.arms, **focused.arms}
        return AutoSearched(arms, self.weights, self.kinds, self.inferred, self.named, ahead)


def walk_ahead(
    job: Job,
    text: str,
    vector: Sequence[float],
    depth: int,
    config: MultiHopConfig,
    base: ArmResults,
    kinds: Mapping[Kind, float],
    named: Mapping[str, float],
    *,
    embedder: Embedder | None = None,
) -> NeighbourhoodAsk | None:
    """The walk's first fetch as it would be asked from hybrid's ranking (``base`` fused, weighed and
    cut as the pipeline does, without the focus arms): the walk's own ranking has the focus arms too, so
    this is a guess, right when the two rankings' top hits and named pages' chunks agree. ``embedder``
    asks a chain's second end too (``multihop.second_end_of``)."""
    searched = Searched(base.arms, asked=depth, fuse=True, kind_weights=kinds)
    pool = weighed_and_cut(job, fused(job, searched).value).value
    leading = built(_leading(pool.fused, named, config.seed_hits))
    return first_ask(job, leading, named, text, vector, config, embedder)


def _leading(
    ranked: Sequence[Fused[Candidate]], named: Mapping[str, float], seeds: int
) -> list[Fused[Candidate]]:
    """The only ranked candidates the walk's first ask reads, in their order: the top ``seeds`` and
    each named page's best chunk of its own (the others' hits are never built)."""
    kept, pages = [], set(named)
    for rank, fused_candidate in enumerate(ranked):
        about = {
            m["entity_id"] for m in _mentions(fused_candidate.item) if m.get("role") == ABOUT_ROLE
        } & pages
        if rank < seeds or about:
            kept.append(fused_candidate)
        pages -= about
        if rank >= seeds and not pages:
            break
    return kept


def _mentions(candidate: Candidate) -> list[Mapping[str, Any]]:
    """A candidate's mentions as its stored item has them (a built hit's, dumped)."""
    found = candidate.found
    if isinstance(found, Mapping):
        return list(found.get("mentions") or ())
    return [m.model_dump() for m in found.mentions]


def _pages(reading: Reading) -> dict[str, float]:
    """The pages the question names (titles and their aliases), each at its best link's confidence: the
    walk's seeds among the page links (an entity of another type links no page)."""
    named: dict[str, float] = {}
    for link in reading.links:
        if link.type == PAGE_ENTITY_TYPE:
            named[link.entity_id] = max(named.get(link.entity_id, 0.0), link.confidence)
    return named


def residual(text: str, spans: Sequence[Span]) -> str:
    """``text`` without ``spans``: what the focus arms rank their members by."""
    kept, at = [], 0
    for span in sorted(spans, key=lambda s: s.start):
        kept.append(text[at : span.start])
        at = max(at, span.end)
    kept.append(text[at:])
    return " ".join(" ".join(kept).split())


def understood(plan: AutoPlan, reading: Reading) -> tuple[Focus, dict[str, float], list[Inference]]:
    """The focus and arm weights a reading makes, with the request's explicit fields over it, and the
    inferences to report (each marked used or overridden)."""
    found = _Understanding()
    entity_ids = _entities(plan, reading, found)
    answer_types = _answer_types(reading, entity_ids, found)
    window, valid_at = _time(plan, reading, found)
    for hint in reading.kinds:
        value = f"{hint.kind}={hint.weight:g}"
        found.infer(hint.span, "kind_weight", value, hint.confidence, used=hint.kind not in plan.weights)
    text = plan.text
    names = [link.span for link in reading.links if plan.entity_id is None]
    times = [reading.time.span] if reading.time is not None and plan.window is None else []
    focus = Focus(
        entity_ids,
        window,
        valid_at,
        content_words(residual(text, names)),
        content_words(residual(text, times)),
        answer_types,
    )
    return focus, found.weights, sorted(found.inferred, key=lambda i: (i.start, i.became))


@dataclass(slots=True)
class _Understanding:
    """What reading a question made so far: the focus arms' weights and the inferences to report."""

    weights: dict[str, float] = field(default_factory=dict)
    inferred: list[Inference] = field(default_factory=list)

    def weigh(self, arms: Sequence[str], confidence: float) -> None:
        """Each arm at its weight times ``confidence`` (the best of what made it)."""
        for arm in arms:
            self.weights[arm] = max(self.weights.get(arm, 0.0), ARM_WEIGHTS[arm] * confidence)

    def infer(
        self, span: Span, became: str, value: str, confidence: float, *, used: bool, arms: Sequence[str] = ()
    ) -> None:
        """Report one inference; a used one weighs the arms it makes."""
        self.inferred.append(_inference(span, became, value, confidence, used))
        if used:
            self.weigh(arms, confidence)


def _entities(plan: AutoPlan, reading: Reading, found: _Understanding) -> tuple[str, ...]:
    """The entities the focus arms look for: the request's ``entity_id``, else the linked ones."""
    entity_arms = (ENTITY_ARM, EDGES_ARM)
    if plan.entity_id is not None:
        found.weigh(entity_arms, 1.0)
    for link in reading.links:
        used = plan.entity_id is None
        found.infer(link.span, "entity", link.entity_id, link.confidence, used=used, arms=entity_arms)
    if plan.entity_id is not None:
        return (plan.entity_id,)
    return tuple(link.entity_id for link in reading.links)


def _answer_types(reading: Reading, entity_ids: tuple[str, ...], found: _Understanding) -> tuple[str, ...]:
    """The type of entity the question asks for, only beside an entity: the type alone ("who") would
    rank every person's items up."""
    answer = reading.answer
    if answer is None or not entity_ids:
        return ()
    found.infer(answer.span, "answer_type", answer.type, answer.confidence, used=True, arms=(ANSWER_ARM,))
    return (answer.type,)


def _time(
    plan: AutoPlan, reading: Reading, found: _Understanding
) -> tuple[TimeWindow | None, datetime | None]:
    """The window the focus arms look in (the request's, else a time cue's), or the moment "currently"
    names."""
    window = plan.window
    if window is not None:
        found.weigh((WINDOW_ARM,), 1.0)
    cue = reading.time
    if cue is None:
        return window, None
    used = plan.window is None
    if cue.kind == "current":
        found.infer(cue.span, "valid_now", _iso(cue.start), cue.confidence, used=used, arms=(VALID_NOW_ARM,))
        return window, cue.start if used else None
    value = f"{_iso(cue.start)} .. {_iso(cue.end)}"
    found.infer(cue.span, "window", value, cue.confidence, used=used, arms=(WINDOW_ARM,))
    return (TimeWindow(cue.start, cue.end) if used else window), None


def _inference(span: Span, became: str, value: str, confidence: float, used: bool) -> Inference:
    return Inference.model_validate(
        {
            "span": span.text,
            "start": span.start,
            "end": span.end,
            "became": became,
            "value": value,
            "confidence": round(confidence, 3),
            "used": used,
        }
    )


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
