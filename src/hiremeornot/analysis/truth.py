"""The planted truth of a simulated model: what every published quantity is, in expectation.

For each occupation of the design (and pooled over them, ``(all)``), the expected value of each
published quantity over the population of names (their effects integrated by quadrature:
name_nodes) and over the answers, computed from the respondent's generative model
alone, never from the draws behind an estimate. Like the estimates, each is the mean over the
wordings run of the mean over the listing orders run (order-balanced where both ran).

Given the two names' effects, Step 1's answers and so the number of attributes granted to each
person are independent draws (a Poisson-binomial count over the occupation's attributes), and
Q1, Q2 and Q3 are independent given those; every expectation below is exact up to quadrature.

Quantities (the names of metrics.tsv and impact tables, A and B the sides' labels):
confirmation, consistency, q2_<A>, biased_<A>, biased_<B>, difference_<reading> for every
reading, and per question (q1, q2, q3) the selection rate of each side (rate_<q>_<side>) and its
impact ratio to the higher of the two (ratio_<q>_<side>); Q3's "both" selects both people.
log_odds_<q>: the planted log-odds ratio of A over B that pooled.py's model estimates (Q1: of
Yes, given the attributes granted; Q2 and Q3: of choosing A among answers naming one person),
the same for every name (the model conditions on the names' effects).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.polynomial.hermite_e import hermegauss
from numpy.polynomial.legendre import leggauss

from hiremeornot.analysis.metrics import READINGS
from hiremeornot.analysis.stats import ALL_OCCUPATIONS
from hiremeornot.asking.respondent import QUESTIONS, Group, Respondent
from hiremeornot.design.contrasts import Sides

NODES = 40  # of a name effect alone
NODES_CROSSED = (24, 12)  # of a name effect and its own effect in an occupation, in a product
TRUTH_COLUMNS = ["occupation", "quantity", "truth"]


@dataclass(frozen=True)
class Design:
    """What an audit asks: the instances (dataset.py), the attributes of each occupation, the
    sides and each side's group, and the wordings run."""

    instances: pd.DataFrame
    attributes: pd.DataFrame
    sides: Sides
    groups: Mapping[str, Group]
    wordings: Sequence[str]


def _normal_nodes(sd: float, nodes: int = NODES) -> tuple[np.ndarray, np.ndarray]:
    """Points and weights of N(0, sd^2) (the weights sum to 1)."""
    x, w = hermegauss(nodes)
    return sd * x, w / w.sum()


def name_nodes(respondent: Respondent) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points and weights of a person's effects: in Step 1 (the name effect u) and in Q1-Q3
    (u plus the name's own effect in the occupation, v), and their weights (summing to 1).

    Normal u: Gauss-Hermite; Student-t u: Gauss-Legendre over its quantile function (the
    integrands are probabilities, bounded, so heavy tails cost no accuracy); with v, the
    product of u's points and v's Gauss-Hermite points."""
    params = respondent.params
    crossed = params["interaction_sd"] > 0
    nodes = NODES_CROSSED[0] if crossed else NODES
    if params["name_df"] == 0:
        u, w = _normal_nodes(params["name_sd"], nodes)
    else:
        x, w = leggauss(2 * nodes)  # t's tails need more points than the normal's
        u, w = respondent.name_quantile((x + 1) / 2), w / w.sum()
    if not crossed:
        return u, u, w
    v, w_v = _normal_nodes(params["interaction_sd"], NODES_CROSSED[1])
    return np.repeat(u, len(v)), np.add.outer(u, v).ravel(), np.outer(w, w_v).ravel()


def poisson_binomial(p_yes: np.ndarray) -> np.ndarray:
    """P(k of J independent events), k = 0..J, the events' probabilities ``p_yes`` (points x
    J; here attributes granted): the Poisson-binomial distribution, points x (J + 1)."""
    pmf = np.zeros((p_yes.shape[0], p_yes.shape[1] + 1))
    pmf[:, 0] = 1.0
    for j in range(p_yes.shape[1]):
        p = p_yes[:, j : j + 1]
        pmf[:, 1:] = pmf[:, 1:] * (1 - p) + pmf[:, :-1] * p
        pmf[:, 0] *= 1 - p[:, 0]
    return pmf


def _q1_yes(
    respondent: Respondent,
    types: Sequence[str],
    step1_shift: float,
    q1_shift: float,
    u: tuple[np.ndarray, np.ndarray],
) -> np.ndarray:
    """P(Q1 = Yes) of a person with effects u (each point: in Step 1, in Q1), over Step 1's
    draws."""
    p_yes = respondent.step1_yes(np.asarray(types)[None, :], step1_shift, u[0][:, None])
    pmf = poisson_binomial(np.atleast_2d(p_yes))
    granted = np.arange(pmf.shape[1])
    return (pmf * respondent.q1_yes(granted[None, :], q1_shift, u[1][:, None])).sum(axis=1)


def cell_truth(
    respondent: Respondent,
    occupation: str,
    wording: str,
    types: Sequence[str],
    groups: Mapping[str, Group],
    first: str,
    sides: Sides,
) -> dict[str, float]:
    """The expected per-instance values of one occupation, wording and listing order (the side
    listed ``first``), integrated over both names' effects."""
    u_step1, u, w = name_nodes(respondent)
    weights = np.outer(w, w)  # [i, j]: side A's name at point i, side B's at point j
    a, b = sides.labels

    def shift(question: str, side: str) -> float:
        return respondent.shift(question, occupation, wording, groups[side])

    q1 = {
        side: _q1_yes(respondent, types, shift("step1", side), shift("q1", side), (u_step1, u))
        for side in (a, b)
    }
    p1 = {a: q1[a][:, None], b: q1[b][None, :]}
    utility = {a: u[:, None], b: u[None, :]}
    p2, p3 = {}, {}
    for question, chosen in (("q2", p2), ("q3", p3)):
        second = b if first == a else a
        probabilities = respondent.choice_probabilities(
            question,
            shift(question, first) + utility[first],
            shift(question, second) + utility[second],
        )
        chosen[first], chosen[second] = probabilities[..., 0], probabilities[..., 1]

    def mean(values: np.ndarray) -> float:
        return float((np.broadcast_to(values, weights.shape) * weights).sum())

    biased = {s: p2[s] * (p3[s] + (1 - p3[s]) * (1 - p1[s])) for s in (a, b)}
    values = {
        "confirmation": mean(p2[a] * p1[a] + p2[b] * p1[b]),
        "consistency": mean(p2[a] * p3[a] + p2[b] * p3[b]),
        f"q2_{a}": mean(p2[a]),
        f"biased_{a}": mean(biased[a]),
        f"biased_{b}": mean(biased[b]),
        "difference_biased": mean(biased[a] - biased[b]),
        "difference_q2": mean(p2[a] - p2[b]),
        "difference_q3": mean(p3[a] - p3[b]),
        "difference_q1": mean(p1[a] - p1[b]),
    }
    values["difference_q2q3"] = (values["difference_q2"] + values["difference_q3"]) / 2
    both = respondent.params["q3"]["both"]  # Q3's "both" selects both people
    for question, selected in zip(QUESTIONS, (p1, p2, p3), strict=True):
        for side in (a, b):
            extra = both if question == "q3" else 0.0
            values[f"rate_{question}_{side}"] = mean(selected[side]) + extra
    return values


def _with_ratios(values: pd.Series, sides: Sides) -> pd.Series:
    """The impact ratios of the (already averaged) rates: each side's rate over the higher."""
    ratios = {}
    for question in QUESTIONS:
        rates = {side: values[f"rate_{question}_{side}"] for side in sides.labels}
        top = max(rates.values())
        for side, rate in rates.items():
            ratios[f"ratio_{question}_{side}"] = rate / top if top > 0 else np.nan
    return pd.concat([values, pd.Series(ratios)])


def _log_odds(respondent: Respondent, occupation: str, design: Design) -> pd.Series:
    """log_odds_<q> of one occupation: A's shift minus B's, the mean over the wordings."""
    a, b = (design.groups[side] for side in design.sides.labels)
    return pd.Series(
        {
            f"log_odds_{q}": np.mean(
                [
                    respondent.shift(q, occupation, w, a) - respondent.shift(q, occupation, w, b)
                    for w in design.wordings
                ]
            )
            for q in QUESTIONS
        }
    )


def planted_truth(respondent: Respondent, design: Design) -> pd.DataFrame:
    """TRUTH_COLUMNS for every occupation of the design and pooled (``(all)``): the mean over
    its wordings and over the listing orders each occupation ran of cell_truth."""
    instances, sides = design.instances, design.sides
    types = design.attributes.groupby("soc_code")["attribute_type"].agg(list)
    rows = {}
    for occupation, runs in instances.groupby("occupation", sort=False):
        cells = [
            cell_truth(
                respondent,
                occupation,
                wording,
                types[runs["soc_code"].iloc[0]],
                design.groups,
                sides.first_listed(order),
                sides,
            )
            for wording in design.wordings
            for order in dict.fromkeys(runs["order"])
        ]
        rows[occupation] = pd.concat(
            [
                _with_ratios(pd.DataFrame(cells).mean(), sides),
                _log_odds(respondent, occupation, design),
            ]
        )
    table = pd.DataFrame(rows).T
    pooled = table.drop(columns=[c for c in table if c.startswith("ratio_")]).mean()
    table.loc[ALL_OCCUPATIONS] = _with_ratios(pooled, sides)
    long = table.rename_axis("occupation").reset_index().melt("occupation", var_name="quantity")
    return long.rename(columns={"value": "truth"})[TRUTH_COLUMNS]


def alignment_truth(truth: pd.DataFrame, shares: Mapping[str, float], sides: Sides) -> pd.DataFrame:
    """The planted slope of each reading's female-minus-male difference on the occupations'
    share of women (``shares``: the matched occupations'), as analysis/alignment.py fits it:
    rows (``(all)``, ``alignment_slope_<reading>``, slope); none with fewer than three
    occupations or a single share."""
    table = truth.set_index(["occupation", "quantity"])["truth"]
    matched = [o for o in shares if (o, f"difference_{READINGS[0]}") in table.index]
    x = np.array([shares[o] for o in matched], dtype=float)
    if len(matched) < 3 or np.ptp(x) == 0:
        return pd.DataFrame(columns=TRUTH_COLUMNS)
    sign = 1.0 if sides.a == "female" else -1.0
    rows = [
        (
            ALL_OCCUPATIONS,
            f"alignment_slope_{reading}",
            sign * np.polyfit(x, [table[(o, f"difference_{reading}")] for o in matched], 1)[0],
        )
        for reading in READINGS
    ]
    return pd.DataFrame(rows, columns=TRUTH_COLUMNS)
