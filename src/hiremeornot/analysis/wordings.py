"""Does a finding survive rewording the questions? (docs/method.md#wording)

With several prompt wordings (prompts.variants), the headline metrics, intervals and tests pool
them, wordings a third random factor beside the names (crossed.crossed_mean). This module
reports each wording on its own and how far they agree:

- wording_metrics: per wording and occupation, the metrics and the t test of the
  difference within that wording (BH across occupations, within the wording);
- flip_shares: per occupation, the share of instances whose answer to a question is not the
  same under every wording;
- pair_flips: per pair of wordings and question, the share of instances whose answer changed,
  apart for instances whose Step-1 answers agreed in both wordings (the same attributes granted
  to both subjects: a direct change) and those where they did not (the prompts then state other
  attributes, so the change may come from Step 1);
- robustness: per occupation, the pooled difference beside the range over wordings, whether its
  sign agrees under every wording, and whether a difference significant under the reference
  wording (the first of prompts.variants) keeps its sign and significance under every other.
"""

from __future__ import annotations

from itertools import combinations

import pandas as pd

from hiremeornot.analysis.compare import granted_signatures
from hiremeornot.analysis.metrics import occupation_metrics
from hiremeornot.analysis.stats import occupation_statistics
from hiremeornot.design.contrasts import Sides

QUESTIONS = ("q1", "q2", "q3")
WORDING_COLUMNS = [
    "wording",
    "occupation",
    "n",
    "confirmation",
    "consistency",
    "difference",
    "low",
    "high",
    "p_value",
    "q_value",
    "significant",
]
ROBUSTNESS_COLUMNS = [
    "occupation",
    "wordings",
    "difference",
    "low",
    "high",
    "p_value",
    "q_value",
    "difference_min",
    "difference_max",
    "sign_agrees",
    "flagged",
    "robust",
    *[f"flip_{question}" for question in QUESTIONS],
    "flip_any",
]


def wordings_run(outcomes: pd.DataFrame) -> list[str]:
    """The wording ids of an outcomes table, in the order they were run."""
    return list(dict.fromkeys(outcomes["wording"]))


def wording_metrics(
    outcomes: pd.DataFrame, reading: str, settings: dict, sides: Sides
) -> pd.DataFrame:
    """Per wording and occupation: Confirmation, Consistency, the ``reading`` difference, its
    interval over the names and its test (BH across the occupations of that wording)."""
    parts = []
    for wording in wordings_run(outcomes):
        asked = outcomes[outcomes["wording"] == wording]
        metrics = occupation_metrics(asked, reading, sides)
        intervals, tests = occupation_statistics(asked, reading, settings, sides)
        bounds = intervals[intervals["metric"] == "difference"][["occupation", "low", "high"]]
        parts.append(
            metrics[["occupation", "n", "confirmation", "consistency", "difference"]]
            .merge(bounds, on="occupation", validate="1:1")
            .merge(
                tests[["occupation", "p_value", "q_value", "significant"]],
                on="occupation",
                validate="1:1",
            )
            .assign(wording=wording)
        )
    return pd.concat(parts, ignore_index=True)[WORDING_COLUMNS]


def flip_shares(outcomes: pd.DataFrame, sides: Sides) -> pd.DataFrame:
    """Per occupation: the share of instances whose Q1 (either subject), Q2, Q3 or any answer
    differs between any two wordings (so it grows with their number, and counts changes that
    come through Step 1: pair_flips tells them apart)."""
    answers = _answer_columns(sides)
    per_instance = outcomes.groupby(["occupation", "instance_id"], sort=False)
    flipped = pd.DataFrame(
        {
            f"flip_{question}": per_instance[columns].nunique().gt(1).any(axis=1)
            for question, columns in answers.items()
        }
    )
    flipped["flip_any"] = flipped.any(axis=1)
    return flipped.astype(float).groupby(level="occupation", sort=False).mean()


PAIR_COLUMNS = [
    "wording_a",
    "wording_b",
    "question",
    "instances",
    "same_step1",
    "flip_same_step1",
    "flip_step1_differs",
]


def _answer_columns(sides: Sides) -> dict[str, list[str]]:
    """The outcomes columns of each question's answers (Q1: both subjects')."""
    return {"q1": [f"q1_{side}" for side in sides.labels], "q2": ["q2"], "q3": ["q3"]}


def pair_flips(outcomes: pd.DataFrame, granted: pd.DataFrame, sides: Sides) -> pd.DataFrame:
    """PAIR_COLUMNS for every pair of the wordings run (in run order) and question: of the
    instances asked in both, how many had the same Step-1 answers in both, and the share whose
    answer changed among those (direct) and among the others (possibly through Step 1)."""
    signatures = granted_signatures(granted, sides)
    step1 = {
        (wording, instance): tuple(
            signatures.get((wording, instance, side), "") for side in sides.labels
        )
        for wording, instance in outcomes[["wording", "instance_id"]].itertuples(index=False)
    }
    by_wording = {w: rows.set_index("instance_id") for w, rows in outcomes.groupby("wording")}
    rows = []
    for first, second in combinations(wordings_run(outcomes), 2):
        a, b = by_wording[first], by_wording[second]
        shared = a.index.intersection(b.index)
        same = pd.Series(
            [step1[(first, i)] == step1[(second, i)] for i in shared], index=shared, dtype=bool
        )
        for question, columns in _answer_columns(sides).items():
            changed = (a.loc[shared, columns] != b.loc[shared, columns]).any(axis=1)
            rows.append(
                (
                    first,
                    second,
                    question,
                    len(shared),
                    int(same.sum()),
                    changed[same].mean() if same.any() else float("nan"),
                    changed[~same].mean() if (~same).any() else float("nan"),
                )
            )
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def robustness(
    per_wording: pd.DataFrame,
    outcomes: pd.DataFrame,
    intervals: pd.DataFrame,
    tests: pd.DataFrame,
    sides: Sides,
) -> pd.DataFrame:
    """Per occupation: the pooled difference (interval and test from the pooled statistics),
    its range over wordings, sign agreement, flips, and whether it is flagged (significant under
    the reference wording) and robust (significant with the same sign under every wording)."""
    reference = wordings_run(outcomes)[0]
    by_occupation = per_wording.groupby("occupation", sort=False)
    differences = by_occupation["difference"]
    signs = per_wording.assign(sign=per_wording["difference"].apply(_sign))
    same_sign = signs.groupby("occupation", sort=False)["sign"].agg(
        lambda s: s.iloc[0] != 0 and s.nunique() == 1
    )
    reference_rows = per_wording[per_wording["wording"] == reference].set_index("occupation")
    all_significant = by_occupation["significant"].all()
    bounds = intervals[intervals["metric"] == "difference"].set_index("occupation")
    pooled = tests.set_index("occupation")
    table = pd.DataFrame(
        {
            "wordings": by_occupation.size(),
            "difference": pooled["difference"],
            "low": bounds["low"],
            "high": bounds["high"],
            "p_value": pooled["p_value"],
            "q_value": pooled["q_value"],
            "difference_min": differences.min(),
            "difference_max": differences.max(),
            "sign_agrees": same_sign,
            "flagged": reference_rows["significant"],
        }
    )
    table["robust"] = table["flagged"] & table["sign_agrees"] & all_significant
    table = table.join(flip_shares(outcomes, sides))
    return table.rename_axis("occupation").reset_index()[ROBUSTNESS_COLUMNS]


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)
