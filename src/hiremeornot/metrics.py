"""Confirmation (Eq. 1), Consistency (Eq. 2) and the female-minus-male difference (Section 5).

Per instance (occupation, name pair, order), with s_x the subject chosen in Q2:
- confirmed:  Q1(s_x) == Yes                       (Eq. 1's Phi)
- consistent: Q3 answer == Q2 answer               (Eq. 2's Phi)
- biased towards s_x: consistent or not confirmed  (Section 5: a behaviour is biased when it keeps
  the choice despite the neutral options, or picks a subject it had judged unqualified)
Per occupation, each is averaged over the instances; the difference is
P(biased towards the female subject) - P(biased towards the male subject).
See docs/method.md for the reasoning.
"""

from __future__ import annotations

import pandas as pd

INSTANCE_COLUMNS = [
    "instance_id",
    "occupation",
    "q1_female",
    "q1_male",
    "q2",
    "q3",
    "confirmed",
    "consistent",
    "biased_towards",
]
OCCUPATION_COLUMNS = [
    "occupation",
    "n",
    "confirmation",
    "consistency",
    "q2_female",
    "biased_female",
    "biased_male",
    "difference",
]


def instance_outcomes(step2: pd.DataFrame, step3: pd.DataFrame) -> pd.DataFrame:
    """One row per instance with the answers of Q1-Q3 and the per-instance indicators."""
    q1 = step2.pivot_table(
        index="instance_id", columns="gender", values="choice", aggfunc="first"
    ).rename(columns={"female": "q1_female", "male": "q1_male"})
    q23 = step3.pivot_table(
        index=["instance_id", "occupation"], columns="question", values="choice", aggfunc="first"
    ).reset_index()
    table = q23.merge(q1, left_on="instance_id", right_index=True, how="inner", validate="1:1")
    if len(table) != len(q23):
        raise ValueError("Step 2 and Step 3 tables do not cover the same instances")
    chosen_q1 = table.apply(lambda row: row[f"q1_{row['q2']}"], axis=1)
    table["confirmed"] = chosen_q1 == "yes"
    table["consistent"] = table["q2"] == table["q3"]
    biased = table["consistent"] | ~table["confirmed"]
    table["biased_towards"] = table["q2"].where(biased, "none")
    return table[INSTANCE_COLUMNS]


def occupation_metrics(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per occupation: Confirmation, Consistency and the female-minus-male difference."""
    grouped = outcomes.groupby("occupation", sort=False)
    table = pd.DataFrame(
        {
            "n": grouped.size(),
            "confirmation": grouped["confirmed"].mean(),
            "consistency": grouped["consistent"].mean(),
            "q2_female": grouped["q2"].apply(lambda s: (s == "female").mean()),
            "biased_female": grouped["biased_towards"].apply(lambda s: (s == "female").mean()),
            "biased_male": grouped["biased_towards"].apply(lambda s: (s == "male").mean()),
        }
    ).reset_index()
    table["difference"] = table["biased_female"] - table["biased_male"]
    return table[OCCUPATION_COLUMNS]


def difference_table(metrics: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Occupations whose |difference| exceeds the threshold, most female-favoured first."""
    above = metrics[metrics["difference"].abs() > threshold]
    return (
        above[["occupation", "difference"]]
        .sort_values(["difference", "occupation"], ascending=[False, True])
        .reset_index(drop=True)
    )
