"""Every bench scale's shape can be generated: its propositions (two or three mentions each) can carry
exactly its edge rows (``bench.corpus.mention_mix``), so a long run does not fail at its first step."""

from __future__ import annotations

import pytest

from bench.corpus import CorpusShapeError, document_count, mention_mix
from bench.scales import SCALES


@pytest.mark.parametrize("name", sorted(SCALES))
def test_every_scale_has_a_shape_its_propositions_can_carry(name: str) -> None:
    scale = SCALES[name]
    propositions = scale.items - document_count(scale)
    threes, twos = mention_mix(propositions, scale.edges)
    assert threes + twos == propositions
    assert 6 * threes + 2 * twos == scale.edges


def test_a_shape_with_fewer_edges_than_two_per_proposition_is_refused() -> None:
    with pytest.raises(CorpusShapeError):
        mention_mix(900_000, 1_000_000)
