"""The estimates behind issue 51's note on the bench's synthetic vectors (``bench.intrinsic``)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.intrinsic import intrinsic_dimension, relative_contrast, synthetic


@pytest.mark.parametrize("dimension", [4, 12])
def test_points_on_a_flat_subspace_have_about_its_dimension(dimension: int) -> None:
    rng = np.random.default_rng(1)
    basis = np.linalg.qr(rng.standard_normal((384, dimension)))[0]  # an orthonormal d-dimensional frame
    points = rng.standard_normal((3_000, dimension)) @ basis.T + 5.0  # offset: unit-normalising stays smooth
    assert abs(intrinsic_dimension(points) - dimension) < 0.25 * dimension + 1


def test_the_synthetic_recipe_is_harder_than_a_low_dimensional_cloud() -> None:
    rng = np.random.default_rng(2)
    basis = np.linalg.qr(rng.standard_normal((384, 8)))[0]
    easy = rng.standard_normal((2_000, 8)) @ basis.T + 5.0
    hard = synthetic(2_000)
    assert intrinsic_dimension(hard) > 3 * intrinsic_dimension(easy)
    assert relative_contrast(hard) < relative_contrast(easy)
