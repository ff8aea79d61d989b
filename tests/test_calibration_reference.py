"""The calibration's numbers are pinned: what one_audit publishes on fixed seeds.

``tests/data/calibration_reference.parquet`` holds what one_audit published for fixed seeds:
every interval (and its verdicts) of the statistics of every reading, the impact and Local Law
144 rates and ratios, the pooled model, and the paired changes to an arm, on designs of 3 and 6
names a side in both orders and on one of 5 names a side in two wordings. Each number must
equal its reference to floating-point error. Rewrite the file only when a change of method is
meant to move the numbers (and then say so in docs/calibration.md):
``python -m tests.test_calibration_reference --write``.

History: the reference was rewritten on 2026-12-05, when the metrics', the differences' and the
paired changes' intervals moved from the crossed bootstrap to the crossed variance
(analysis/crossed.py) and equivalence to tests at half the level each (docs/calibration.md
#intervals-at-their-nominal-level-2026-12-05): the estimates stayed, the intervals narrowed, and
verdicts moved with them. The file of d6880b4 (before the array code) and the test that held the
array code's bootstrap draws to it went with that change: those intervals are no longer drawn.
Rewritten again the same day for the impact ratios' leans (new rows, ``lean_`` and
``ll144_lean_``) and the rate changes' one-answer resolution (one interval of 842 moved).
Rewritten once more the same day when the impact tables' rates, ratios and leans and the paired
rate and ratio changes moved from the crossed bootstrap to the crossed variance
(analysis/selection_variance.py): those 494 rows moved, no verdict did; the Local Law 144 rows
(still bootstrapped) and every metric stayed.
Rewritten on 2026-12-06 when the t reference took Satterthwaite's degrees of freedom of the
crossed variance's parts (crossed.satterthwaite_df; docs/calibration.md, "Degrees of freedom
that follow the variance"): 163 of 974 intervals narrowed (median width 0.80 of before), no
estimate moved, and 2 verdicts moved from inconclusive to differs.
Rewritten on 2026-12-07 when the pooled model gained each name's own effect per occupation
(analysis/pooled.py; docs/calibration.md, "The pooled model with each name's own effect per
occupation"): its 28 intervals moved (median width 1.18 of before, the overall effects' the
most) and one of its verdicts (an overall effect at 5 + 5 names in two wordings, from differs to
inconclusive); nothing else moved.
Rewritten on 2026-12-08 when the pooled model's fit took a fixed start and a stopping rule that
no longer leaves its effects where the start put them (pooled.FIT_OPTIONS): its 56 rows moved by
at most 3.3e-4, no verdict did; nothing else moved.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hiremeornot.analysis.calibration import one_audit
from hiremeornot.analysis.simulated_audit import AuditSimulator, synthetic_design
from hiremeornot.asking.respondent import Respondent
from hiremeornot.config import validate_config
from tests.test_respondent import settings

REFERENCE = Path(__file__).parent / "data" / "calibration_reference.parquet"
REPORT = validate_config({"models": {"m": {"backend": "simulated", "model": "m"}}})["report"]
PLANT = {
    "occupations": {
        "nurse": {q: {"female": 1.0} for q in ("q1", "q2", "q3")},
        "pilot": {q: {"male": 0.7} for q in ("q1", "q2", "q3")},
    },
    "position": 0.8,
    "wordings": {"plain": {"female": 0.4}},
    "interventions": {"halved": {"scale": 0.5}},
}
# label -> occupations, names a side, wordings
DESIGNS = {
    "3+3": (["nurse", "pilot", "dancer"], 3, ["paper"]),
    "6+6": (["nurse", "pilot", "dancer"], 6, ["paper"]),
    "5+5 two wordings": (["nurse", "pilot"], 5, ["paper", "plain"]),
}
AUDITS = 2


def published(report: dict = REPORT) -> pd.DataFrame:
    """What one_audit publishes for each design and audit (fixed seeds; ``report``'s seed
    draws the resamples): the checks (estimate, low, high) and the verdicts (difference,
    verdict), one row per number."""
    params = settings(**PLANT)["respondent"]
    parts = []
    for label, (occupations, names, wordings) in DESIGNS.items():
        design = synthetic_design(occupations, names, wordings=wordings)
        baseline = AuditSimulator(Respondent(params), design)
        arm = AuditSimulator(Respondent(params, "halved"), design)
        rng = np.random.default_rng(11)
        for audit in range(AUDITS):
            checks, verdicts = one_audit(baseline, rng, report, arm)
            verdicts = verdicts.rename(columns={"reading": "quantity", "difference": "estimate"})
            parts += [
                checks.assign(design=label, audit=audit, kind="check"),
                verdicts.assign(design=label, audit=audit, kind="verdict"),
            ]
    table = pd.concat(parts, ignore_index=True)
    keys = ["design", "audit", "kind", "occupation", "quantity"]
    return table.sort_values(keys, ignore_index=True)[[*keys, "estimate", "low", "high", "verdict"]]


@pytest.mark.parametrize("storage", ["python", "pyarrow"])
def test_every_published_number_is_the_reference_codes(storage):
    """Whichever way pandas stores strings (the analysis sets Python objects, pandas 3's
    default is Arrow), the same numbers."""
    reference = pd.read_parquet(REFERENCE)
    with pd.option_context("mode.string_storage", storage):
        now = published()
    keys = ["design", "audit", "kind", "occupation", "quantity"]
    for column in [*keys, "verdict"]:  # (as text: the reference's types are Parquet's)
        assert (
            now[column].fillna("").astype(str).equals(reference[column].fillna("").astype(str))
        ), column
    # the pooled model's variational fit stops where its optimiser's rule says: one or two BLAS
    # threads, or statsmodels' own order of the gradient's sums, moved its rows by 1.3e-10
    # (at scipy's default rule, from a random start, by up to 1e-3)
    fitted = now["quantity"].str.startswith("log_odds_").to_numpy()
    for column in ("estimate", "low", "high"):
        values, expected = now[column].to_numpy(float), reference[column].to_numpy(float)
        for rows, tolerance in ((~fitted, 1e-12), (fitted, 1e-6)):
            assert np.allclose(
                values[rows], expected[rows], rtol=1e-9, atol=tolerance, equal_nan=True
            ), column


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    published().to_parquet(REFERENCE, index=False)
    print(f"wrote {REFERENCE}")
