"""Kind hints: words that say which kind of item a question wants ("runbook", "HR record", "dashboard",
"deploy", "agent run"). They become kind weights, never a filter: a runbook question still sees the
proposition that answers it. The words follow what each kind holds: runbooks, dashboards and configs
are artifacts; deploys, tickets and HR entries are records; postmortems and designs are documents;
request traces and agent runs are traces."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models.vocabulary import Kind
from .spans import Span

HINT_WEIGHT = 1.25
"""The multiplier a hinted kind's scores get (explicit ``weights`` in the request replace it)."""

_HINTS: list[tuple[str, Kind]] = [
    (
        r"hr\s+records?|employee\s+records?|records?|tickets?|deploy(?:s|ed|ments?)?|change\s+requests?|"
        r"action\s+items?|crm\s+accounts?",
        Kind.RECORD,
    ),
    (r"runbooks?|playbooks?|dashboards?|configs?|configuration|manifests?|artifacts?", Kind.ARTIFACT),
    (
        r"postmortems?|post-mortems?|design\s+docs?|docs?|documents?|documentation|polic(?:y|ies)",
        Kind.DOCUMENT,
    ),
    (r"traces?|agent\s+runs?|tool\s+calls?", Kind.TRACE),
    (r"facts?|claims?", Kind.PROPOSITION),
]
_PATTERN = re.compile("|".join(f"(?P<k{i}>\\b(?:{words})\\b)" for i, (words, _) in enumerate(_HINTS)), re.I)


@dataclass(frozen=True, slots=True)
class KindHint:
    span: Span
    kind: Kind
    weight: float
    confidence: float


def kind_hints(question: str) -> list[KindHint]:
    """Each kind the question hints at, once, at its first mention."""
    hints: dict[Kind, KindHint] = {}
    for match in _PATTERN.finditer(question):
        index = int(next(name for name, value in match.groupdict().items() if value)[1:])
        kind = _HINTS[index][1]
        span = Span(match.start(), match.end(), match.group(0))
        hints.setdefault(kind, KindHint(span, kind, HINT_WEIGHT, 0.7))
    return list(hints.values())
