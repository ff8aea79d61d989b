"""The pooled model's fits, side by side on the same simulated audits: as published
(pooled.FIT_OPTIONS from a fixed start, the gradient summed once: vb_gradient.py), with
statsmodels' own gradient, and as before 2026-12-08 (statsmodels' own gradient from its random
start, scipy's default stopping rule). Prints the seconds per audit (three fits), their ratio
to the published, and how far each variant's numbers lie from the published (the effects and
interval ends, log-odds).

    python benchmarks/pooled_fit_speed.py [--audits 3] [--designs 10+10 "20+20 heavy" "paper heavy"]

"paper heavy": 62 occupations (the six of calibration_table.py with its plants, the others
with nothing planted), 10 + 10 names, heavy-tailed name effects and each name's own effect
per occupation.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one BLAS thread, as the calibration runs

import argparse
import time
import warnings
from contextlib import contextmanager

import numpy as np
import pandas as pd
from calibration_table import HEAVY, OCCUPATIONS, POSITION, respondent, solved_shifts
from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM

from hiremeornot.analysis import pooled, vb_gradient
from hiremeornot.analysis.simulated_audit import AuditSimulator, synthetic_design
from hiremeornot.config import validate_config

# name: (names a side, name effects, occupations); the paper's design has 62 occupations
PAPER = [*OCCUPATIONS, *(f"occupation {i:02d}" for i in range(62 - len(OCCUPATIONS)))]
DESIGNS = {
    "5+5": (5, {}, OCCUPATIONS),
    "10+10": (10, {}, OCCUPATIONS),
    "20+20": (20, {}, OCCUPATIONS),
    "20+20 heavy": (20, HEAVY, OCCUPATIONS),
    "paper heavy": (10, HEAVY, PAPER),
}
PUBLISHED = pooled._fitted


def _default_fit(model) -> tuple:
    """The fit before 2026-12-08: statsmodels' defaults, its random start."""
    fit = model.fit_vb(fit_method="L-BFGS-B")
    return fit, bool(fit.optim_retvals.success)


VARIANTS = {
    "published": (vb_gradient.SummedGradientGLM, PUBLISHED),
    "statsmodels' gradient": (BinomialBayesMixedGLM, PUBLISHED),
    "before (defaults, random start)": (BinomialBayesMixedGLM, _default_fit),
}


@contextmanager
def variant(model_class, fitted):
    """pooled's fits with this model class and fit."""
    saved = vb_gradient.SummedGradientGLM, pooled._fitted
    vb_gradient.SummedGradientGLM, pooled._fitted = model_class, fitted
    try:
        yield
    finally:
        vb_gradient.SummedGradientGLM, pooled._fitted = saved


def one_design(label: str, audits: int) -> list[dict]:
    names, name_params, occupations = DESIGNS[label]
    report = validate_config({"models": {"b": {"backend": "simulated", "model": "b"}}})["report"]
    planted = respondent(solved_shifts(POSITION, name_params), POSITION, name_params=name_params)
    design = synthetic_design(occupations, names)
    simulator = AuditSimulator(planted, design)
    rng = np.random.default_rng(names)
    answers = [simulator.audit(rng) for _ in range(audits)]
    seconds, tables = {}, {}
    for name, (model_class, fitted) in VARIANTS.items():
        start = time.monotonic()
        with variant(model_class, fitted), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tables[name] = [
                pooled.pooled_effects(*a, design.instances, design.sides, report) for a in answers
            ]
        seconds[name] = (time.monotonic() - start) / audits
    rows = []
    for name in VARIANTS:
        apart = max(
            (mine[c] - theirs[c]).abs().max()
            for mine, theirs in zip(tables[name], tables["published"], strict=True)
            for c in ("log_odds", "low", "high")
        )
        rows.append(
            {
                "design": label,
                "variant": name,
                "seconds per audit": seconds[name],
                "x published": seconds[name] / seconds["published"],
                "largest difference from published": apart,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--audits", type=int, default=3)
    parser.add_argument("--designs", nargs="+", default=["10+10", "20+20 heavy"])
    args = parser.parse_args()
    rows = [row for label in args.designs for row in one_design(label, args.audits)]
    print(f"## The pooled model's fits, {args.audits} audits a design\n")
    print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".3g"))


if __name__ == "__main__":
    main()
