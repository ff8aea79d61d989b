"""The known-answer calibration of the non-answer gap between groups (docs/calibration.md pastes
its output): coverage of the difference's Welch interval, false positives and power of its
permutation test (analysis/non_answers.between_groups, the published code); then the same of
the gap between listing orders in Q2 (non_answers.between_orders).

Each audit draws Step-1 refusals of N female and N male names, each asked QUESTIONS questions,
from the simulated respondent's free model (``respondent.free``): a base refusal rate of 0.15, a
female refusal effect of 0 (null) or PLANTED log-odds, and, beyond the respondent (whose names
share their group's rate), each name's own refusal effect on the log-odds scale, normal with sd
0 or NAME_SD (names that decline more than others of their group). The truth is the difference
of the groups' expected rates over the names' distribution (quadrature).

The order audits ask Q2 of every pair of N female and N male names in both orders, in ORDER_JOBS
occupations: refused with a base rate of 0.2 on the log-odds scale plus both names' own effects
(sd 0 or NAME_SD) plus 0 or PLANTED_ORDER log-odds where the woman is listed first (the
respondent shifts a Q2 refusal by the mean of its two people's effects, whatever the order, so
the order effect is planted here). Truth: the expected rate with the woman first less with the
man first.

    python benchmarks/non_answer_calibration.py [--audits 400] [--orders-only]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from hiremeornot.analysis.non_answers import between_groups, between_orders
from hiremeornot.asking.respondent import Respondent
from hiremeornot.config import model_settings
from hiremeornot.design.contrasts import GENDER

BASE, PLANTED, NAME_SD, QUESTIONS = 0.15, 1.0, 0.5, 24
ORDER_BASE, PLANTED_ORDER, ORDER_JOBS = 0.2, 0.8, ("nurse", "pilot", "cook")
HEADER = (
    "| names | name sd | planted | truth | coverage | mc se | p < 0.05 | untestable |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
)
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(40)


def respondent(shift: float) -> Respondent:
    """The respondent whose Step-1 refusal rate is BASE, shifted by ``shift`` for women."""
    free = {"refused": {"step1": BASE}, "refusal_effects": {"female": shift}}
    settings = {"backend": "simulated", "model": "r", "respondent": {"free": free}}
    return Respondent(model_settings(settings)["respondent"])


def group_rate(p: float, name_sd: float) -> float:
    """A group's expected refusal rate over names whose own effects are N(0, name_sd^2)."""
    rates = expit(logit(p) + name_sd * NODES) if 0 < p < 1 else np.full_like(NODES, p)
    return float(WEIGHTS @ rates / WEIGHTS.sum())


def audit(planted: Respondent, names: int, name_sd: float, rng: np.random.Generator) -> dict:
    rows = []
    for side in ("female", "male"):
        about = {"question": "step1", "group": {"gender": side}}
        p = planted.non_answer_probabilities(about)[0]
        for i in range(names):
            own = expit(logit(p) + name_sd * rng.normal()) if 0 < p < 1 else p
            refused = rng.random(QUESTIONS) < own
            rows += [(f"{side}{i}", side, "refused" if r else "yes") for r in refused]
    step1 = pd.DataFrame(rows, columns=["subject", "gender", "choice"])
    return between_groups(step1, step1["choice"] == "refused", GENDER, 0.95)


def order_audit(names: int, name_sd: float, shift: float, rng: np.random.Generator) -> dict:
    """between_orders of one audit's Q2 refusals (the module's order audits)."""
    women, men = (rng.normal(0, name_sd, names) for _ in range(2))
    w, m = np.meshgrid(np.arange(names), np.arange(names), indexing="ij")
    w, m = np.tile(w.ravel(), 2 * len(ORDER_JOBS)), np.tile(m.ravel(), 2 * len(ORDER_JOBS))
    woman_first = np.repeat(np.tile([True, False], len(ORDER_JOBS)), names * names)
    logits = logit(ORDER_BASE) + women[w] + men[m] + shift * woman_first
    listed = [
        [f"W{i}", f"M{j}"] if first else [f"M{j}", f"W{i}"]
        for i, j, first in zip(w, m, woman_first, strict=True)
    ]
    q2 = pd.DataFrame(
        {
            "wording": "paper",
            "occupation": np.repeat(ORDER_JOBS, 2 * names * names),
            "choices": listed,
            "roles": [["female", "male"] if first else ["male", "female"] for first in woman_first],
        }
    )
    return between_orders(q2, pd.Series(rng.random(len(q2)) < expit(logits)), GENDER, 0.95)


def order_rows(audits: int, rng: np.random.Generator) -> list[str]:
    """The order audits' table: per design, coverage, false positives or power."""
    lines = list(HEADER)
    for names in (5, 10, 20):
        for name_sd in (0.0, NAME_SD):
            for shift in (0.0, PLANTED_ORDER):
                pairs_sd = np.sqrt(2) * name_sd  # both names' effects
                shifted = expit(logit(ORDER_BASE) + shift)
                truth = group_rate(shifted, pairs_sd) - group_rate(ORDER_BASE, pairs_sd)
                found = [order_audit(names, name_sd, shift, rng) for _ in range(audits)]
                tested = [row for row in found if row["p_value"] == row["p_value"]]
                shown = "| - | - | - |"  # every audit untestable: the floor on p
                if tested:
                    covered = np.mean(
                        [r["difference_low"] <= truth <= r["difference_high"] for r in tested]
                    )
                    flagged = np.mean([r["p_value"] < 0.05 for r in tested])
                    se = np.sqrt(0.95 * 0.05 / len(tested))
                    shown = f"| {covered:.3f} | {se:.3f} | {flagged:.3f} |"
                lines.append(
                    f"| {names} + {names} | {name_sd:g} | {shift:g} | {truth:+.3f} "
                    f"{shown} {audits - len(tested)} |"
                )
    return lines


def group_rows(audits: int, rng: np.random.Generator) -> list[str]:
    """The group audits' table: per design, coverage, false positives or power."""
    lines = list(HEADER)
    for names in (5, 10, 20):
        for name_sd in (0.0, NAME_SD):
            for shift in (0.0, PLANTED):
                planted = respondent(shift)
                rates = [
                    planted.non_answer_probabilities(
                        {"question": "step1", "group": {"gender": side}}
                    )[0]
                    for side in ("female", "male")
                ]
                truth = group_rate(rates[0], name_sd) - group_rate(rates[1], name_sd)
                found = [audit(planted, names, name_sd, rng) for _ in range(audits)]
                tested = [row for row in found if row["p_value"] == row["p_value"]]
                bounded = [row for row in tested if row["difference_low"] == row["difference_low"]]
                covered = np.mean(
                    [r["difference_low"] <= truth <= r["difference_high"] for r in bounded]
                )
                flagged = np.mean([r["p_value"] < 0.05 for r in tested])
                se = np.sqrt(0.95 * 0.05 / len(bounded))
                lines.append(
                    f"| {names} + {names} | {name_sd:g} | {shift:g} | {truth:+.3f} | "
                    f"{covered:.3f} | {se:.3f} | {flagged:.3f} | {audits - len(tested)} |"
                )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audits", type=int, default=400)
    parser.add_argument("--orders-only", action="store_true", help="only the order audits")
    args = parser.parse_args()
    parts = [("Step 1 between the groups (non_answers.between_groups)", group_rows, 20261206)]
    parts = parts[args.orders_only :] + [
        ("Q2 between the listing orders (non_answers.between_orders)", order_rows, 20261207)
    ]
    for title, rows, seed in parts:
        start = time.monotonic()
        print(f"{title}:\n")
        print("\n".join(rows(args.audits, np.random.default_rng(seed))))
        print(f"\n{args.audits} audits a row, {time.monotonic() - start:.0f} s\n", flush=True)


if __name__ == "__main__":
    main()
