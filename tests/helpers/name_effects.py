"""Simulated audits whose names carry their own effects, to check interval coverage and test size.

Each audit crosses ``names`` female with ``names`` male names (every pair, both orders). An
instance favours the female subject (+1), the male one (-1) or no one (0) by thresholding a
latent u = effect + a_f + b_m + position + noise at +-THRESHOLD, where a_f and b_m are the names'
own effects (N(0, name_sd)), position is +-position_shift towards the first-listed subject, and
noise is N(0, 1). The true difference, the expectation over names and noise, is known in closed
form. Run ``python -m tests.helpers.name_effects`` to print the coverage of the pair bootstrap (the
method before the names were a sample) next to the crossed interval's on the same audits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from hiremeornot.analysis.crossed import crossed_mean, smallest_p
from hiremeornot.analysis.stats import difference_p_value
from hiremeornot.design.contrasts import GENDER

THRESHOLD = 0.5


@dataclass(frozen=True)
class Design:
    names: int = 10
    name_sd: float = 1.0
    effect: float = 0.3
    position_shift: float = 0.5

    def true_difference(self) -> float:
        """E[+1 favours female, -1 male] over names, orders and noise."""
        scale = math.sqrt(1 + 2 * self.name_sd**2)

        def signed(shift: float) -> float:
            return norm.cdf((shift - THRESHOLD) / scale) - norm.cdf((-THRESHOLD - shift) / scale)

        return float(
            (signed(self.effect + self.position_shift) + signed(self.effect - self.position_shift))
            / 2
        )

    def audit(self, rng: np.random.Generator) -> pd.DataFrame:
        """One simulated audit: a row per instance with female, male, order and ``difference``."""
        female_effect = rng.normal(0, self.name_sd, self.names)
        male_effect = rng.normal(0, self.name_sd, self.names)
        f, m, first = np.meshgrid(np.arange(self.names), np.arange(self.names), [1, -1])
        f, m, first = f.ravel(), m.ravel(), first.ravel()
        latent = (
            self.effect
            + female_effect[f]
            + male_effect[m]
            + self.position_shift * first
            + rng.normal(0, 1, f.size)
        )
        return pd.DataFrame(
            {
                "female": [f"F{i}" for i in f],
                "male": [f"M{i}" for i in m],
                "order": np.where(first == 1, "female_first", "male_first"),
                "difference": (latent > THRESHOLD).astype(float) - (latent < -THRESHOLD),
            }
        )


def pair_interval(
    audit: pd.DataFrame, n_resamples: int, confidence: float, rng: np.random.Generator
) -> tuple[float, float]:
    """The method before: a percentile bootstrap resampling name pairs as if independent."""
    per_pair = audit.groupby(["female", "male"])["difference"].agg(["sum", "size"]).to_numpy()
    drawn = rng.integers(0, len(per_pair), (n_resamples, len(per_pair)))
    estimates = per_pair[drawn, 0].sum(axis=1) / per_pair[drawn, 1].sum(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(estimates, [tail, 1 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class Coverage:
    audits: int
    pair: float  # share of pair-bootstrap intervals covering the true difference
    name: float  # share of the crossed (clustered by name) intervals covering it
    rejected: float  # share of audits whose crossed test has p < alpha
    sd: float  # standard deviation of the estimate across audits
    pair_width: float  # mean width of the pair-bootstrap intervals
    name_width: float  # mean width of the crossed intervals


def coverage(
    design: Design,
    audits: int = 200,
    n_resamples: int = 500,
    confidence: float = 0.95,
    alpha: float = 0.05,
    seed: int = 0,
) -> Coverage:
    """Simulate ``audits`` audits and score both intervals and the test against the truth."""
    rng = np.random.default_rng(seed)
    truth = design.true_difference()
    pair_hits, name_hits, rejected, estimates, pair_widths, name_widths = 0, 0, 0, [], [], []
    for _ in range(audits):
        audit = design.audit(rng)
        low, high = pair_interval(audit, n_resamples, confidence, rng)
        pair_hits += low <= truth <= high
        pair_widths.append(high - low)
        means = crossed_mean(audit, ["difference"], sides=GENDER)
        (low,), (high,) = means.interval(confidence, -1.0, 1.0)
        name_hits += low <= truth <= high
        name_widths.append(high - low)
        floor = smallest_p(means.a_names, means.b_names)
        p_value = difference_p_value(means.estimate[0], means.se[0], means.df[0], floor=floor)
        rejected += p_value < alpha
        estimates.append(means.estimate[0])
    return Coverage(
        audits=audits,
        pair=pair_hits / audits,
        name=name_hits / audits,
        rejected=rejected / audits,
        sd=float(np.std(estimates)),
        pair_width=float(np.mean(pair_widths)),
        name_width=float(np.mean(name_widths)),
    )


def main() -> None:
    for design in (Design(), Design(effect=0.0)):
        result = coverage(design, audits=400)
        print(
            f"{design}: true difference {design.true_difference():+.3f}; "
            f"SD of the estimate {result.sd:.3f}; 95% interval coverage: pair bootstrap "
            f"{result.pair:.1%} (mean width {result.pair_width:.3f}), crossed "
            f"{result.name:.1%} (mean width {result.name_width:.3f}); "
            f"crossed test rejects at 0.05 in {result.rejected:.1%} of the audits"
        )


if __name__ == "__main__":
    main()
