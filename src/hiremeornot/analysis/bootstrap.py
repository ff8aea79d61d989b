"""The random draws of the selection rates' crossed name bootstrap (impact.py, rate_changes.py,
ll144.py): how often each name is drawn in each resample, and a random stream per occupation.

Confirmation, Consistency, the differences and the paired changes need no resampling: their
standard errors are clustered two ways over the names (crossed.py).
"""

from __future__ import annotations

import zlib

import numpy as np


def resample_counts(
    rng: np.random.Generator, *, levels: int, draws: int, resamples: int
) -> np.ndarray:
    """How often each of ``levels`` levels is drawn in ``draws`` draws with replacement, for
    each of ``resamples`` resamples (resamples x levels): a multinomial with equal
    probabilities, drawn as uniform picks counted per row (faster than numpy's multinomial,
    which draws one binomial after another)."""
    picks = (
        rng.integers(0, levels, size=(resamples, draws)) + levels * np.arange(resamples)[:, None]
    )
    return np.bincount(picks.ravel(), minlength=resamples * levels).reshape(resamples, levels)


def random_stream(seed: int, key: str) -> list[int]:
    """A random stream per occupation (or attribute), so its result does not depend on others."""
    return [seed, zlib.crc32(key.encode())]
