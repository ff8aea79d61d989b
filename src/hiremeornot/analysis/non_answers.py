"""Free questions' non-answers (answers_mode free): how often each question was refused, hedged
(``other``) or left unreadable (``unparsed``), over the run and per occupation, and whether the
questions about one group went unanswered more often than those about the other.

A constrained question cannot go unanswered: its rows count 0 of the questions asked. Each rate
has a Wilson interval that treats the questions as independent (a description of the run, not a
test). A question about one person (Step 1, Q1) is compared between the groups with the names
as the sample: each name's share of its questions left unanswered, the difference of the two
groups' mean shares (A minus B), its Welch interval, and a permutation p over the names (exact
where the splits of the names are at most PERMUTATIONS, a seeded sample of them otherwise),
which holds under any distribution of the shares. Q2 and Q3 ask about one person of each group
at once, so the group of the one listed first is what varies: they are compared between the
orders (``compared``: ``first listed``), each name pair asked in both orders giving the
difference of its rates (A listed first minus B listed first), their mean with the interval
and test of the crossed variance by both sides' names (crossed.crossed_mean, as the metrics'
differences); a run in one order cannot compare them.

Where the model's store also held a free question's constrained twin when it was asked (the
step table's ``constrained``), a row of kind ``agrees`` gives how many of the answered free
replies gave the constrained answer (``asked``: those compared). Where a second model read the
replies (the model's ``free_classifier``: asking/classify.py), a row of kind ``classifier``
counts the replies it read that the parser could not (``asked``: every question), and one of
kind ``classifier_agrees`` how many of the replies the parser read the classifier read alike
(``asked``: those compared).

``answered_instances`` keeps, of Steps 2 and 3, the instances (in a wording) whose Q1-Q3 were
all answered: Confirmation, Consistency, the differences and every statistic built on them are
statistics of the answered instances (docs/method.md#free-answers); ``answered_pairs`` keeps
the Step-1 pairs whose both questions were answered, for the attribute gaps.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from hiremeornot.analysis.crossed import crossed_mean
from hiremeornot.analysis.stats import difference_p_value
from hiremeornot.asking.free_replies import CLASSIFIER_RULE, NON_ANSWERS
from hiremeornot.design.contrasts import Sides

ANY = "any"
KINDS = (ANY, *NON_ANSWERS)
ALL = "all"  # the occupation of the rows over the whole run
INSTANCES = "instances"  # the rows of instances with any of Q1-Q3 not answered
AGREES = "agrees"  # the kind of the rows of free answers that agree with the constrained one
CLASSIFIED = CLASSIFIER_RULE  # the kind of the rows of replies read by the classifier alone
CLASSIFIER_AGREES = "classifier_agrees"  # of those the parser read, the classifier read alike
PERMUTATIONS = 20_000
SEED = 20261206  # the permutation sample's, so that a run's p is reproducible
# The questions about one person, compared between the groups of the people asked about.
ABOUT_ONE = ("step1", "q1")
# The questions about two people at once, compared between the groups of the one listed first.
ABOUT_TWO = ("q2", "q3")
# What the groups' rates of a row are rates of (its ``compared``).
COMPARED = {**dict.fromkeys(ABOUT_ONE, "subject"), **dict.fromkeys(ABOUT_TWO, "first listed")}


def columns(sides: Sides) -> list[str]:
    """The table's columns: the question, its occupation (``all``: every one), the kind of
    non-answer (``any`` of them, or one), the questions asked and not answered, the rate with
    its interval, and over the run the groups' rates (of the subject's group in Step 1 and Q1,
    of the first-listed person's in Q2 and Q3: ``compared``), names and difference."""
    a, b = sides.labels
    return [
        "question",
        "occupation",
        "kind",
        "asked",
        "count",
        "rate",
        "rate_low",
        "rate_high",
        "compared",
        f"rate_{a}",
        f"rate_{b}",
        f"names_{a}",
        f"names_{b}",
        "difference",
        "difference_low",
        "difference_high",
        "p_value",
    ]


def unanswered(table: pd.DataFrame) -> pd.Series:
    """Whether each row's answer is a non-answer."""
    return table["choice"].isin(NON_ANSWERS)


def answered_instances(
    step2: pd.DataFrame, step3: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Steps 2 and 3 less every instance (in a wording) with a Q1, Q2 or Q3 not answered."""
    step2, step3 = _without_unanswered([step2, step3], ["wording", "instance_id"])
    return step2, step3


def answered_pairs(step1: pd.DataFrame) -> pd.DataFrame:
    """Step 1's answers joined to the instances (granted.parquet) less every (wording, instance,
    attribute) one of whose two subjects' questions was not answered, so that each attribute's
    gap compares the two people of a pair."""
    (kept,) = _without_unanswered([step1], ["wording", "instance_id", "element_id"])
    return kept


def _without_unanswered(tables: list[pd.DataFrame], keys: list[str]) -> list[pd.DataFrame]:
    """The tables less every row whose ``keys`` are those of a row not answered in any of
    them (the tables as given where every row was answered)."""
    left_out = pd.concat([t.loc[unanswered(t), keys] for t in tables]).drop_duplicates()
    if left_out.empty:
        return tables
    unanswered_keys = pd.MultiIndex.from_frame(left_out)
    return [
        t[~pd.MultiIndex.from_frame(t[keys]).isin(unanswered_keys)].reset_index(drop=True)
        for t in tables
    ]


def non_answer_table(
    step1: pd.DataFrame,
    step2: pd.DataFrame,
    step3: pd.DataFrame,
    sides: Sides,
    confidence: float,
) -> pd.DataFrame:
    """Per question (step1, q1, q2, q3) and kind, over the run and per occupation (kind
    ``any`` only), the questions not answered (the module's docstring says how); last, as
    question ``instances``, the instances (in a wording) left out of the metrics for a
    non-answer among their Q1-Q3, over the run and per occupation."""
    questions = {
        "step1": step1,
        "q1": step2,
        **{q: step3[step3["question"] == q] for q in ("q2", "q3")},
    }
    rows = []
    for question, table in questions.items():
        for kind in KINDS:
            missing = unanswered(table) if kind == ANY else table["choice"] == kind
            row = _rate(question, ALL, kind, missing, confidence)
            compare = between_groups if question in ABOUT_ONE else between_orders
            row |= {"compared": COMPARED[question]} | compare(table, missing, sides, confidence)
            rows.append(row)
        if "constrained" in table:  # the same questions asked with the constraint too
            compared = ~unanswered(table) & table["constrained"].notna()
            agrees = table["choice"][compared] == table["constrained"][compared]
            rows.append(_rate(question, ALL, AGREES, agrees, confidence))
        if "classified" in table:  # a second model read the replies
            by_classifier = table["rule"] == CLASSIFIER_RULE
            rows.append(_rate(question, ALL, CLASSIFIED, by_classifier, confidence))
            compared = ~by_classifier & table["classified"].notna()
            alike = table["classified"][compared] == table["choice"][compared]
            rows.append(_rate(question, ALL, CLASSIFIER_AGREES, alike, confidence))
        if "occupation" in table:
            for occupation, asked in table.groupby("occupation", sort=False):
                rows.append(_rate(question, occupation, ANY, unanswered(asked), confidence))
    instances = _instances_left_out(step2, step3)
    rows.append(_rate(INSTANCES, ALL, ANY, instances["left_out"], confidence))
    for occupation, asked in instances.groupby("occupation", sort=False):
        rows.append(_rate(INSTANCES, occupation, ANY, asked["left_out"], confidence))
    return pd.DataFrame(rows).reindex(columns=columns(sides))


def _instances_left_out(step2: pd.DataFrame, step3: pd.DataFrame) -> pd.DataFrame:
    """Per instance and wording: its occupation and whether any of its Q1-Q3 went unanswered."""
    keys = ["wording", "instance_id", "occupation"]
    both = pd.concat([t[keys].assign(left_out=unanswered(t)) for t in (step2, step3)])
    return both.groupby(keys, sort=False, as_index=False)["left_out"].any()


def _rate(question: str, occupation: str, kind: str, missing: pd.Series, confidence: float) -> dict:
    from statsmodels.stats.proportion import proportion_confint  # where it runs (distributions)

    count, asked = int(missing.sum()), len(missing)
    low, high = (
        proportion_confint(count, asked, alpha=1 - confidence, method="wilson")
        if asked
        else (math.nan, math.nan)
    )
    return {
        "question": question,
        "occupation": occupation,
        "kind": kind,
        "asked": asked,
        "count": count,
        "rate": count / asked if asked else math.nan,
        "rate_low": low,
        "rate_high": high,
    }


def between_groups(
    table: pd.DataFrame, missing: pd.Series, sides: Sides, confidence: float
) -> dict:
    """The groups' rates over their names, and the difference A - B with its Welch interval
    and permutation p (NaN where a group has fewer than two names, or no name differs; the
    interval also where no group's names differ among themselves)."""
    from scipy import stats  # scipy.stats where it runs (analysis/distributions.py)

    per_name = missing.astype(float).groupby([table[sides.attribute], table["subject"]]).mean()
    shares = [per_name.get(side, pd.Series(dtype=float)).to_numpy() for side in sides.labels]
    a, b = sides.labels
    row = {
        f"rate_{a}": shares[0].mean() if len(shares[0]) else math.nan,
        f"rate_{b}": shares[1].mean() if len(shares[1]) else math.nan,
        f"names_{a}": len(shares[0]),
        f"names_{b}": len(shares[1]),
    }
    row["difference"] = row[f"rate_{a}"] - row[f"rate_{b}"]
    pooled = np.concatenate(shares)
    if min(map(len, shares)) < 2 or np.ptp(pooled) == 0:
        return row | {"difference_low": math.nan, "difference_high": math.nan, "p_value": math.nan}
    if all(np.ptp(share) == 0 for share in shares):  # no spread: Welch's interval has no width
        low = high = math.nan
    else:
        with warnings.catch_warnings():  # a group whose names are all alike warns, harmlessly
            warnings.simplefilter("ignore", RuntimeWarning)
            welch = stats.ttest_ind(*shares, equal_var=False)
        interval = welch.confidence_interval(confidence)  # a difference of rates: within +-1
        low, high = max(float(interval.low), -1.0), min(float(interval.high), 1.0)
    permuted = stats.permutation_test(
        shares,
        lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
        permutation_type="independent",
        vectorized=True,
        n_resamples=PERMUTATIONS,
        rng=np.random.default_rng(SEED),
    )
    return row | {
        "difference_low": low,
        "difference_high": high,
        "p_value": float(permuted.pvalue),
    }


def between_orders(
    table: pd.DataFrame, missing: pd.Series, sides: Sides, confidence: float
) -> dict:
    """Q2 or Q3: the rates with a person of group A listed first and with one of B, and over
    the name pairs asked in both orders (per occupation and wording) the mean difference A
    first - B first with its interval and test from the crossed variance by both sides' names
    (NaN where no pair was asked in both orders, or too few names for the test's floor on p,
    crossed.smallest_p, to go below 1 - ``confidence``). A question's choices are in listing
    order, its roles their sides."""
    a, b = sides.labels
    roles, choices = table["roles"].map(list), table["choices"].map(list)
    frame = pd.DataFrame(
        {
            "wording": table["wording"],
            "occupation": table["occupation"],
            "first": "first " + roles.str[0],
            "missing": missing.astype(float),
            **{
                side: [c[r.index(side)] for c, r in zip(choices, roles, strict=True)]
                for side in (a, b)
            },
        }
    )
    rates = frame.groupby("first")["missing"].mean()
    first_a, first_b = f"first {a}", f"first {b}"
    orders = frame.pivot_table(
        index=["wording", "occupation", a, b], columns="first", values="missing", aggfunc="mean"
    )
    paired = orders.reindex(columns=[first_a, first_b]).dropna().reset_index()
    row = {
        f"rate_{a}": rates.get(first_a, math.nan),
        f"rate_{b}": rates.get(first_b, math.nan),
        f"names_{a}": paired[a].nunique(),
        f"names_{b}": paired[b].nunique(),
    }
    if min(row[f"names_{a}"], row[f"names_{b}"]) < 2:
        none = dict.fromkeys(
            ["difference", "difference_low", "difference_high", "p_value"], math.nan
        )
        return row | none
    differences = paired[["wording", a, b]].assign(change=paired[first_a] - paired[first_b])
    means = crossed_mean(differences, ["change"], sides)
    estimate = float(means.estimate[0])
    if not means.can_reject(confidence):  # too few names for any p below it: no test
        none = dict.fromkeys(["difference_low", "difference_high", "p_value"], math.nan)
        return row | {"difference": estimate} | none
    low, high = means.interval(confidence, -1.0, 1.0)
    return row | {
        "difference": estimate,
        "difference_low": float(low[0]),
        "difference_high": float(high[0]),
        "p_value": difference_p_value(estimate, means.se[0], means.df[0], floor=means.floor),
    }
