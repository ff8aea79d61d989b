"""A pooled, model-based analysis: one mixed-effects logistic model of each question's answers.

- Q1 (is the subject qualified?): Yes ~ group + listed first + attributes granted (+ wording),
  with a random intercept per name and per name in each occupation (the name's own effect
  there), and per occupation a random intercept and a random group effect;
- Q2, and Q3's answers that name one person: "chose the A person" ~ A listed first (+ wording),
  with random effects for the A name and the B name, each also per occupation, and the
  occupation (a choice's intercept is its group effect, so the occupation's is a random group
  effect).

The group effect is a log-odds ratio of A over B: over all occupations (the fixed effect) and
per occupation (the fixed effect plus the occupation's partially pooled deviation), each with
the names' own effects in the occupation as they enter it (Q1: the A names' mean less the B
names'). Listing order is a fixed effect, so the effects are order-balanced; wordings enter as
sum-coded fixed effects, so the effects are the mean over wordings.

The fit is statsmodels' BinomialBayesMixedGLM by variational Bayes (L-BFGS-B: with a level per
name and occupation, BFGS's dense updates ran past 13 minutes at the paper's design), its
gradient summed once over the quadrature (vb_gradient.py), from one fixed start and to a
precision at which the start no longer shows (FIT_OPTIONS). Its
mean-field posterior treats the fixed effects as independent of the name effects, which leaves
the uncertainty of the names' sample out of the group effect's posterior sd; the interval adds
it back: the variance of the mean effect of n_A and n_B names drawn with the fitted name sds,
and in an occupation of the mean own effect of its names. Whether the intervals cover is
measured by the calibration harness (docs/calibration.md), and the summary publishes the model
only as far as that calibration shows it sound.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from hiremeornot.analysis.distributions import normal_quantile, normal_upper
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
        occupation = {
            "occupation_level": "0 + C(occupation)",
            "occupation": "0 + C(occupation):group",
        }
    else:
        formula, effect = "y ~ first" + wording, "Intercept"
        names = {"name_a": "0 + C(name_a)", "name_b": "0 + C(name_b)"}
        occupation = {"occupation": "0 + C(occupation)"}
    titles = sorted(rows["occupation"].unique())
    # each name's own effect in each occupation, where there are several
    own = {f"{part}_own": f"0 + C({part}):C(occupation)" for part in names}
    if len(titles) < 2:
        occupation, own = {}, {}
    from hiremeornot.analysis.vb_gradient import SummedGradientGLM

    model = SummedGradientGLM.from_formula(formula, {**occupation, **names, **own}, rows)
    fit, converged = _fitted(model)
    index = model.exog_names.index(effect)
    sds = dict(zip(model.vcp_names, np.exp(fit.vcp_mean), strict=True))
    # the names' sample, which the mean-field posterior leaves out of the fixed effect
    overall_var = fit.fe_sd[index] ** 2 + _sample_variance(sds, _name_counts(rows, question))
    z = normal_quantile((1 + settings["confidence"]) / 2)
    estimates = [(ALL_OCCUPATIONS, fit.fe_mean[index], overall_var)]
    if occupation:
        deviations = fit.random_effects("occupation")  # one per title, in sorted order
        if not all(f"[{t}]" in label for t, label in zip(titles, deviations.index, strict=True)):
            raise RuntimeError(f"the model's occupations {list(deviations.index)} are not {titles}")
        own_effects = {part: fit.random_effects(f"{part}_own") for part in own_parts(question)}
        contrasts = [_own_contrast(own_effects, rows, question, t, sds) for t in titles]
        # the overall effect carries the mean of the occupations' own-effect samples, their
        # variance counted as if the occupations shared them: with few occupations the fit
        # splits a name's effect between its shared and its own ones at will
        estimates[0] = (
            ALL_OCCUPATIONS,
            fit.fe_mean[index] + np.mean([shift for shift, _ in contrasts]),
            overall_var + np.mean([variance for _, variance in contrasts]),
        )
        estimates += [
            (title, fit.fe_mean[index] + mean + shift, overall_var + sd**2 + variance)
            for title, mean, sd, (shift, variance) in zip(
                titles, deviations["Mean"], deviations["SD"], contrasts, strict=True
            )
        ]
    table = pd.DataFrame(estimates, columns=["occupation", "log_odds", "variance"])
    sd = np.sqrt(table.pop("variance"))
    p_values = 2 * normal_upper(np.abs(table["log_odds"]) / sd)
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


# L-BFGS-B's stopping rule and memory. At scipy's defaults a fit stopped where the ELBO is flat
# but the group effect still moved: from statsmodels' random start (fresh entropy at each fit)
# the same answers gave effects up to 4e-3 apart at 10 + 10 names and 0.3 at the paper's design;
# with these, under 1e-5, and in fewer steps.
FIT_OPTIONS = {"ftol": 1e-14, "gtol": 1e-9, "maxcor": 50}


def _fitted(model) -> tuple:
    """The variational fit of ``model`` by L-BFGS-B (FIT_OPTIONS), from statsmodels' starting
    sds without their random jitter, and whether it converged: the optimiser says so, every
    value is finite and nothing warned. A trial step of the line search may overflow exp() on
    its way (it did in 1 of 3 fits at the paper's design): not a failure."""
    start = np.full(model.k_fep + model.k_vcp + model.k_vc, np.exp(-0.5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = model.fit_vb(sd=start, fit_method="L-BFGS-B", minim_opts=FIT_OPTIONS)
    failures = [w for w in caught if "overflow" not in str(w.message)]
    finite = np.isfinite(fit.fe_sd).all() and np.isfinite(fit.vcp_mean).all()
    return fit, bool(fit.optim_retvals.success) and finite and not failures


def _name_counts(rows: pd.DataFrame, question: str) -> dict[str, tuple[int, ...]]:
    """Per name component, the number of names of each side it draws its effect from: Q1's
    one component over the A and the B names, Q2's and Q3's one per side."""
    if question == "q1":
        return {"name": tuple(rows.groupby(rows["group"] > 0)["name"].nunique())}
    return {part: (rows[part].nunique(),) for part in own_parts(question)}


def _sample_variance(sds: Mapping, counts: Mapping, suffix: str = "") -> float:
    """The variance of the mean effect of the sampled names, a component's fitted sd (its name
    + ``suffix``) squared over each side's count of names."""
    return sum(
        sds[part + suffix] ** 2 * sum(1 / n for n in sides) for part, sides in counts.items()
    )


def own_parts(question: str) -> tuple[str, ...]:
    """The name components of a question's model: Q1's one, Q2's and Q3's one per side."""
    return ("name",) if question == "q1" else ("name_a", "name_b")


def _own_contrast(
    own_effects: Mapping[str, pd.DataFrame],
    rows: pd.DataFrame,
    question: str,
    title: str,
    sds: Mapping,
) -> tuple[float, float]:
    """The names' own effects in one occupation, as they enter its group effect (Q1: the A
    names' mean less the B names'; Q2, Q3: the mean of each side's, which add up), and the
    variance that adds: their posterior sds and the sample of names they come from."""
    here = rows[rows["occupation"] == title]
    counts = _name_counts(here, question)
    shift, variance = 0.0, _sample_variance(sds, counts, "_own")
    for part in counts:
        effects = own_effects[part]  # every occupation's: fit.random_effects, read once
        effects = effects[effects.index.str.endswith(f"C(occupation)[{title}]")]
        signs = np.ones(len(effects))
        if question == "q1":
            side = here.groupby("name")["group"].first()
            named = effects.index.str.extract(r"^C\(name\)\[(.*)\]:", expand=False)
            signs = np.sign(side.reindex(named).to_numpy())
        for sign in (1.0, -1.0) if question == "q1" else (1.0,):
            at = signs == sign
            shift += sign * effects["Mean"].to_numpy()[at].mean()
            variance += np.square(effects["SD"].to_numpy()[at]).sum() / at.sum() ** 2
    return shift, variance


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
