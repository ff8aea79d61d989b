"""A pooled, model-based analysis: one mixed-effects logistic model of each question's answers.

- Q1 (is the subject qualified?): Yes ~ group + listed first + attributes granted (+ wording),
  with a random intercept per name, and per occupation a random intercept and a random group
  effect;
- Q2, and Q3's answers that name one person: "chose the A person" ~ A listed first (+ wording),
  with random effects for the A name, the B name and the occupation (a choice's intercept is
  its group effect, so the occupation's is a random group effect).

The group effect is a log-odds ratio of A over B: over all occupations (the fixed effect) and
per occupation (the fixed effect plus the occupation's partially pooled deviation). Listing
order is a fixed effect, so the effects are order-balanced; wordings enter as sum-coded fixed
effects, so the effects are the mean over wordings.

The fit is statsmodels' BinomialBayesMixedGLM by variational Bayes. Its mean-field posterior
treats the fixed effects as independent of the name effects, which leaves the uncertainty of
the names' sample out of the group effect's posterior sd; the interval adds it back: the
variance of the mean effect of n_A and n_B names drawn with the fitted name sds. Whether the
intervals cover is measured by the calibration harness (docs/calibration.md), and the summary
publishes the model only as far as that calibration shows it sound.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.stats import norm

from hiremeornot.analysis.stats import ALL_OCCUPATIONS, q_values
from hiremeornot.design.contrasts import Sides
from hiremeornot.errors import InputError

QUESTIONS = ("q1", "q2", "q3")
# The fewest names a side the calibration covers (docs/calibration.md): with fewer, the names'
# variance cannot be estimated and the model is not fitted. Q1's intervals covered 91% of
# nominal 95% at 5 + 5 names (Q2, Q3: 94-96%), so Q1 is fitted from 10 a side.
MIN_NAMES = 5
MIN_NAMES_Q1 = 10
COLUMNS = [
    "question",
    "occupation",
    "log_odds",
    "low",
    "high",
    "odds_ratio",
    "p_value",
    "q_value",
    "flagged",
    "answers",
    "converged",
]


def q1_rows(step2: pd.DataFrame, instances: pd.DataFrame, sides: Sides) -> pd.DataFrame:
    """One row per Q1 answer: yes, group (+1/2 for A, -1/2 for B), listed first (+-1/2),
    attributes granted, occupation, the subject's name and the wording."""
    if "granted" not in step2:
        raise InputError(
            "the Step-2 tables have no granted column (written by an older release): run "
            "Step 2 again (its answers come back from the store)"
        )
    joined = step2.merge(instances[["instance_id", "name1"]], on="instance_id", validate="m:1")
    return pd.DataFrame(
        {
            "y": (joined["choice"] == "yes").astype(float),
            "group": np.where(joined[sides.attribute] == sides.a, 0.5, -0.5),
            "first": np.where(joined["subject"] == joined["name1"], 0.5, -0.5),
            "granted": joined["granted"].astype(float),
            "occupation": joined["occupation"],
            "name": joined["subject"],
            "wording": joined["wording"],
        }
    )


def choice_rows(
    step3: pd.DataFrame, instances: pd.DataFrame, question: str, sides: Sides
) -> pd.DataFrame:
    """One row per answer of ``question`` that named one person: chose A, A listed first
    (+-1/2), occupation, the two names and the wording."""
    asked = step3[(step3["question"] == question) & step3["choice"].isin(sides.labels)]
    columns = ["instance_id", sides.a, sides.b, "order"]
    joined = asked.merge(instances[columns], on="instance_id", validate="m:1")
    return pd.DataFrame(
        {
            "y": (joined["choice"] == sides.a).astype(float),
            "first": np.where(joined["order"] == sides.orders[0], 0.5, -0.5),
            "occupation": joined["occupation"],
            "name_a": joined[sides.a],
            "name_b": joined[sides.b],
            "wording": joined["wording"],
        }
    )


def fit_question(rows: pd.DataFrame, question: str, settings: Mapping) -> pd.DataFrame:
    """The group effect of one question's model, over all occupations and per occupation
    (COLUMNS), ``settings`` the report section: each effect's interval at its ``confidence``,
    the normal test of a zero effect (p_value), Benjamini-Hochberg across the occupations
    (q_value; the overall effect is its own test) and ``flagged`` where q < ``alpha``. Empty
    where the answers cannot identify it (one order, one group, no answers)."""
    if rows.empty or rows["first"].nunique() < 2 or rows["y"].nunique() < 2:
        return pd.DataFrame(columns=COLUMNS)
    wording = " + C(wording, Sum)" if rows["wording"].nunique() > 1 else ""
    if question == "q1":
        formula, effect = "y ~ group + first + granted" + wording, "group"
        names = {"name": "0 + C(name)"}
        by_group = rows.groupby(rows["group"] > 0)["name"].nunique()
        name_counts = {"name": tuple(by_group)}
        occupation = {
            "occupation_level": "0 + C(occupation)",
            "occupation": "0 + C(occupation):group",
        }
    else:
        formula, effect = "y ~ first" + wording, "Intercept"
        names = {"name_a": "0 + C(name_a)", "name_b": "0 + C(name_b)"}
        name_counts = {part: (rows[part].nunique(),) for part in names}
        occupation = {"occupation": "0 + C(occupation)"}
    titles = sorted(rows["occupation"].unique())
    if len(titles) < 2:
        occupation = {}
    from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM

    model = BinomialBayesMixedGLM.from_formula(formula, {**occupation, **names}, rows)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = model.fit_vb()
    converged = bool(fit.optim_retvals.success) and not caught
    index = model.exog_names.index(effect)
    sds = dict(zip(model.vcp_names, np.exp(fit.vcp_mean), strict=True))
    # the names' sample, which the mean-field posterior leaves out of the fixed effect
    name_variance = sum(
        sds[part] ** 2 * sum(1 / count for count in counts) for part, counts in name_counts.items()
    )
    overall_var = fit.fe_sd[index] ** 2 + name_variance
    z = norm.ppf((1 + settings["confidence"]) / 2)
    estimates = [(ALL_OCCUPATIONS, fit.fe_mean[index], overall_var)]
    if occupation:
        deviations = fit.random_effects("occupation")  # one per title, in sorted order
        if not all(f"[{t}]" in label for t, label in zip(titles, deviations.index, strict=True)):
            raise RuntimeError(f"the model's occupations {list(deviations.index)} are not {titles}")
        estimates += [
            (title, fit.fe_mean[index] + mean, overall_var + sd**2)
            for title, mean, sd in zip(titles, deviations["Mean"], deviations["SD"], strict=True)
        ]
    table = pd.DataFrame(estimates, columns=["occupation", "log_odds", "variance"])
    sd = np.sqrt(table.pop("variance"))
    p_values = 2 * norm.sf(np.abs(table["log_odds"]) / sd)
    # one family: the overall effect and every occupation's (the overall one tested on its
    # own beside BH across occupations flagged something in up to 2 alpha of null audits)
    q = q_values(p_values)
    counts = rows.groupby("occupation").size()
    return table.assign(
        question=question,
        low=table["log_odds"] - z * sd,
        high=table["log_odds"] + z * sd,
        odds_ratio=np.exp(table["log_odds"]),
        p_value=p_values,
        q_value=q,
        flagged=q < settings["alpha"],
        answers=[
            len(rows) if o == ALL_OCCUPATIONS else int(counts[o]) for o in table["occupation"]
        ],
        converged=converged,
    )[COLUMNS]


def pooled_effects(
    step2: pd.DataFrame,
    step3: pd.DataFrame,
    instances: pd.DataFrame,
    sides: Sides,
    settings: Mapping,
) -> pd.DataFrame:
    """The group effect of every question (COLUMNS), ``settings`` the report section (its
    ``confidence`` and ``alpha``); no Q1 rows below MIN_NAMES_Q1 names a side, and none at all
    below MIN_NAMES or with one listing order (then position and group cannot be told apart)."""
    names = min(instances[side].nunique() for side in sides.labels)
    if names < MIN_NAMES or instances["order"].nunique() < 2:
        return pd.DataFrame(columns=COLUMNS)
    tables = []
    if names >= MIN_NAMES_Q1:
        tables.append(fit_question(q1_rows(step2, instances, sides), "q1", settings))
    for question in ("q2", "q3"):
        rows = choice_rows(step3, instances, question, sides)
        tables.append(fit_question(rows, question, settings))
    fitted = [table for table in tables if len(table)]
    return pd.concat(fitted, ignore_index=True) if fitted else pd.DataFrame(columns=COLUMNS)
