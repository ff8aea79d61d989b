"""Coverage of a crossed mean's 95% interval as the names' share of its variance goes from nothing
to most of it (docs/calibration.md pastes its output).

The published estimator (crossed.crossed_mean: the method of moments, the names' share never
below 0, Satterthwaite's degrees of freedom) beside the textbook alternative to its floor that
was tried against its over-coverage where the names add nothing (a paired change's case): a
pretest that drops the names' share wherever its F ratio to the answers' noise is under the
F distribution's 1 - alpha_pool quantile, then reads the variance as the noise alone.

Each table: every pair of N female and N male names in both orders, one value a row, the
female and the male name each adding an effect drawn from N(0, name_sd^2) and the row its own
N(0, 1) noise; the truth is 0 (the population's mean). The noise-only interval's width is
2 z sqrt(1 / rows), what a known variance would give with no names' effects.

    python benchmarks/names_share_coverage.py [--tables 1000] [--names 10 20]
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import pandas as pd
from scipy.stats import f as f_dist
from scipy.stats import norm

from hiremeornot.analysis.crossed import CrossedMeans, VarianceParts, crossed_mean
from hiremeornot.design.contrasts import GENDER

NAME_SDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
POOL_LEVELS = (0.25, 0.05)


def pretest_pooled(means: CrossedMeans, alpha_pool: float) -> CrossedMeans:
    """The same mean with the names' share dropped where its F ratio ((share + noise) / noise,
    on the names' and the residual's degrees of freedom) is under the 1 - alpha_pool quantile."""
    parts = means.parts
    ratio = (parts.levels + parts.residual) / parts.residual
    names_df = means.a_names + means.b_names - 2
    kept = ratio >= f_dist.ppf(1 - alpha_pool, names_df, parts.residual_df)
    levels = np.where(kept, parts.levels, 0.0)
    pooled = VarianceParts(levels, parts.residual, parts.residual_df)
    return dataclasses.replace(means, parts=pooled)


def one_design(names: int, name_sd: float, tables: int) -> dict[str, float]:
    """The coverage of 0 and the median width of each interval over ``tables`` tables."""
    rng = np.random.default_rng(names)
    grid = np.meshgrid(np.arange(names), np.arange(names))
    female, male = (np.repeat(a.ravel(), 2) for a in grid)  # every pair, both orders
    methods = {"published": None, **{f"pretest {a}": a for a in POOL_LEVELS}}
    covered = {label: [] for label in methods}
    widths = {label: [] for label in methods}
    for _ in range(tables):
        effects = rng.normal(0, name_sd, (2, names))
        values = effects[0][female] + effects[1][male] + rng.normal(0, 1, len(female))
        frame = pd.DataFrame({"female": female, "male": male, "value": values})
        means = crossed_mean(frame, ["value"], sides=GENDER)
        for label, alpha_pool in methods.items():
            tested = means if alpha_pool is None else pretest_pooled(means, alpha_pool)
            low, high = tested.interval(0.95, -np.inf, np.inf)
            covered[label].append(low[0] <= 0 <= high[0])
            widths[label].append(high[0] - low[0])
    noise_only = 2 * norm.ppf(0.975) * np.sqrt(1 / len(female))
    row = {f"{label}: coverage": float(np.mean(v)) for label, v in covered.items()}
    row |= {f"{label}: width": float(np.median(v)) / noise_only for label, v in widths.items()}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--names", type=int, nargs="+", default=[10, 20])
    args = parser.parse_args()
    rows = [
        {"names a side": n, "name_sd": sd, **one_design(n, sd, args.tables)}
        for n in args.names
        for sd in NAME_SDS
    ]
    print(f"## Coverage of 0 and median width (x the noise-only width), {args.tables} tables\n")
    print(pd.DataFrame(rows).round(3).to_markdown(index=False))


if __name__ == "__main__":
    main()
