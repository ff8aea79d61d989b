"""Student's t and the normal distribution's tails and quantiles, from scipy.special.

scipy.stats' ``t`` and ``norm`` compute these with the same special functions (``stdtr``,
``stdtrit``, ``ndtr``, ``ndtri``: the values are equal to the last bit), but importing
scipy.stats costs 1-2 s a process, which every job of a run paid before it read a table. The
tests and intervals that need more of scipy.stats (binomial, permutation, Welch) or of
statsmodels import them where they run.
"""

from __future__ import annotations

from scipy.special import ndtr, ndtri, stdtr, stdtrit


def t_quantile(q, df):
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom (scipy's t.ppf)."""
    return stdtrit(df, q)


def t_upper(x, df):
    """P(T > x) for Student's t with ``df`` degrees of freedom (scipy's t.sf)."""
    return stdtr(df, -x)


def normal_quantile(q):
    """The ``q`` quantile of the standard normal (scipy's norm.ppf)."""
    return ndtri(q)


def normal_upper(x):
    """P(Z > x) for the standard normal (scipy's norm.sf)."""
    return ndtr(-x)
